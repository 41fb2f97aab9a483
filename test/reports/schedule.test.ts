import { TZDate } from "@date-fns/tz";
import { format } from "date-fns/format";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  formatLocal,
  lastRunAtOrBefore,
  nextRuns,
  parseScheduleArgs,
  parseTime,
  type ScheduleSpec,
} from "../../src/reports/schedule.ts";

function ok(args: string, defaults = {}): ScheduleSpec {
  const r = parseScheduleArgs(args, defaults);
  if (!r.ok) throw new Error(`expected ${args} to parse: ${r.message}`);
  return r.spec;
}

function bad(args: string, defaults = {}): string {
  const r = parseScheduleArgs(args, defaults);
  if (r.ok) throw new Error(`expected ${args} to be refused, got ${r.spec.cron}`);
  return r.message;
}

describe("schedule arguments", () => {
  it("turns the documented cadences into cron", () => {
    expect(ok("42 every day at 09:00").cron).toBe("0 9 * * *");
    expect(ok("42 every weekday at 09:00").cron).toBe("0 9 * * 1-5");
    expect(ok("42 every mon at 09:00").cron).toBe("0 9 * * 1");
    expect(ok("42 every 6h").cron).toBe("0 */6 * * *");
    expect(ok("42 every 6 hours").cron).toBe("0 */6 * * *");
    expect(ok("42 every 6h at 09:30").cron).toBe("30 3,9,15,21 * * *");
    expect(ok("42 every mon,thu at 17:45").cron).toBe("45 17 * * 1,4");
    expect(ok("42 every sat-sun at 8am").cron).toBe("0 8 * * 0,6");
    expect(ok("42 every 24h at 07:15").cron).toBe("15 7 * * *");
  });

  it("reads the target, zone and channel, with defaults from the caller", () => {
    const s = ok("running weekday at 7:05pm tz=Europe/Paris <#C0123ABCD|ops>");
    expect(s.target).toEqual({ kind: "running" });
    expect(s.time).toEqual({ hour: 19, minute: 5 });
    expect(s.tz).toBe("Europe/Paris");
    expect(s.channel).toBe("C0123ABCD");
    expect(s.description).toBe("every weekday at 19:05 (Europe/Paris)");

    const d = ok("all", { tz: "America/New_York", channel: "C999" });
    expect(d.target).toEqual({ kind: "all" });
    expect(d.cron).toBe("0 9 * * *");
    expect(d.tz).toBe("America/New_York");
    expect(d.channel).toBe("C999");
    expect(ok("17 #Reports").channel).toBe("#reports");
    expect(ok("17").tz).toBe("UTC");
    expect(ok("17", { tz: "Not/AZone" }).tz).toBe("UTC");
    expect(ok("17 every day tz = Asia/Tokyo").tz).toBe("Asia/Tokyo");
  });

  it("refuses bad input with messages naming the part and the rule", () => {
    expect(bad("")).toMatch(/target: is required/);
    expect(bad("campaign-x")).toMatch(/`campaign-x` is not a campaign id/);
    expect(bad("list")).toMatch(
      /`list` is not a campaign id, `running`, `all` or `inbox` \(the report schedules are listed by `\/sb reports`\)/,
    );
    expect(bad("42 at 25:00")).toMatch(/at: `25:00` is not a time; write HH:MM/);
    expect(bad("42 at")).toMatch(/at: needs a time/);
    expect(bad("42 tz=Europe/Pariss")).toMatch(
      /tz: `Europe\/Pariss` is not an IANA time zone; did you mean tz=Europe\/Paris\?/,
    );
    expect(bad("42 tz=Nowhere")).toMatch(/tz: `Nowhere` is not an IANA time zone/);
    expect(bad("42 every fortnight")).toMatch(/every: `fortnight` is not a cadence/);
    expect(bad("42 every 5h")).toMatch(/5h does not divide the day evenly/);
    expect(bad("42 every day every mon")).toMatch(/every: is given twice/);
    // Issue 39 §2: a word it does not know, named as typed, not "arguments evry is not understood".
    expect(bad("42 please")).toMatch(/^`please` is not a word a schedule knows: say how often \(`every day`/);
    expect(bad("42 evry day")).not.toMatch(/arguments|not understood/);
    // Several problems are reported together.
    const many = bad("x at 99:99 tz=Mars/Base");
    expect(many.split("\n")).toHaveLength(3);
  });

  it("parses times strictly", () => {
    expect(parseTime("00:00")).toEqual({ hour: 0, minute: 0 });
    expect(parseTime("12am")).toEqual({ hour: 0, minute: 0 });
    expect(parseTime("12pm")).toEqual({ hour: 12, minute: 0 });
    expect(parseTime("9")).toBeUndefined();
    expect(parseTime("13pm")).toBeUndefined();
    expect(parseTime("9:5")).toBeUndefined();
  });
});

describe("runs in local time", () => {
  it("computes the next runs in the schedule's zone, across a DST change", () => {
    const spec = ok("42 every day at 09:00 tz=Europe/Paris");
    // 2026-03-29 is the spring-forward day in Europe: 09:00 Paris is 08:00Z before, 07:00Z after.
    const runs = nextRuns(spec.cron, spec.tz, new Date("2026-03-28T12:00:00Z"), 2);
    expect(runs.map((d) => d.toISOString())).toEqual([
      "2026-03-29T07:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
    ]);
    expect(formatLocal(runs[0] as Date, spec.tz)).toMatch(/^Sun 29 Mar 2026, 09:00 /);
  });

  it("finds the last run at or before a moment", () => {
    const cron = "0 9 * * 1-5";
    const friday = new Date("2026-03-06T09:00:00Z");
    expect(lastRunAtOrBefore(cron, "UTC", friday)?.toISOString()).toBe(friday.toISOString());
    // Sunday noon: the last weekday run was Friday 09:00.
    expect(lastRunAtOrBefore(cron, "UTC", new Date("2026-03-08T12:00:00Z"))?.toISOString()).toBe(
      friday.toISOString(),
    );
  });
});

describe("formatLocal", () => {
  it("writes a time as date-fns's `EEE d MMM yyyy, HH:mm zzz` does, in any zone", () => {
    const zones = [
      "UTC",
      "Europe/Paris",
      "America/New_York",
      "Asia/Kolkata",
      "Asia/Kathmandu",
      "America/St_Johns",
      "Pacific/Chatham",
      "Pacific/Kiritimati",
      "Pacific/Pago_Pago",
      "Australia/Lord_Howe",
    ];
    fc.assert(
      fc.property(
        fc.date({
          min: new Date("1990-01-01T00:00:00Z"),
          max: new Date("2100-12-31T23:59:59Z"),
          noInvalidDate: true,
        }),
        fc.constantFrom(...zones),
        (date, tz) => {
          expect(formatLocal(date, tz)).toBe(
            format(new TZDate(date.getTime(), tz), "EEE d MMM yyyy, HH:mm zzz"),
          );
        },
      ),
      { numRuns: 2000 },
    );
    expect(formatLocal(new Date("2026-03-04T08:00:00Z"), "Europe/Paris")).toBe("Wed 4 Mar 2026, 09:00 GMT+1");
    expect(formatLocal(new Date("2026-03-04T08:00:00Z"), "Asia/Kolkata")).toBe(
      "Wed 4 Mar 2026, 13:30 GMT+5:30",
    );
    expect(formatLocal(new Date("2026-07-04T08:00:00Z"), "America/New_York")).toBe(
      "Sat 4 Jul 2026, 04:00 GMT-4",
    );
    expect(formatLocal(new Date("2026-07-04T08:00:00Z"), "UTC")).toBe("Sat 4 Jul 2026, 08:00 GMT+0");
  });
});
