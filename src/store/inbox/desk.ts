// The desk (issue 20): state and assignee per thread, each change one statement.

import type { WorkspaceId } from "../../domain/workspace.ts";
import type { Queryable } from "../db.ts";
import { type DeskState, InboxTable, type Row, THREADS_WITH_DUE, type Thread, toThread } from "./rows.ts";
import type { Threads } from "./threads.ts";

export class Desk extends InboxTable {
  readonly #db: Queryable;
  private readonly threads: Threads;

  constructor(db: Queryable, workspace: WorkspaceId, threads: Threads) {
    super(db, workspace);
    this.#db = db;
    this.threads = threads;
  }

  /**
   * Gives the thread to `userId`. With `onlyIfFree` (Assign to me), only when
   * nobody or this person has it, in one statement: of two people clicking at
   * once, one gets it; `holder` says who has it after the call.
   */
  async assign(
    channel: string,
    chatUserId: number,
    userId: string,
    by: string,
    now: Date,
    onlyIfFree: boolean,
  ): Promise<{ changed: boolean; holder: string | null }> {
    const { rows } = await this.#db.query<Row>(
      `update inbox.threads set assignee = $3, desk_changed_by = $4, desk_changed_at = $5
       where channel = $1 and chat_user_id = $2 and workspace = $7 and assignee is distinct from $3
         and (not $6 or assignee is null)
       returning assignee`,
      [channel, chatUserId, userId, by, now, onlyIfFree, this.workspace],
    );
    if (rows[0]) return { changed: true, holder: userId };
    const t = await this.threads.thread(channel, chatUserId);
    return { changed: false, holder: t?.assignee ?? null };
  }

  /** Nobody has it any more; false when nobody had it. */
  async unassign(channel: string, chatUserId: number, by: string, now: Date): Promise<boolean> {
    return this.tookOne(
      `update inbox.threads set assignee = null, desk_changed_by = $3, desk_changed_at = $4
       where channel = $1 and chat_user_id = $2 and workspace = $5 and assignee is not null returning chat_user_id`,
      [channel, chatUserId, by, now, this.workspace],
    );
  }

  /** Open → resolved or back; false when it already was in that state (someone else was first). */
  async setDeskState(
    channel: string,
    chatUserId: number,
    state: DeskState,
    by: string,
    now: Date,
  ): Promise<boolean> {
    // One statement: the state, the event the desk's report counts, and (a resolve) the reply clock stopped.
    return this.tookOne(
      `with changed as (
         update inbox.threads set desk_state = $3, desk_changed_by = $4, desk_changed_at = $5,
           snoozed_until = null, snooze_until_reply = false, snoozed_by = null
         where channel = $1 and chat_user_id = $2 and workspace = $6 and desk_state <> $3
         returning workspace, channel, chat_user_id, assignee),
       event as (
         insert into inbox.desk_events (workspace, channel, chat_user_id, kind, at, by_user, assignee)
         select workspace, channel, chat_user_id, case when $3 = 'resolved' then 'resolved' else 'reopened' end, $5, $4, assignee
         from changed where $3 in ('resolved', 'open')),
       stopped as (
         update inbox.clocks k set ended_at = $5, ended_by = 'resolve' from changed c
         where $3 = 'resolved' and k.workspace = c.workspace and k.channel = c.channel
           and k.chat_user_id = c.chat_user_id and k.ended_at is null)
       select chat_user_id from changed`,
      [channel, chatUserId, state, by, now, this.workspace],
    );
  }

  /**
   * The customer wrote (a mirrored customer message at `at`): the reply window
   * moves, and a resolved conversation is open again (`reopened`).
   */
  async customerWrote(
    channel: string,
    chatUserId: number,
    at: Date,
  ): Promise<{ reopened: boolean; woke: boolean }> {
    // A snoozed conversation wakes at once when the customer writes (issue 29 §3), in this same statement.
    const { rows } = await this.#db.query<Row>(
      `with u as (
         update inbox.threads t set customer_wrote_at = greatest(t.customer_wrote_at, $3::timestamptz),
           window_closed_shown = false, desk_state = 'open',
           snoozed_until = null, snooze_until_reply = false, snoozed_by = null,
           desk_changed_by = case when t.desk_state = 'resolved' then 'customer' else t.desk_changed_by end,
           desk_changed_at = case when t.desk_state = 'resolved' then $3::timestamptz else t.desk_changed_at end
         from inbox.threads old
         where t.channel = $1 and t.chat_user_id = $2 and t.workspace = $4
           and old.workspace = t.workspace and old.channel = t.channel and old.chat_user_id = t.chat_user_id
         returning old.desk_state as was, (old.snoozed_until is not null or old.snooze_until_reply) as snoozed, t.assignee),
       event as (
         insert into inbox.desk_events (workspace, channel, chat_user_id, kind, at, by_user, assignee)
         select $4, $1, $2, 'reopened', $3::timestamptz, 'customer', assignee from u where was = 'resolved')
       select was, snoozed from u`,
      [channel, chatUserId, at, this.workspace],
    );
    return { reopened: rows[0]?.was === "resolved", woke: rows[0]?.snoozed === true };
  }

  /** Threads whose reply window closed before `before` and whose card does not say so yet. */
  async windowsClosed(channel: string, before: Date, limit = 20): Promise<Thread[]> {
    const { rows } = await this.#db.query<Row>(
      `select * from ${THREADS_WITH_DUE} where channel = $1 and workspace = $4 and thread_ts is not null and card is not null
         and not window_closed_shown and customer_wrote_at < $2::timestamptz - interval '24 hours'
       order by customer_wrote_at limit $3`,
      [channel, before, limit, this.workspace],
    );
    return rows.map(toThread);
  }

  async windowClosedShown(channel: string, chatUserId: number): Promise<void> {
    await this.#db.query(
      "update inbox.threads set window_closed_shown = true where channel = $1 and chat_user_id = $2 and workspace = $3",
      [channel, chatUserId, this.workspace],
    );
  }

  /** Conversations with a thread, latest message first, optionally only those `assignee` has. */
  async desk(p: { assignee?: string; limit: number }): Promise<Thread[]> {
    const { rows } = await this.#db.query<Row>(
      `select * from ${THREADS_WITH_DUE} where workspace = $3 and thread_ts is not null and ($1::text is null or assignee = $1)
       order by due_at nulls last, last_message_at desc nulls last limit $2`,
      [p.assignee ?? null, p.limit, this.workspace],
    );
    return rows.map(toThread);
  }
}
