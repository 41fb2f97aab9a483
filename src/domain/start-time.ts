// When a campaign starts (issue 28 §4): quiet hours in the workspace's time
// zone ("21:00-08:00"), the next time outside them, a start time as people
// type it (`at=09:00`, `at="2026-12-01 09:00"`, an ISO 8601 time with its
// offset) and a time as a Slack date token, which each reader sees in their
// own zone. A date that does not exist (`2027-02-30`, `24:00`) is refused,
// never rolled over; so is a start more than a year away. A leaf: the Intl
// API and date-fns (@date-fns/tz for a wall time in a zone), nothing of the project.
import { TZDate } from "@date-fns/tz";
// Each function from its own module: date-fns's index loads ~300 of them (docs/memory.md, "The shell").
import { addYears } from "date-fns/addYears";
import { format } from "date-fns/format";
import { formatISO } from "date-fns/formatISO";
import { getDaysInMonth } from "date-fns/getDaysInMonth";
import { isExists } from "date-fns/isExists";

/** Quiet hours: minutes of the local day, `end` excluded; start > end wraps past midnight. */
export interface QuietHours {
  start: number;
  end: number;
}

/** The workspace's time zone and quiet hours (quiet hours apply only with a zone). */
export interface StartRules {
  tz?: string;
  quiet?: QuietHours;
}

/** The rules from the settings' values (a bad or zoneless value: no quiet hours). */
export function startRulesOf(tz: string | undefined, quiet: string | undefined): StartRules {
  const q = quiet ? parseQuietHours(quiet) : undefined;
  return { ...(tz ? { tz } : {}), ...(tz && q && !("problem" in q) ? { quiet: q } : {}) };
}

const HH_MM = /^([01]?\d|2[0-3]):([0-5]\d)$/;
const pad = (n: number) => String(n).padStart(2, "0");

/** `21:00-08:00` → minutes, or a sentence saying what is wrong. */
export function parseQuietHours(text: string): QuietHours | { problem: string } {
  const m = /^\s*(\d{1,2}:\d{2})\s*(?:-|–|to)\s*(\d{1,2}:\d{2})\s*$/.exec(text);
  const a = m && HH_MM.exec(m[1]!);
  const b = m && HH_MM.exec(m[2]!);
  if (!a || !b) return { problem: "must be two times of day, from and until, like 21:00-08:00" };
  const start = Number(a[1]) * 60 + Number(a[2]);
  const end = Number(b[1]) * 60 + Number(b[2]);
  if (start === end) return { problem: "must start and end at different times, like 21:00-08:00" };
  return { start, end };
}

export const quietHoursText = (q: QuietHours): string => `${clock(q.start)}-${clock(q.end)}`;

/** `08:00` from minutes of the day. */
export const clock = (minutes: number): string => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

/** A moment's wall time in `tz`. */
export function localParts(at: Date, tz: string) {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: tz,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(at);
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour") % 24,
    minute: get("minute"),
    second: get("second"),
  };
}

/** The moment a wall time in `tz` stands for (a time skipped by a DST change moves forward). */
export function zonedTime(
  w: { year: number; month: number; day: number; hour: number; minute: number; second?: number },
  tz: string,
): Date {
  return new Date(new TZDate(w.year, w.month - 1, w.day, w.hour, w.minute, w.second ?? 0, tz).getTime());
}

const minuteOfDay = (at: Date, tz: string) => {
  const p = localParts(at, tz);
  return p.hour * 60 + p.minute;
};

/** Whether `at` falls in the quiet hours (in `tz`). */
export function inQuietHours(at: Date, q: QuietHours, tz: string): boolean {
  const m = minuteOfDay(at, tz);
  return q.start < q.end ? m >= q.start && m < q.end : m >= q.start || m < q.end;
}

/** The next moment at `minutes` of a local day, strictly after `after`. */
function nextAtMinute(after: Date, minutes: number, tz: string): Date {
  const p = localParts(after, tz);
  for (let day = 0; day < 3; day++) {
    const d = new Date(Date.UTC(p.year, p.month - 1, p.day + day));
    const t = zonedTime(
      {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: Math.floor(minutes / 60),
        minute: minutes % 60,
      },
      tz,
    );
    if (t > after) return t;
  }
  return new Date(after.getTime() + 86_400_000);
}

/** `at` itself when outside the quiet hours, else the moment they end. */
export function nextOutsideQuiet(at: Date, q: QuietHours | undefined, tz: string | undefined): Date {
  if (!q || !tz || !inQuietHours(at, q, tz)) return at;
  return nextAtMinute(new Date(at.getTime() - 60_000), q.end, tz);
}

