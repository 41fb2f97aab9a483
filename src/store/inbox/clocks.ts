// Reply targets (issue 29 §2) and what the desk's report counts (§5): an
// inbox's targets; one clock per customer message that waits for a reply
// (started once: a running clock is unique per thread), ended by a reply, a
// resolve or a snooze; its 80% warning and its breach each claimed in one
// conditional statement before they are posted, so they are posted once
// across restarts and replicas. A clock is kept without a target too: the
// report's first-reply times come from them.

import type { WorkClock } from "../../domain/business-hours.ts";
import { addWorkTime, workTimeBetween } from "../../domain/business-hours.ts";
import { dbOf } from "../per-workspace.ts";
import { date, InboxTable, type Row, text } from "./rows.ts";

/** An inbox's reply targets, in seconds (null: none); `here`: warnings in the channel say @here. */
export interface InboxTargets {
  channel: string;
  firstSecs: number | null;
  nextSecs: number | null;
  here: boolean;
  setBy: string;
  setAt: Date;
}

export type ClockKind = "first" | "next";
/** Why a clock stopped: a reply, a resolve, a snooze (issue 29 §3), or its inbox turned off. */
export type ClockEnd = "reply" | "resolve" | "snooze" | "off";

export interface Clock {
  channel: string;
  chatUserId: number;
  startedAt: Date;
  kind: ClockKind;
  targetSecs: number | null;
  warnAt: Date | null;
  dueAt: Date | null;
  warnedAt: Date | null;
  breachedAt: Date | null;
  endedAt: Date | null;
  endedBy: ClockEnd | null;
  repliedBy: string | null;
  replySecs: number | null;
  assignee: string | null;
}

/** A clock due for its warning or its breach, with what its post needs of the thread. */
export interface DueClock extends Clock {
  threadTs: string;
  /** Who has the conversation now. */
  holder: string | null;
  name: string | null;
}

/** A state change the report counts: resolved, reopened, snoozed, or rated by the customer. */
export interface DeskEvent {
  channel: string;
  chatUserId: number;
  kind: "resolved" | "reopened" | "snoozed" | "rated";
  at: Date;
  by: string | null;
  assignee: string | null;
  /** The rating's words (kind `rated`). */
  rating: string | null;
}

const EVENT_KINDS: ReadonlyArray<DeskEvent["kind"]> = ["resolved", "reopened", "snoozed", "rated"];

const toTargets = (r: Row): InboxTargets => ({
  channel: String(r.channel),
  firstSecs: r.first_secs === null || r.first_secs === undefined ? null : Number(r.first_secs),
  nextSecs: r.next_secs === null || r.next_secs === undefined ? null : Number(r.next_secs),
  here: r.here === true,
  setBy: String(r.set_by),
  setAt: date(r.set_at) as Date,
});

const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

export const toClock = (r: Row): Clock => ({
  channel: String(r.channel),
  chatUserId: Number(r.chat_user_id),
  startedAt: date(r.started_at) as Date,
  kind: r.kind === "first" ? "first" : "next",
  targetSecs: num(r.target_secs),
  warnAt: date(r.warn_at),
  dueAt: date(r.due_at),
  warnedAt: date(r.warned_at),
  breachedAt: date(r.breached_at),
  endedAt: date(r.ended_at),
  endedBy: text(r.ended_by) as ClockEnd | null,
  repliedBy: text(r.replied_by),
  replySecs: num(r.reply_secs),
  assignee: text(r.assignee),
});

/** The warning comes at this share of the target. */
export const WARN_SHARE = 0.8;

