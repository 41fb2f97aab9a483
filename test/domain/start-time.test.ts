// Start times as people type them (issue 37 §3): a date or a time of day that
// does not exist is refused in words, never rolled over to the next day or
// month; a start more than a year away is refused; a leap day that exists
// still reads.
import { describe, expect, it } from "vitest";
import { parseStartAt, typedStartAt } from "../../src/domain/start-time.ts";

const now = new Date("2026-11-27T20:30:00Z"); // 21:30 in Paris

const problemOf = (text: string, tz: string | null = "Europe/Paris") => {
  const r = parseStartAt(text, now, tz ?? undefined);
  return "problem" in r ? r.problem : `read as ${r.at.toISOString()}`;
};

describe("a start time that does not exist", () => {
  it("30 February is refused, with its offset or in the workspace's zone, never read as 2 March", () => {
    expect(problemOf("2027-02-30T09:00:00Z", null)).toBe(
      "2027-02-30T09:00:00Z is not a date that exists: February 2027 has 28 days",
    );
    expect(problemOf("2027-02-30T09:00:00+01:00")).toMatch(
      /not a date that exists: February 2027 has 28 days/,
    );
    expect(problemOf("2027-02-30 09:00")).toBe(
      "2027-02-30 09:00 is not a date that exists: February 2027 has 28 days",
    );
    expect(problemOf("2027-04-31T09:00:00Z")).toMatch(/April 2027 has 30 days/);
    expect(problemOf("2027-13-01T09:00:00Z")).toMatch(/not a date that exists: a month is 01 to 12/);
    expect(problemOf("2027-02-00 09:00")).toMatch(/not a date that exists/);
  });

  it("24:00, 25:00 and 09:60 are not times of day, alone or in a date, never the next day", () => {
    for (const t of ["24:00", "25:00", "09:60"])
      expect(problemOf(t)).toBe(`${t} is not a time of day that exists: a day runs from 00:00 to 23:59`);
    expect(problemOf("2027-02-28T24:00:00Z")).toMatch(/not a time of day that exists/);
    expect(problemOf("2027-02-28 24:00")).toMatch(/not a time of day that exists/);
    expect(problemOf("2027-02-28T09:60:00+01:00")).toMatch(/not a time of day that exists/);
    expect(problemOf("2027-02-28T09:00:60Z")).toMatch(/not a time of day that exists/);
  });

  it("a leap day that exists is read: 2028-02-29", () => {
    const leapNow = new Date("2027-06-01T00:00:00Z");
    expect(parseStartAt("2028-02-29T09:00:00Z", leapNow, undefined)).toEqual({
      at: new Date("2028-02-29T09:00:00Z"),
    });
    expect(parseStartAt("2028-02-29 09:00", leapNow, "Europe/Paris")).toEqual({
      at: new Date("2028-02-29T08:00:00Z"),
    });
    expect(parseStartAt("2027-02-29 09:00", now, "Europe/Paris")).toEqual({
      problem: "2027-02-29 09:00 is not a date that exists: February 2027 has 28 days",
    });
  });

  it("23:59 and 00:00 still read as the next such time", () => {
    expect(parseStartAt("23:59", now, "Europe/Paris")).toEqual({ at: new Date("2026-11-27T22:59:00Z") });
    expect(parseStartAt("00:00", now, "Europe/Paris")).toEqual({ at: new Date("2026-11-27T23:00:00Z") });
  });
});

describe("a start time more than a year away", () => {
  it('is refused in words: "9999-12-31 is more than a year away", never shown as 10000-01-01', () => {
    const p = problemOf("9999-12-31T23:59:59Z");
    expect(p).toMatch(/^9999-12-31 is more than a year away: choose a time before 2027-11-27 21:30$/);
    expect(p).not.toContain("10000");
    expect(problemOf("2027-11-28 09:00")).toMatch(/^2027-11-28 is more than a year away/);
    expect(problemOf("2028-01-01T00:00:00Z", null)).toMatch(/more than a year away: .* UTC$/);
  });

  it("a year ahead to the second is still read", () => {
    expect(parseStartAt("2027-11-27T20:30:00Z", now, undefined)).toEqual({
      at: new Date("2027-11-27T20:30:00Z"),
    });
    expect(problemOf("2027-11-27T20:30:01Z")).toMatch(/more than a year away/);
  });
});

describe("a moment as at= reads it back", () => {
  it("ISO 8601 to the second, with the zone's offset, else Z; parsed again, the same moment", () => {
    const at = new Date("2026-12-01T02:00:00.700Z");
    expect(typedStartAt(at, "Europe/Paris")).toBe("2026-12-01T03:00:00+01:00");
    expect(typedStartAt(at, "UTC")).toBe("2026-12-01T02:00:00Z");
    expect(typedStartAt(at, undefined)).toBe("2026-12-01T02:00:00Z");
    expect(parseStartAt(typedStartAt(at, "America/New_York"), now, "America/New_York")).toEqual({
      at: new Date("2026-12-01T02:00:00Z"),
    });
  });
});
