// The desk's report (issue 29 §5, docs/reports.md "The desk report"): an
// inbox's conversations over a period, from what Switchboard recorded (the
// reply clocks: a customer's first message, the reply that answered it,
// targets met or missed; the state changes), so it costs no API read.
// Opened and resolved, median and 90th-percentile first-reply time, targets
// met as a share, snoozed, ratings per answer, and the same per assignee. `/sb inbox report` shows it at
// once; a schedule (`/sb report inbox every mon at 09:00`) posts it through
// the scheduler, once a slot.
import type { KnownBlock } from "@slack/types";
import { context, esc, fieldsSection, header, section } from "../blocks/blocks.ts";
import { durationWords } from "../domain/business-hours.ts";
import type { Clock, DeskEvent } from "../store/inbox.ts";
import type { ReportMessage } from "./render.ts";
import { formatLocal } from "./schedule.ts";

/** The records a report reads (InboxStore's clocks). */
export interface DeskRecords {
  clocksOf(channel: string | null, from: Date, to: Date): Promise<Clock[]>;
  eventsOf(channel: string | null, from: Date, to: Date): Promise<DeskEvent[]>;
}

export interface ReplyTimes {
  count: number;
  medianSecs?: number;
  p90Secs?: number;
}

/** What a desk did in the period: the whole desk's, and each person's. */
export interface DeskWork {
  resolved: number;
  firstReplies: ReplyTimes;
  /** Targets decided in the period: replied in time, or past due without a reply in time. */
  met: number;
  missed: number;
  /** Snoozes set in the period. */
  snoozed: number;
  /** The customers' ratings recorded in the period (a conversation's last answer counts). */
  ratings: RatingCount[];
}

export interface DeskPerson extends DeskWork {
  /** Slack user id; null: nobody had the conversation. */
  who: string | null;
}

/** How many conversations were rated with these words, most first. */
export interface RatingCount {
  rating: string;
  count: number;
}

export interface DeskFigures extends DeskWork {
  /** The inbox's channel; null: every inbox. */
  channel: string | null;
  from: Date;
  to: Date;
  /** Conversations a customer started (a first message, or one after a resolve). */
  opened: number;
  /** Of the opened ones, those that were resolved before. */
  reopened: number;
  people: DeskPerson[];
}

function ratingCounts(ratings: string[]): RatingCount[] {
  const counts = new Map<string, number>();
  for (const r of ratings) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts.entries()]
    .map(([rating, count]) => ({ rating, count }))
    .sort((a, b) => b.count - a.count);
}

