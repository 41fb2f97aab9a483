// Business hours (issue 29 §2): parsed from people's words, refused in words,
// written back canonically; a target's due time and the time counted between
// two instants, in the workspace's zone (a weekend, an evening, a DST change).
import { describe, expect, it } from "vitest";
import {
  addWorkTime,
  durationWords,
  formatBusinessHours,
  parseBusinessHours,
  parseTargetDuration,
  type WorkClock,
  workTimeBetween,
} from "../../src/domain/business-hours.ts";

const ok = (text: string) => {
  const p = parseBusinessHours(text);
  if (!p.ok) throw new Error(p.message);
  return p;
};
const refusal = (text: string) => {
  const p = parseBusinessHours(text);
  if (p.ok) throw new Error(`accepted: ${text}`);
  return p.message;
};

describe("business hours", () => {
  it("parses days and hours, several spans, and writes them back canonically", () => {
    const p = ok("mon-fri 09:00-18:00");
    expect(p.text).toBe("mon-fri 09:00-18:00");
    expect(p.hours.days[1]).toEqual({ from: 540, to: 1080 });
    expect(p.hours.days[0]).toBeUndefined();
    expect(ok("Mon-Fri 9:00 - 18:00; sat 10:00-14:00").text).toBe("mon-fri 09:00-18:00; sat 10:00-14:00");
    expect(ok("mon,wed,fri 08:30-12:00").text).toBe("mon,wed,fri 08:30-12:00");
    expect(ok("fri-mon 00:00-24:00").text).toBe("mon,fri-sun 00:00-24:00");
    expect(formatBusinessHours(ok("tue 09:00-17:00; mon 09:00-17:00").hours)).toBe("mon,tue 09:00-17:00");
  });

  it("refuses in words what is not hours, changing nothing", () => {
    expect(refusal("")).toMatch(/need days and hours, for example mon-fri 09:00-18:00/);
    expect(refusal("weekdays 09:00-18:00")).toMatch(/`weekdays` is not a day: use mon, tue/);
    expect(refusal("mon-fri 9-18")).toMatch(/`9-18` is not a span of hours: write it on a 24-hour clock/);
    expect(refusal("mon-fri 18:00-09:00")).toMatch(/end before they start.*over midnight are not supported/);
    expect(refusal("mon-fri 09:00-18:00; fri 10:00-12:00")).toMatch(/fri is given twice/);
    expect(refusal("mon-fri 25:00-26:00")).toMatch(/not a span of hours/);
    expect(refusal("09:00-18:00")).toMatch(/is not days and hours/);
  });

  it("counts a target only in business hours, in the zone: over an evening and a weekend", () => {
    const clock: WorkClock = { hours: ok("mon-fri 09:00-18:00").hours, tz: "Europe/Paris" };
    // Friday 4 Dec 2026 17:59:30 in Paris (16:59:30 UTC): 30 s left today, 30 s on Monday from 09:00.
    const start = new Date("2026-12-04T16:59:30Z");
    expect(addWorkTime(start, 60_000, clock).toISOString()).toBe("2026-12-07T08:00:30.000Z");
    expect(workTimeBetween(start, new Date("2026-12-07T08:00:30Z"), clock)).toBe(60_000);
    // Before opening: counted from 09:00.
    expect(addWorkTime(new Date("2026-12-08T05:00:00Z"), 15 * 60_000, clock).toISOString()).toBe(
      "2026-12-08T08:15:00.000Z",
    );
    // Without hours: around the clock.
    expect(addWorkTime(start, 60_000, undefined).toISOString()).toBe("2026-12-04T17:00:30.000Z");
    expect(workTimeBetween(start, new Date("2026-12-07T08:00:30Z"), undefined)).toBe(
      new Date("2026-12-07T08:00:30Z").getTime() - start.getTime(),
    );
  });

  it("follows the zone's clock over a daylight saving change", () => {
    const clock: WorkClock = { hours: ok("mon-sun 09:00-10:00").hours, tz: "Europe/Paris" };
    // Sat 28 Mar 2026 09:30 Paris (08:30 UTC, winter); 1 h of counted time ends Sun 29 Mar 09:30 Paris (07:30 UTC, summer).
    expect(addWorkTime(new Date("2026-03-28T08:30:00Z"), 3_600_000, clock).toISOString()).toBe(
      "2026-03-29T07:30:00.000Z",
    );
  });

  it("reads targets as typed and says them in words", () => {
    expect(parseTargetDuration("15m")).toBe(900);
    expect(parseTargetDuration("1h")).toBe(3600);
    expect(parseTargetDuration("1h30m")).toBe(5400);
    expect(parseTargetDuration("2d")).toBe(172_800);
    expect(parseTargetDuration("off")).toBeNull();
    expect(parseTargetDuration("soon")).toBeUndefined();
    expect(parseTargetDuration("")).toBeUndefined();
    expect(durationWords(900)).toBe("15 min");
    expect(durationWords(5400)).toBe("1 h 30 min");
    expect(durationWords(86_400)).toBe("1 day");
  });
});
