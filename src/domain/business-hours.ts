// A workspace's business hours (issue 29 §2: `settings set hours="mon-fri
// 09:00-18:00"`) and the inbox's reply targets counted in them: parsed from
// people's words (refusals in words), written back the same way, and the
// arithmetic of a target (the time a target of N minutes falls due, the time
// counted between two instants), in the workspace's zone. Without hours, time
// is counted around the clock.
import { TZDate } from "@date-fns/tz";

/** Opening hours per weekday (0 = Sunday … 6 = Saturday), minutes from midnight; a day absent is closed. */
export interface BusinessHours {
  days: Partial<Record<number, { from: number; to: number }>>;
}

/** Hours and the zone they are in: what a target's clock counts in. Undefined: around the clock. */
export interface WorkClock {
  hours: BusinessHours;
  tz: string;
}

export type HoursParse = { ok: true; hours: BusinessHours; text: string } | { ok: false; message: string };

/** A day's names as people type them (short and long) → its number, Sunday 0 (report schedules read them too). */
export const DAY_NUMBERS: Record<string, number> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};
const DAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
const EXAMPLE = "for example mon-fri 09:00-18:00, or mon-fri 09:00-18:00; sat 10:00-14:00";

const pad = (n: number) => String(n).padStart(2, "0");
const hhmm = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

function parseDayList(word: string): number[] | string {
  const out: number[] = [];
  for (const part of word.toLowerCase().split(",").filter(Boolean)) {
    const range = part.split("-");
    if (range.length > 2) return `\`${part}\` is not a day or a range of days like mon-fri`;
    const [a, b] = range.map((d) => DAY_NUMBERS[d.trim()]);
    const bad = range.find((d) => DAY_NUMBERS[d.trim()] === undefined);
    if (bad !== undefined || a === undefined)
      return `\`${bad ?? part}\` is not a day: use mon, tue, wed, thu, fri, sat, sun, a range like mon-fri or a list like mon,wed,fri`;
    if (b === undefined) {
      out.push(a);
      continue;
    }
    for (let d = a; ; d = (d + 1) % 7) {
      out.push(d);
      if (d === b) break;
    }
  }
  return out.length ? out : "no day is given";
}

function parseClock(text: string, end: boolean): number | undefined {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min > 59 || h > 24 || (h === 24 && (min > 0 || !end))) return undefined;
  return h * 60 + min;
}

/**
 * Parses business hours as people type them: `mon-fri 09:00-18:00`, several
 * spans separated by `;` (`mon-fri 09:00-18:00; sat 10:00-14:00`). Every
 * refusal says what is wrong in words; `text` is the canonical form.
 */
export function parseBusinessHours(input: string): HoursParse {
  const groups = input
    .trim()
    .split(";")
    .map((g) => g.trim())
    .filter(Boolean);
  if (!groups.length) return { ok: false, message: `Business hours need days and hours, ${EXAMPLE}.` };
  const days: BusinessHours["days"] = {};
  for (const group of groups) {
    const m = /^(\S+)\s+(\S+?)\s*-\s*(\S+)$/.exec(group.replace(/\s*-\s*(?=\d)/g, "-"));
    if (!m)
      return {
        ok: false,
        message: `\`${group}\` is not days and hours: write the days, a space, then the hours, ${EXAMPLE}.`,
      };
    const list = parseDayList(m[1] as string);
    if (typeof list === "string") return { ok: false, message: `In \`${group}\`, ${list}.` };
    const from = parseClock(m[2] as string, false);
    const to = parseClock(m[3] as string, true);
    if (from === undefined || to === undefined)
      return {
        ok: false,
        message: `In \`${group}\`, \`${m[2]}-${m[3]}\` is not a span of hours: write it on a 24-hour clock, like 09:00-18:00.`,
      };
    if (to <= from)
      return {
        ok: false,
        message: `In \`${group}\`, the hours end before they start: a day's hours must end later the same day (hours over midnight are not supported).`,
      };
    for (const d of list) {
      if (days[d]) return { ok: false, message: `${DAY_NAMES[d]} is given twice: give each day once.` };
      days[d] = { from, to };
    }
  }
  const hours = { days };
  return { ok: true, hours, text: formatBusinessHours(hours) };
}

/** The canonical words: days with the same hours grouped, ranges where consecutive (`mon-fri 09:00-18:00`). */
export function formatBusinessHours(h: BusinessHours): string {
  const spans = new Map<string, number[]>();
  for (const d of [1, 2, 3, 4, 5, 6, 0]) {
    const w = h.days[d];
    if (!w) continue;
    const key = `${hhmm(w.from)}-${hhmm(w.to)}`;
    spans.set(key, [...(spans.get(key) ?? []), d]);
  }
  const order = (d: number) => (d + 6) % 7; // Monday first
  const groups: string[] = [];
  for (const [key, list] of spans) {
    const parts: string[] = [];
    let run: number[] = [];
    const flush = () => {
      if (!run.length) return;
      const first = DAY_NAMES[run[0] as number];
      const last = DAY_NAMES[run.at(-1) as number];
      parts.push(run.length >= 3 ? `${first}-${last}` : run.map((d) => DAY_NAMES[d]).join(","));
      run = [];
    };
    for (const d of list) {
      if (run.length && order(d) !== order(run.at(-1) as number) + 1) flush();
      run.push(d);
    }
    flush();
    groups.push(`${parts.join(",")} ${key}`);
  }
  return groups.join("; ");
}

