// Arguments of `/sb report <campaign-id | running | all> [every …] [at HH:MM]
// [tz=Zone] [#channel]` → a schedule and the cron expression pg-boss runs it
// by. Pure: no Slack, no store. The caller supplies the defaults it knows
// (the user's Slack time zone, the current channel).
import { TZDate } from "@date-fns/tz";
import { CronExpressionParser } from "cron-parser";
import { closest, distance } from "fastest-levenshtein";
import type { FieldProblem } from "../api/schemas.ts";
import { DAY_NUMBERS } from "../domain/business-hours.ts";
import type { NewSchedule } from "../domain/reports.ts";

/** What a report is of: campaigns, or (issue 29 §5) the desk of the inbox in the schedule's channel. */
export type ReportTarget =
  | { kind: "campaign"; id: number }
  | { kind: "running" }
  | { kind: "all" }
  | { kind: "inbox" };

export type Cadence =
  | { kind: "daily" }
  | { kind: "weekdays" }
  /** Days of the week, 0 = Sunday … 6 = Saturday, sorted. */
  | { kind: "days"; days: number[] }
  /** Every N hours, N dividing 24 so runs are evenly spaced across midnight. */
  | { kind: "hours"; every: number };

export interface ScheduleSpec {
  target: ReportTarget;
  cadence: Cadence;
  /** Local time of the run; for `hours` the first run of the day (default minute 0 of midnight). */
  time: { hour: number; minute: number };
  /** IANA zone the cron is evaluated in. */
  tz: string;
  /** Slack channel reference as typed (`C0123`, `#name`), or the caller's default; undefined when neither. */
  channel?: string;
  /** Five-field cron, evaluated in `tz`. */
  cron: string;
  /** Plain words, for answers and listings: "every weekday at 09:00 (Europe/Paris)". */
  description: string;
}

export interface ScheduleDefaults {
  /** The requesting user's Slack time zone (users.info `tz`); UTC when unknown. */
  tz?: string;
  /** The channel the command was typed in. */
  channel?: string;
}

export type ParseResult =
  | { ok: true; spec: ScheduleSpec }
  | { ok: false; problems: FieldProblem[]; message: string };

export const DEFAULT_TIME = { hour: 9, minute: 0 } as const;

const DAY_ALIASES = DAY_NUMBERS;
const DAY_LABELS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const HOUR_STEPS = [1, 2, 3, 4, 6, 8, 12, 24];

const pad = (n: number) => String(n).padStart(2, "0");

/** Parses a target word: a campaign id, `running` or `all`. */
export function parseTarget(word: string | undefined): ReportTarget | FieldProblem {
  const w = (word ?? "").trim().toLowerCase();
  if (!w) return { field: "target", rule: "is required: a campaign id, `running`, `all` or `inbox`" };
  if (w === "running") return { kind: "running" };
  if (w === "inbox") return { kind: "inbox" };
  if (w === "all") return { kind: "all" };
  if (/^\d+$/.test(w) && Number(w) > 0 && Number.isSafeInteger(Number(w)))
    return { kind: "campaign", id: Number(w) };
  // `report list` / `report schedules`: the list is `/sb reports`.
  const list = /^(list|ls|show|schedules?)$/.test(w)
    ? " (the report schedules are listed by `/sb reports`)"
    : "";
  return {
    field: "target",
    rule: `\`${word}\` is not a campaign id, \`running\`, \`all\` or \`inbox\`${list}`,
  };
}

export const targetText = (t: ReportTarget): string => (t.kind === "campaign" ? String(t.id) : t.kind);

/** The stored form of a target (`"42"`, `"running"`, `"all"`) back to a target. */
export function targetFromText(text: string): ReportTarget {
  const t = parseTarget(text);
  if ("field" in t) throw new Error(`stored report target ${JSON.stringify(text)} is not valid`);
  return t;
}

