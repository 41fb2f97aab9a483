// When a snoozed conversation comes back (issue 29 §3), from what people type
// or pick: `1h` (or `30m`, `2d`), `tomorrow` (9:00), `monday` (next Monday
// 9:00), a date and time (`2026-12-01 14:30`, in the person's zone; with `Z`
// or an offset, as written), a time today or tomorrow (`17:00`), or `reply`
// (until the customer writes).

import { localParts } from "./start-time.ts";

/** Morning, for `tomorrow` and `monday`. */
const MORNING = 9;

/** The zone's offset from UTC at `at`, in ms. */
function zoneOffset(at: Date, zone: string): number {
  const w = localParts(at, zone);
  const local = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  return local - Math.floor(at.getTime() / 1000) * 1000;
}

/** A wall-clock time in `zone` as an instant. */
export function zonedTime(y: number, month: number, d: number, h: number, mi: number, zone: string): Date {
  const guess = Date.UTC(y, month - 1, d, h, mi);
  const first = guess - zoneOffset(new Date(guess), zone);
  // Once more, for a time near a change of offset.
  return new Date(guess - zoneOffset(new Date(first), zone));
}

/** The date (year, month, day, weekday 0 = Sunday) `at` is in `zone`. */
function dateIn(at: Date, zone: string): { y: number; m: number; d: number; wd: number } {
  const local = new Date(at.getTime() + zoneOffset(at, zone));
  return {
    y: local.getUTCFullYear(),
    m: local.getUTCMonth() + 1,
    d: local.getUTCDate(),
    wd: local.getUTCDay(),
  };
}

/** The day `days` after `at`'s date in `zone`, at h:mi there. */
function dayAt(at: Date, zone: string, days: number, h: number, mi: number): Date {
  const { y, m, d } = dateIn(at, zone);
  const day = new Date(Date.UTC(y, m - 1, d + days));
  return zonedTime(day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), h, mi, zone);
}

/** Whether Intl knows the zone. */
export function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * When the snooze ends, from what was typed, `now` and the person's zone;
 * `reply`: until the customer writes; undefined when it is not a time.
 */
export function snoozeEnd(typed: string, now: Date, zone = "UTC"): Date | "reply" | undefined {
  const t = typed.trim().toLowerCase();
  if (/^(reply|customer|customer-writes|until-reply)$/.test(t)) return "reply";
  const rel = /^(\d{1,4})\s*(m|min|mins|minutes?|h|hours?|d|days?)$/.exec(t);
  if (rel) {
    const n = Number(rel[1]);
    const unit = rel[2]?.[0] === "m" ? 60_000 : rel[2]?.[0] === "h" ? 3_600_000 : 86_400_000;
    return n > 0 ? new Date(now.getTime() + n * unit) : undefined;
  }
  if (t === "tomorrow") return dayAt(now, zone, 1, MORNING, 0);
  if (/^(mon|monday|next-monday)$/.test(t)) {
    const { wd } = dateIn(now, zone);
    return dayAt(now, zone, (8 - wd) % 7 || 7, MORNING, 0);
  }
  const time = /^(\d{1,2}):(\d{2})$/.exec(t);
  if (time) {
    const [h, mi] = [Number(time[1]), Number(time[2])];
    if (h > 23 || mi > 59) return undefined;
    const today = dayAt(now, zone, 0, h, mi);
    return today > now ? today : dayAt(now, zone, 1, h, mi);
  }
  const dt = /^(\d{4})-(\d{2})-(\d{2})(?:[t ](\d{1,2}):(\d{2}))?(z|[+-]\d{2}:?\d{2})?$/.exec(t);
  if (dt) {
    const [y, m, d, h, mi] = [1, 2, 3, 4, 5].map((i) => Number(dt[i] ?? (i === 4 ? MORNING : 0))) as [
      number,
      number,
      number,
      number,
      number,
    ];
    if (m < 1 || m > 12 || d < 1 || d > 31 || h > 23 || mi > 59) return undefined;
    if (dt[6]) {
      const at = new Date(typed.trim().replace(" ", "T").toUpperCase());
      return Number.isNaN(at.getTime()) ? undefined : at;
    }
    return zonedTime(y, m, d, h, mi, zone);
  }
  return undefined;
}
