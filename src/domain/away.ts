// The away message (issue 40 §1): a text a customer gets when they write
// while the team is away, once per conversation per closed period. Away is
// outside the workspace's business hours (in its zone), or at any hour while
// "away now" is on (a holiday, a day off). The closed period's start is the
// key of its claim (src/store/inbox/away.ts): the last close of business
// before the customer wrote, or when "away now" was turned on, whichever is
// earlier. A leaf but for the business hours' arithmetic.
import { closedSince, type WorkClock } from "./business-hours.ts";

/** The longest an away message may be (told in words wherever it is set). */
export const AWAY_MAX = 1000;

/** An away message over AWAY_MAX, in words; undefined when it fits. */
export function awayTooLong(text: string): string | undefined {
  if (text.length <= AWAY_MAX) return undefined;
  const n = (v: number) => v.toLocaleString("en-US");
  return `is ${n(text.length)} characters: an away message may have at most ${n(AWAY_MAX)}`;
}

/** The workspace's away message as set now. */
export interface AwayRule {
  /** The text, placeholders as in saved replies (`{first_name|there}`). */
  text: string;
  /** Away at once, whatever the hours say, since this instant ("away now" on); unset: the hours decide. */
  since?: Date;
}

/** The away rule of a workspace's settings: none without a text. */
export function awayRuleOf(s: { away?: string; awayNow?: string } | undefined): AwayRule | undefined {
  if (!s?.away) return undefined;
  const since = s.awayNow ? new Date(s.awayNow) : undefined;
  return { text: s.away, ...(since && !Number.isNaN(since.getTime()) ? { since } : {}) };
}

/**
 * The start of the closed period a customer who wrote at `wrote` is in, seen
 * at `now`; undefined when the team is there (inside business hours, or the
 * message was written in a closed period that has ended since: read late,
 * after downtime, the team is back).
 */
export function awayPeriod(
  rule: AwayRule,
  clock: WorkClock | undefined,
  wrote: Date,
  now: Date,
): Date | undefined {
  const starts: number[] = [];
  if (rule.since && wrote >= rule.since) starts.push(rule.since.getTime());
  const closed = clock ? closedSince(wrote, clock) : undefined;
  const stillClosed = clock ? closedSince(now, clock) : undefined;
  if (closed && stillClosed && closed.getTime() === stillClosed.getTime()) starts.push(closed.getTime());
  return starts.length ? new Date(Math.min(...starts)) : undefined;
}