/** Whether an IANA zone is known to this runtime (and so to cron-parser, which uses Intl too). */
export function isValidTimeZone(tz: string): boolean {
  if (!tz || !/^[A-Za-z0-9_+\-/]+$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function zoneProblem(tz: string): FieldProblem {
  const zones = Intl.supportedValuesOf("timeZone");
  const byLower = zones.find((z) => z.toLowerCase() === tz.toLowerCase());
  const guess = byLower ?? closest(tz, zones);
  const near = byLower || distance(tz.toLowerCase(), guess.toLowerCase()) <= Math.max(3, tz.length / 3);
  return {
    field: "tz",
    rule: `\`${tz}\` is not an IANA time zone${near ? `; did you mean tz=${guess}?` : ", for example tz=Europe/Paris or tz=America/New_York"}`,
  };
}

/** Parses `HH:MM`, `H:MM`, `9am`, `9:30pm`. Undefined when it is not a time. */
export function parseTime(text: string): { hour: number; minute: number } | undefined {
  const m = /^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$/i.exec(text.trim());
  if (!m) return undefined;
  let hour = Number(m[1]);
  const minute = m[2] === undefined ? 0 : Number(m[2]);
  const ampm = m[3]?.toLowerCase();
  if (m[2] === undefined && !ampm) return undefined; // a bare "9" is too ambiguous
  if (ampm) {
    if (hour < 1 || hour > 12) return undefined;
    hour = (hour % 12) + (ampm === "pm" ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return undefined;
  return { hour, minute };
}

function parseDays(word: string): number[] | undefined {
  const days = new Set<number>();
  for (const part of word.split(",")) {
    const range = part.split("-");
    if (range.length === 2) {
      const a = DAY_ALIASES[range[0] ?? ""];
      const b = DAY_ALIASES[range[1] ?? ""];
      if (a === undefined || b === undefined) return undefined;
      for (let d = a; ; d = (d + 1) % 7) {
        days.add(d);
        if (d === b) break;
      }
      continue;
    }
    const d = DAY_ALIASES[part];
    if (d === undefined) return undefined;
    days.add(d);
  }
  return [...days].sort((x, y) => x - y);
}

function parseCadence(word: string): Cadence | undefined {
  const w = word.toLowerCase();
  if (w === "day" || w === "daily" || w === "days") return { kind: "daily" };
  if (w === "weekday" || w === "weekdays") return { kind: "weekdays" };
  const hours = /^(\d{1,2})\s*h(?:ours?)?$/.exec(w);
  if (hours) return { kind: "hours", every: Number(hours[1]) };
  const days = parseDays(w);
  if (days?.length === 7) return { kind: "daily" };
  if (days && days.join() === "1,2,3,4,5") return { kind: "weekdays" };
  return days ? { kind: "days", days } : undefined;
}

/** The five-field cron of a cadence at a local time. */
export function cronOf(cadence: Cadence, time: { hour: number; minute: number }, timeGiven = true): string {
  const { hour, minute } = time;
  switch (cadence.kind) {
    case "daily":
      return `${minute} ${hour} * * *`;
    case "weekdays":
      return `${minute} ${hour} * * 1-5`;
    case "days":
      return `${minute} ${hour} * * ${cadence.days.join(",")}`;
    case "hours": {
      const n = cadence.every;
      if (n === 24) return `${minute} ${hour} * * *`;
      if (!timeGiven) return `0 */${n} * * *`;
      const hours: number[] = [];
      for (let h = hour % n; h < 24; h += n) hours.push(h);
      return `${minute} ${hours.join(",")} * * *`;
    }
  }
}

export function describeCadence(
  cadence: Cadence,
  time: { hour: number; minute: number },
  tz: string,
): string {
  const at = `${pad(time.hour)}:${pad(time.minute)}`;
  switch (cadence.kind) {
    case "daily":
      return `every day at ${at} (${tz})`;
    case "weekdays":
      return `every weekday at ${at} (${tz})`;
    case "days":
      return `every ${cadence.days.map((d) => DAY_LABELS[d]).join(", ")} at ${at} (${tz})`;
    case "hours":
      return cadence.every === 24
        ? `every day at ${at} (${tz})`
        : `every ${cadence.every} hours from ${at} (${tz})`;
  }
}

function tokenize(input: string | string[]): string[] {
  const text = Array.isArray(input) ? input.join(" ") : input;
  // `tz = Europe/Paris` and `at 9:00` are normalized to single tokens below; keep `<#C1|name>` whole.
  return text
    .replace(/\btz\s*=\s*/gi, "tz=")
    .split(/\s+/)
    .filter(Boolean);
}

/** `<#C0123|general>`, `<#C0123>`, `#general`, or a bare id `C0123`: the reference kept for Slack to resolve. */
function parseChannel(word: string): string | undefined {
  const mention = /^<#([CGD][A-Z0-9]+)(?:\|[^>]*)?>$/.exec(word);
  if (mention) return mention[1];
  if (/^#[a-z0-9][a-z0-9_\-.]{0,79}$/i.test(word)) return word.toLowerCase();
  if (/^[CG][A-Z0-9]{8,}$/.test(word)) return word;
  return undefined;
}

/**
 * Parses the arguments that follow `/sb report`. Every problem is reported at
 * once, each naming the part and the rule.
 */
export function parseScheduleArgs(input: string | string[], defaults: ScheduleDefaults = {}): ParseResult {
  const tokens = tokenize(input);
  const problems: FieldProblem[] = [];
  const target = parseTarget(tokens.shift());
  if ("field" in target) problems.push(target);

  let cadence: Cadence | undefined;
  let time: { hour: number; minute: number } | undefined;
  let tz: string | undefined;
  let channel: string | undefined;
  const seen = new Set<string>();
  const once = (what: string) => {
    if (seen.has(what)) problems.push({ field: what, rule: "is given twice" });
    seen.add(what);
  };

  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i] ?? "";
    const low = tok.toLowerCase();
    if (low === "every" || low === "each") {
      const next = tokens[i + 1];
      if (!next) {
        problems.push({
          field: "every",
          rule: "needs a cadence: day, weekday, mon…sun or a number of hours like 6h",
        });
        continue;
      }
      i++;
      // "every 6 hours" → join the number and the unit.
      let word = next;
      if (/^\d+$/.test(next) && /^h(ours?)?$/i.test(tokens[i + 1] ?? "")) {
        word = `${next}h`;
        i++;
      }
      once("every");
      const c = parseCadence(word);
      if (!c)
        problems.push({
          field: "every",
          rule: `\`${next}\` is not a cadence; use day, weekday, mon…sun or 6h`,
        });
      else cadence = c;
      continue;
    }
    if (low === "at") {
      const next = tokens[i + 1];
      i++;
      once("at");
      const t = next ? parseTime(next) : undefined;
      if (!t)
        problems.push({
          field: "at",
          rule: `${next ? `\`${next}\` is not a time` : "needs a time"}; write HH:MM on a 24-hour clock, for example at 09:00`,
        });
      else time = t;
      continue;
    }
    if (low.startsWith("tz=")) {
      once("tz");
      const zone = tok.slice(3);
      if (!isValidTimeZone(zone)) problems.push(zoneProblem(zone));
      else tz = zone;
      continue;
    }
    const ch = parseChannel(tok);
    if (ch) {
      once("channel");
      channel = ch;
      continue;
    }
    // A cadence without "every" (`/sb report 42 weekday at 9:00`).
    const c = parseCadence(tok);
    if (c && !seen.has("every")) {
      once("every");
      cadence = c;
      continue;
    }
    // A word it does not know is named as typed, with no field of its own (not "arguments").
    problems.push(
      tok.startsWith("#") || tok.startsWith("<#")
        ? { field: "channel", rule: `\`${tok}\` is not a channel Switchboard can find` }
        : {
            field: "",
            rule: `\`${tok}\` is not a word a schedule knows: say how often (\`every day\`, \`every monday\`, \`every 2h\`), the time (\`at 09:00\`), a time zone (\`tz=Europe/Madrid\`) or the channel (#channel)`,
          },
    );
  }

  if (cadence?.kind === "hours" && !HOUR_STEPS.includes(cadence.every)) {
    problems.push({
      field: "every",
      rule: `${cadence.every}h does not divide the day evenly; use 1h, 2h, 3h, 4h, 6h, 8h, 12h or 24h`,
    });
  }
  if (!tz) {
    const fallback = defaults.tz && isValidTimeZone(defaults.tz) ? defaults.tz : "UTC";
    if (!seen.has("tz")) tz = fallback;
  }

  if (problems.length > 0 || "field" in target || !tz) {
    const message = problems.map((p) => (p.field ? `${p.field}: ${p.rule}` : p.rule)).join("\n");
    return { ok: false, problems, message };
  }
  const c = cadence ?? { kind: "daily" as const };
  const t = time ?? (c.kind === "hours" ? { hour: 0, minute: 0 } : { ...DEFAULT_TIME });
  const cron = cronOf(c, t, time !== undefined);
  return {
    ok: true,
    spec: {
      target,
      cadence: c,
      time: t,
      tz,
      channel: channel ?? defaults.channel,
      cron,
      description: describeCadence(c, t, tz),
    },
  };
}

/** The next `count` runs of a cron in a zone, strictly after `from`. */
export function nextRuns(cron: string, tz: string, from: Date, count = 1): Date[] {
  const it = CronExpressionParser.parse(cron, { tz, currentDate: from });
  const out: Date[] = [];
  for (let i = 0; i < count; i++) out.push(it.next().toDate());
  return out;
}

/** The latest run of a cron in a zone at or before `at`; undefined when the cron never ran before it. */
export function lastRunAtOrBefore(cron: string, tz: string, at: Date): Date | undefined {
  // cron-parser's prev() is strictly before currentDate: step 1 ms past `at` so a run exactly at `at` counts.
  const it = CronExpressionParser.parse(cron, { tz, currentDate: new Date(at.getTime() + 1) });
  try {
    return it.prev().toDate();
  } catch {
    return undefined;
  }
}

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad2 = (n: number) => String(n).padStart(2, "0");

/**
 * "Mon 2 Mar 2026, 09:00 GMT+1": a time shown in the schedule's zone (date-fns's
 * `EEE d MMM yyyy, HH:mm zzz`, written out: date-fns/format took a tenth of a
 * start's CPU to load, docs/memory.md).
 */
export function formatLocal(date: Date, tz: string): string {
  const d = new TZDate(date.getTime(), tz);
  const east = -d.getTimezoneOffset(); // minutes east of UTC
  const abs = Math.abs(east);
  const zone = `GMT${east < 0 ? "-" : "+"}${Math.trunc(abs / 60)}${abs % 60 ? `:${pad2(abs % 60)}` : ""}`;
  const year = String(d.getFullYear()).padStart(4, "0");
  return `${WEEKDAYS[d.getDay()]} ${d.getDate()} ${MONTHS[d.getMonth()]} ${year}, ${pad2(d.getHours())}:${pad2(d.getMinutes())} ${zone}`;
}

/** The stored form of a parsed schedule: what the scheduler and the shell-side service both insert. */
export const newScheduleOf = (
  spec: ScheduleSpec,
  who: { createdBy: string; channel: string },
): NewSchedule => ({
  channel: who.channel,
  target: targetText(spec.target),
  cron: spec.cron,
  tz: spec.tz,
  description: spec.description,
  createdBy: who.createdBy,
});