/** Business hours as stored (the canonical text) back to hours; undefined when unset or unreadable. */
export function hoursOf(text: string | undefined | null): BusinessHours | undefined {
  if (!text) return undefined;
  const p = parseBusinessHours(text);
  return p.ok ? p.hours : undefined;
}

/** The clock of business hours as set (their words) in a zone: both are needed, else undefined (around the clock). */
export function workClockOf(hoursText: string | undefined, tz: string | undefined): WorkClock | undefined {
  const hours = hoursOf(hoursText);
  return hours && tz ? { hours, tz } : undefined;
}

/** The opening hours of the local day `at` is in, as instants; undefined when closed that day. */
function dayWindow(at: Date, clock: WorkClock): { day: TZDate; open?: Date; close?: Date } {
  const local = new TZDate(at.getTime(), clock.tz);
  const day = new TZDate(local.getFullYear(), local.getMonth(), local.getDate(), 0, 0, 0, clock.tz);
  const w = clock.hours.days[day.getDay()];
  if (!w) return { day };
  const y = day.getFullYear();
  const m = day.getMonth();
  const d = day.getDate();
  const open = new TZDate(y, m, d, Math.floor(w.from / 60), w.from % 60, 0, clock.tz);
  const close = new TZDate(y, m, d, Math.floor(w.to / 60), w.to % 60, 0, clock.tz);
  return { day, open: new Date(open.getTime()), close: new Date(close.getTime()) };
}

const nextDay = (day: TZDate, tz: string) =>
  new Date(new TZDate(day.getFullYear(), day.getMonth(), day.getDate() + 1, 0, 0, 0, tz).getTime());

/** At most this many days are walked (a year and a week: hours with one open day a week still end). */
const MAX_DAYS = 372;

/** The instant `ms` of counted time after `start`: business hours when given, else around the clock. */
export function addWorkTime(start: Date, ms: number, clock: WorkClock | undefined): Date {
  if (!clock || !Object.keys(clock.hours.days).length) return new Date(start.getTime() + ms);
  let cursor = start;
  let left = ms;
  for (let i = 0; i < MAX_DAYS; i++) {
    const { day, open, close } = dayWindow(cursor, clock);
    if (open && close && cursor < close) {
      const from = Math.max(cursor.getTime(), open.getTime());
      const avail = close.getTime() - from;
      if (left <= avail) return new Date(from + left);
      left -= avail;
    }
    cursor = nextDay(day, clock.tz);
  }
  return new Date(start.getTime() + ms);
}

/**
 * The instant business hours last closed before `at`, when `at` is outside
 * them (the start of the closed period it is in); undefined inside them, or
 * when the hours have no day open.
 */
export function closedSince(at: Date, clock: WorkClock): Date | undefined {
  if (!Object.keys(clock.hours.days).length) return undefined;
  let cursor = at;
  for (let i = 0; i < MAX_DAYS; i++) {
    const { day, open, close } = dayWindow(cursor, clock);
    if (open && close) {
      if (i === 0 && at >= open && at < close) return undefined;
      if (close <= at) return close;
    }
    // The day before, at its last instant.
    cursor = new Date(day.getTime() - 1);
  }
  return undefined;
}

/** The counted time from `from` to `to` (ms): business hours when given, else the plain difference. */
export function workTimeBetween(from: Date, to: Date, clock: WorkClock | undefined): number {
  if (to <= from) return 0;
  if (!clock || !Object.keys(clock.hours.days).length) return to.getTime() - from.getTime();
  let cursor = from;
  let total = 0;
  for (let i = 0; i < MAX_DAYS && cursor < to; i++) {
    const { day, open, close } = dayWindow(cursor, clock);
    if (open && close && cursor < close) {
      const a = Math.max(cursor.getTime(), open.getTime());
      const b = Math.min(to.getTime(), close.getTime());
      if (b > a) total += b - a;
    }
    cursor = nextDay(day, clock.tz);
  }
  return total;
}

/**
 * A target as typed: `15m`, `1h`, `1h30m`, `2d`, `90s` (seconds, for tests and
 * demos); `off` or `none` clears it (null). Undefined when not a duration.
 */
export function parseTargetDuration(text: string): number | null | undefined {
  const t = text.trim().toLowerCase();
  if (/^(off|none|no)$/.test(t)) return null;
  const m = /^(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m(?:in)?)?\s*(?:(\d+)\s*s)?$/.exec(t);
  if (!m || !t || m.slice(1).every((g) => g === undefined)) return undefined;
  const [d, h, min, s] = m.slice(1).map((g) => Number(g ?? 0)) as [number, number, number, number];
  return ((d * 24 + h) * 60 + min) * 60 + s;
}

/** `15 min`, `1 h`, `1 h 30 min`, `2 days`: a target's length in words. */
export function durationWords(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  const mins = Math.round(seconds / 60);
  const d = Math.floor(mins / 1440);
  const h = Math.floor((mins % 1440) / 60);
  const m = mins % 60;
  const out: string[] = [];
  if (d) out.push(`${d} day${d === 1 ? "" : "s"}`);
  if (h) out.push(`${h} h`);
  if (m) out.push(`${m} min`);
  return out.join(" ");
}