/** The nearest-rank percentile of sorted values. */
function percentile(sorted: number[], p: number): number | undefined {
  if (!sorted.length) return undefined;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

function times(secs: number[]): ReplyTimes {
  const sorted = [...secs].sort((a, b) => a - b);
  const median = percentile(sorted, 50);
  const p90 = percentile(sorted, 90);
  return {
    count: sorted.length,
    ...(median !== undefined ? { medianSecs: median } : {}),
    ...(p90 !== undefined ? { p90Secs: p90 } : {}),
  };
}

const within = (at: Date | null, from: Date, to: Date) => at !== null && at >= from && at < to;

/** A target's outcome in [from, to): met (replied by its due time), missed (due passed without that), or neither. */
function outcome(c: Clock, from: Date, to: Date, now: Date): "met" | "missed" | undefined {
  if (c.targetSecs === null || !c.dueAt) return undefined;
  const repliedInTime = c.endedBy === "reply" && c.endedAt !== null && c.endedAt <= c.dueAt;
  if (repliedInTime) return within(c.endedAt, from, to) ? "met" : undefined;
  // Stopped before its due time without a reply (resolved, snoozed): neither.
  if (c.endedAt !== null && c.endedAt <= c.dueAt) return undefined;
  return c.dueAt <= now && within(c.dueAt, from, to) ? "missed" : undefined;
}

/** The figures of [from, to) (at `now`), from the records alone. */
export async function deskFigures(
  records: DeskRecords,
  channel: string | null,
  from: Date,
  to: Date,
  now: Date,
): Promise<DeskFigures> {
  const [clocks, events] = await Promise.all([
    records.clocksOf(channel, from, to),
    records.eventsOf(channel, from, to),
  ]);
  const people = new Map<
    string | null,
    { resolved: number; secs: number[]; met: number; missed: number; snoozed: number; ratings: string[] }
  >();
  const person = (who: string | null) => {
    let p = people.get(who);
    if (!p) {
      p = { resolved: 0, secs: [], met: 0, missed: 0, snoozed: 0, ratings: [] };
      people.set(who, p);
    }
    return p;
  };
  const firstSecs: number[] = [];
  let opened = 0;
  let met = 0;
  let missed = 0;
  for (const c of clocks) {
    if (c.kind === "first" && within(c.startedAt, from, to)) opened++;
    const who = c.assignee ?? c.repliedBy;
    if (c.kind === "first" && c.endedBy === "reply" && c.replySecs !== null && within(c.endedAt, from, to)) {
      firstSecs.push(c.replySecs);
      person(who).secs.push(c.replySecs);
    }
    const o = outcome(c, from, to, now);
    if (o === "met") {
      met++;
      person(who).met++;
    } else if (o === "missed") {
      missed++;
      person(who).missed++;
    }
  }
  let resolved = 0;
  let reopened = 0;
  let snoozed = 0;
  // A customer who answers twice (Great, then Poor) counts once, with the last answer, as the card shows it.
  const rated = new Map<string, DeskEvent>();
  for (const e of events) {
    if (e.kind === "resolved") {
      resolved++;
      person(e.assignee ?? e.by).resolved++;
    } else if (e.kind === "snoozed") {
      snoozed++;
      person(e.assignee ?? e.by).snoozed++;
    } else if (e.kind === "rated") {
      if (e.rating !== null) rated.set(`${e.channel} ${e.chatUserId}`, e);
    } else reopened++;
  }
  for (const e of rated.values()) person(e.assignee).ratings.push(e.rating ?? "");
  return {
    channel,
    from,
    to,
    opened,
    reopened,
    resolved,
    firstReplies: times(firstSecs),
    met,
    missed,
    snoozed,
    ratings: ratingCounts([...rated.values()].map((e) => e.rating ?? "")),
    people: [...people.entries()]
      .map(([who, p]) => ({
        who,
        resolved: p.resolved,
        firstReplies: times(p.secs),
        met: p.met,
        missed: p.missed,
        snoozed: p.snoozed,
        ratings: ratingCounts(p.ratings),
      }))
      // Named people first, busiest first; nobody last.
      .sort(
        (a, b) =>
          Number(a.who === null) - Number(b.who === null) ||
          b.resolved + b.firstReplies.count - (a.resolved + a.firstReplies.count),
      ),
  };
}

const share = (met: number, missed: number) =>
  met + missed ? `${Math.round((met / (met + missed)) * 100)}% (${met} of ${met + missed})` : "no target due";

const replyWords = (t: ReplyTimes) =>
  t.medianSecs === undefined
    ? "no first reply"
    : `median ${durationWords(t.medianSecs)}, 90% within ${durationWords(t.p90Secs ?? t.medianSecs)} (${t.count} ${t.count === 1 ? "reply" : "replies"})`;

const ratingWords = (r: RatingCount[]) =>
  r.length ? r.map((x) => `${esc(x.rating)} ${x.count}`).join(", ") : "none";

const who = (id: string | null) =>
  id === null ? "Nobody assigned" : /^[UW][A-Z0-9]{2,}$/.test(id) ? `<@${id}>` : esc(id);

/** The report as one message (Block Kit and its fallback text). */
export function renderDeskReport(f: DeskFigures, opts: { tz: string; late?: boolean }): ReportMessage {
  const where = f.channel ? `<#${f.channel}>` : "every inbox";
  const period = `${formatLocal(f.from, opts.tz)} to ${formatLocal(f.to, opts.tz)}`;
  const blocks: KnownBlock[] = [
    header(`Desk report${opts.late ? " (late)" : ""}`),
    context(`${where} · ${esc(period)}`),
    ...fieldsSection([
      ["Opened", `${f.opened}${f.reopened ? ` (${f.reopened} reopened)` : ""}`],
      ["Resolved", String(f.resolved)],
      ["First reply", replyWords(f.firstReplies)],
      ["Targets met", share(f.met, f.missed)],
      ["Snoozed", String(f.snoozed)],
      ["Ratings", ratingWords(f.ratings)],
    ]),
  ];
  const lines = f.people.map(
    (p) =>
      `• ${who(p.who)}: ${p.resolved} resolved · first reply ${replyWords(p.firstReplies)} · targets met ${share(p.met, p.missed)}${p.snoozed ? ` · ${p.snoozed} snoozed` : ""}${p.ratings.length ? ` · rated ${ratingWords(p.ratings)}` : ""}`,
  );
  if (lines.length) blocks.push(section(`*By assignee*\n${lines.slice(0, 20).join("\n")}`));
  blocks.push(
    context(
      "From what Switchboard recorded: customers' first messages, replies sent, resolves, snoozes, customers' ratings. Times count in the workspace's business hours when it has them.",
    ),
  );
  const text = `Desk report, ${f.channel ? `<#${f.channel}>` : "every inbox"}: ${f.opened} opened, ${f.resolved} resolved, first reply ${replyWords(f.firstReplies)}, targets met ${share(f.met, f.missed)}, ${f.snoozed} snoozed, ratings ${ratingWords(f.ratings)}`;
  return { text, blocks };
}