export class Clocks extends InboxTable {
  async targets(channel: string): Promise<InboxTargets | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from inbox.targets where workspace = $1 and channel = $2",
      [this.workspace, channel],
    );
    return rows[0] ? toTargets(rows[0]) : undefined;
  }

  /** Sets a channel's targets as given (null: none); `before`: what they were. */
  async setTargets(
    channel: string,
    t: { firstSecs: number | null; nextSecs: number | null; here: boolean },
    by: string,
    now: Date,
  ): Promise<{ targets: InboxTargets; before?: InboxTargets }> {
    const before = await this.targets(channel);
    const { rows } = await dbOf(this).query<Row>(
      `insert into inbox.targets (workspace, channel, first_secs, next_secs, here, set_by, set_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (workspace, channel) do update set first_secs = excluded.first_secs,
         next_secs = excluded.next_secs, here = excluded.here, set_by = excluded.set_by,
         set_at = case when inbox.targets.first_secs is not distinct from excluded.first_secs
                        and inbox.targets.next_secs is not distinct from excluded.next_secs
                       then inbox.targets.set_at else excluded.set_at end
       returning *`,
      [this.workspace, channel, t.firstSecs, t.nextSecs, t.here, by, now],
    );
    return { targets: toTargets(rows[0]!), ...(before ? { before } : {}) };
  }

  async running(channel: string, chatUserId: number): Promise<Clock | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from inbox.clocks where workspace = $1 and channel = $2 and chat_user_id = $3 and ended_at is null`,
      [this.workspace, channel, chatUserId],
    );
    return rows[0] ? toClock(rows[0]) : undefined;
  }

  /**
   * A customer message at `at`: a clock starts when none is running (the
   * next-reply target counts from the first message not answered). `first`:
   * it opens the conversation again (a resolved one), so its target is the
   * first-reply one, as it is for a thread's first clock. A target counts
   * from when it was set at the earliest. Started at most once (the running
   * clock is unique per thread, the message's time is its key).
   */
  async customerWrote(
    channel: string,
    chatUserId: number,
    at: Date,
    p: { first: boolean; targets: InboxTargets | undefined; clock: WorkClock | undefined },
  ): Promise<boolean> {
    if (await this.running(channel, chatUserId)) return false;
    const { rows } = await dbOf(this).query<Row>(
      "select 1 from inbox.clocks where workspace = $1 and channel = $2 and chat_user_id = $3 limit 1",
      [this.workspace, channel, chatUserId],
    );
    const kind: ClockKind = p.first || !rows.length ? "first" : "next";
    const secs = kind === "first" ? (p.targets?.firstSecs ?? null) : (p.targets?.nextSecs ?? null);
    const from = p.targets && p.targets.setAt > at ? p.targets.setAt : at;
    const warnAt = secs === null ? null : addWorkTime(from, secs * 1000 * WARN_SHARE, p.clock);
    const dueAt = secs === null ? null : addWorkTime(from, secs * 1000, p.clock);
    return this.tookOne(
      `insert into inbox.clocks (workspace, channel, chat_user_id, started_at, kind, target_secs, warn_at, due_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing returning started_at`,
      [this.workspace, channel, chatUserId, at, kind, secs, warnAt, dueAt],
    );
  }

  /**
   * A reply at `at` (sent to the customer: a note is not one) stops the
   * running clock started before it, in one conditional statement; the time
   * it took is counted as its target counts (business hours when set). The
   * thread keeps when the team last wrote, a clock running or not.
   */
  async replied(
    channel: string,
    chatUserId: number,
    at: Date,
    by: string | null,
    clock: WorkClock | undefined,
  ): Promise<boolean> {
    // When the team last wrote, clock or none (the away message's "answered in the last hour", issue 40 §1).
    await dbOf(this).query(
      `update inbox.threads set team_wrote_at = greatest(coalesce(team_wrote_at, $4), $4)
       where workspace = $1 and channel = $2 and chat_user_id = $3`,
      [this.workspace, channel, chatUserId, at],
    );
    const c = await this.running(channel, chatUserId);
    if (!c || c.startedAt > at) return false;
    const secs = Math.round(workTimeBetween(c.startedAt, at, clock) / 1000);
    return this.tookOne(
      `update inbox.clocks k set ended_at = $5, ended_by = 'reply', replied_by = $6, reply_secs = $7,
         assignee = coalesce((select t.assignee from inbox.threads t where t.workspace = k.workspace
           and t.channel = k.channel and t.chat_user_id = k.chat_user_id), k.assignee)
       where workspace = $1 and channel = $2 and chat_user_id = $3 and started_at = $4 and ended_at is null
       returning started_at`,
      [this.workspace, channel, chatUserId, c.startedAt, at, by, secs],
    );
  }

  /**
   * Stops the running clock without a reply: a resolve, a snooze (issue 29
   * §3: the snooze calls this), the inbox turned off. False when none ran.
   */
  async stop(
    channel: string,
    chatUserId: number,
    at: Date,
    why: Exclude<ClockEnd, "reply">,
  ): Promise<boolean> {
    return this.tookOne(
      `update inbox.clocks set ended_at = $4, ended_by = $5
       where workspace = $1 and channel = $2 and chat_user_id = $3 and ended_at is null returning started_at`,
      [this.workspace, channel, chatUserId, at, why],
    );
  }

  /** Every running clock of a channel stopped (its inbox turned off): nothing of it comes due later. */
  async stopAll(channel: string, at: Date): Promise<number> {
    const { rows } = await dbOf(this).query(
      `update inbox.clocks set ended_at = $3, ended_by = 'off'
       where workspace = $1 and channel = $2 and ended_at is null returning started_at`,
      [this.workspace, channel, at],
    );
    return rows.length;
  }

  /**
   * Running clocks of a channel whose warning or breach is due at `now`, of
   * open conversations only (a resolved or snoozed one's clock does not run:
   * a state other than `open` is left out), soonest first.
   */
  async due(channel: string, now: Date, limit = 50): Promise<DueClock[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select k.*, t.thread_ts, t.assignee as holder, t.card ->> 'name' as name
       from inbox.clocks k join inbox.threads t on t.workspace = k.workspace and t.channel = k.channel
         and t.chat_user_id = k.chat_user_id
       where k.workspace = $1 and k.channel = $2 and k.ended_at is null and k.due_at is not null
         and t.thread_ts is not null and t.desk_state = 'open'
         and ((k.warned_at is null and k.breached_at is null and k.warn_at <= $3) or (k.breached_at is null and k.due_at <= $3))
       order by k.due_at limit $4`,
      [this.workspace, channel, now, limit],
    );
    return rows.map((r) => ({
      ...toClock(r),
      threadTs: String(r.thread_ts),
      holder: text(r.holder),
      name: text(r.name),
    }));
  }

  /** Takes the clock's warning (one statement): true for the one caller that posts it. */
  async claimWarning(c: Pick<Clock, "channel" | "chatUserId" | "startedAt">, now: Date): Promise<boolean> {
    return this.tookOne(
      `update inbox.clocks set warned_at = $5
       where workspace = $1 and channel = $2 and chat_user_id = $3 and started_at = $4
         and warned_at is null and breached_at is null and ended_at is null returning started_at`,
      [this.workspace, c.channel, c.chatUserId, c.startedAt, now],
    );
  }

  /** Takes the clock's breach (one statement), noting who had the conversation then. */
  async claimBreach(c: Pick<Clock, "channel" | "chatUserId" | "startedAt">, now: Date): Promise<boolean> {
    return this.tookOne(
      `update inbox.clocks k set breached_at = $5,
         assignee = (select t.assignee from inbox.threads t where t.workspace = k.workspace
           and t.channel = k.channel and t.chat_user_id = k.chat_user_id)
       where workspace = $1 and channel = $2 and chat_user_id = $3 and started_at = $4
         and breached_at is null and ended_at is null returning started_at`,
      [this.workspace, c.channel, c.chatUserId, c.startedAt, now],
    );
  }

  /** A warning or breach the front end certainly did not post: the next pass posts it. */
  async release(
    c: Pick<Clock, "channel" | "chatUserId" | "startedAt">,
    what: "warning" | "breach",
  ): Promise<void> {
    await dbOf(this).query(
      `update inbox.clocks set ${what === "warning" ? "warned_at" : "breached_at"} = null
       where workspace = $1 and channel = $2 and chat_user_id = $3 and started_at = $4`,
      [this.workspace, c.channel, c.chatUserId, c.startedAt],
    );
  }

  /**
   * The clocks the report of [from, to) counts: started in it (conversations
   * opened, their first replies), replied in it, or due in it (targets met or
   * missed). `channel` null: every inbox.
   */
  async clocksOf(channel: string | null, from: Date, to: Date, limit = 20_000): Promise<Clock[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from inbox.clocks where workspace = $1 and ($2::text is null or channel = $2)
         and ((started_at >= $3 and started_at < $4) or (ended_at >= $3 and ended_at < $4)
              or (due_at >= $3 and due_at < $4))
       order by started_at limit $5`,
      [this.workspace, channel, from, to, limit],
    );
    return rows.map(toClock);
  }

  /** The state changes of [from, to) (snoozes and ratings too). */
  async eventsOf(channel: string | null, from: Date, to: Date, limit = 20_000): Promise<DeskEvent[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from inbox.desk_events where workspace = $1 and ($2::text is null or channel = $2)
         and at >= $3 and at < $4 order by at limit $5`,
      [this.workspace, channel, from, to, limit],
    );
    return rows.map((r) => ({
      channel: String(r.channel),
      chatUserId: Number(r.chat_user_id),
      kind: EVENT_KINDS.find((k) => k === r.kind) ?? "reopened",
      at: date(r.at) as Date,
      by: text(r.by_user),
      assignee: text(r.assignee),
      rating: text(r.rating),
    }));
  }
}