export type StartAt = { at: Date } | { problem: string };

/** Why a date as typed does not exist (`2027-02-30`: February 2027 has 28 days), or undefined when it does. */
function missingDate(raw: string, y: number, month: number, d: number): string | undefined {
  if (isExists(y, month - 1, d)) return undefined;
  if (month < 1 || month > 12) return `${raw} is not a date that exists: a month is 01 to 12`;
  const midMonth = new Date(Date.UTC(y, month - 1, 15));
  return `${raw} is not a date that exists: ${format(midMonth, "LLLL yyyy")} has ${getDaysInMonth(midMonth)} days`;
}

/** Why a time of day as typed does not exist (`24:00`, `09:60`), or undefined when it does. */
const missingTime = (raw: string, h: number, mi: number, s = 0): string | undefined =>
  h > 23 || mi > 59 || s > 59
    ? `${raw} is not a time of day that exists: a day runs from 00:00 to 23:59`
    : undefined;

/** How far ahead a start may be set. */
export const FARTHEST_START_YEARS = 1;

/**
 * A start time as typed: `HH:MM` (the next such time), `YYYY-MM-DD HH:MM[:SS]`
 * in the workspace's zone, or ISO 8601 with its offset (`Z`, `+01:00`), to the
 * second. Refused in words: a date or time of day that does not exist (never
 * rolled over to the next day or month), a time not in the future, and one
 * more than a year away.
 */
export function parseStartAt(text: string, now: Date, tz: string | undefined): StartAt {
  const raw = text.trim();
  const noZone =
    "needs the workspace's time zone, which is not set: set it in the settings, or give the time with its offset, like 2026-12-01T09:00:00+01:00";
  let at: Date;
  const hm = /^(\d{1,2}):(\d{2})$/.exec(raw);
  const local = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(raw);
  const iso = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i.exec(
    raw,
  );
  const wall = local ?? iso;
  if (hm) {
    const [h, mi] = [Number(hm[1]), Number(hm[2])];
    const missing = missingTime(raw, h, mi);
    if (missing) return { problem: missing };
    if (!tz) return { problem: `${raw} ${noZone}` };
    at = nextAtMinute(now, h * 60 + mi, tz);
  } else if (wall) {
    const [y, mo, d, h, mi, s] = wall.slice(1, 7).map((v) => Number(v ?? 0)) as number[];
    const missing = missingDate(raw, y!, mo!, d!) ?? missingTime(raw, h!, mi!, s!);
    if (missing) return { problem: missing };
    if (local) {
      if (!tz) return { problem: `${raw} ${noZone}` };
      at = zonedTime({ year: y!, month: mo!, day: d!, hour: h!, minute: mi!, second: s! }, tz);
    } else {
      const t = Date.parse(raw);
      if (Number.isNaN(t)) return { problem: `${raw} is not a date and time that exists` };
      at = new Date(t);
    }
  } else {
    return {
      problem: `${raw} is not a time: give 09:00 (the next 09:00), "2026-12-01 09:00" (in the workspace's time zone) or an ISO 8601 time with its offset, 2026-12-01T09:00:00+01:00`,
    };
  }
  if (at.getTime() <= now.getTime()) return { problem: `${raw} is in the past` };
  const farthest = addYears(now, FARTHEST_START_YEARS);
  if (at.getTime() > farthest.getTime())
    return {
      problem: `${raw.slice(0, 10)} is more than a year away: choose a time before ${localText(farthest, tz)}`,
    };
  return { at };
}

/** A moment as `at=` reads it back exactly: ISO 8601 to the second, with the offset of `tz` (else `Z`). */
export function typedStartAt(at: Date, tz: string | undefined): string {
  const whole = new Date(Math.floor(at.getTime() / 1000) * 1000);
  if (!tz) return whole.toISOString().replace(".000Z", "Z");
  return formatISO(new TZDate(whole.getTime(), tz));
}

/** `2026-12-01 08:00` in `tz` (or UTC, said): the words a date token falls back to. */
export function localText(at: Date, tz: string | undefined): string {
  const p = localParts(at, tz ?? "UTC");
  return `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hour)}:${pad(p.minute)}${tz ? "" : " UTC"}`;
}

/** A Slack date token: each reader sees the time in their own zone; `fallback` where Slack cannot. */
export function dateToken(at: Date, tz?: string): string {
  return `<!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} {time}|${localText(at, tz)}>`;
}
