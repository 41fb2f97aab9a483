// When a snooze ends, from what people type (issue 29 §3, src/domain/snooze-time.ts):
// relative times, tomorrow and next Monday at 9:00 and a date and time in the
// person's zone, a time with an offset as written, and words that are not a time.
import { describe, expect, it } from "vitest";
import { snoozeEnd } from "../../src/domain/snooze-time.ts";

// A Friday, 22:30 UTC: 17:30 in New York, Saturday 07:30 in Tokyo.
const now = new Date("2026-11-27T22:30:00Z");
const at = (typed: string, zone: string) => {
  const r = snoozeEnd(typed, now, zone);
  return r instanceof Date ? r.toISOString() : r;
};

describe("snoozeEnd", () => {
  it("relative times", () => {
    expect(at("1h", "UTC")).toBe("2026-11-27T23:30:00.000Z");
    expect(at("30m", "UTC")).toBe("2026-11-27T23:00:00.000Z");
    expect(at("2d", "UTC")).toBe("2026-11-29T22:30:00.000Z");
  });

  it("tomorrow and next Monday at 9:00 in the person's zone", () => {
    expect(at("tomorrow", "America/New_York")).toBe("2026-11-28T14:00:00.000Z");
    expect(at("tomorrow", "Asia/Tokyo")).toBe("2026-11-29T00:00:00.000Z");
    expect(at("monday", "America/New_York")).toBe("2026-11-30T14:00:00.000Z");
    expect(at("monday", "Europe/Lisbon")).toBe("2026-11-30T09:00:00.000Z");
  });

  it("a date and time in the zone; with an offset, as written; a time today or tomorrow", () => {
    expect(at("2026-12-01 14:30", "America/New_York")).toBe("2026-12-01T19:30:00.000Z");
    expect(at("2026-12-01T10:00Z", "America/New_York")).toBe("2026-12-01T10:00:00.000Z");
    expect(at("18:00", "America/New_York")).toBe("2026-11-27T23:00:00.000Z");
    expect(at("17:00", "America/New_York")).toBe("2026-11-28T22:00:00.000Z");
  });

  it("until the customer writes; not a time", () => {
    expect(at("reply", "UTC")).toBe("reply");
    for (const typed of ["someday", "25:00", "2026-13-01", "0h", ""])
      expect(at(typed, "UTC")).toBeUndefined();
  });
});
