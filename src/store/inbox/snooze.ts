import { dbOf } from "../per-workspace.ts";
import { InboxTable, type Row, type Thread, toThread } from "./rows.ts";

export class Snoozes extends InboxTable {
  /**
   * Snoozed until `until` (a time, or `reply`: until the customer writes), by
   * `by`; only an open conversation. False when it is resolved or gone.
   */
  async snooze(channel: string, chatUserId: number, until: Date | "reply", by: string, now: Date) {
    return this.tookOne(
      // One statement: the snooze, the event the desk's report counts (issue 29 §5), and the reply
      // target's clock stopped (issue 29 §2: a snooze stops it).
      `with snoozed as (
         update inbox.threads set snoozed_until = $3, snooze_until_reply = $4, snoozed_by = $5,
           desk_changed_by = $5, desk_changed_at = $6
         where channel = $1 and chat_user_id = $2 and workspace = $7 and desk_state = 'open' and thread_ts is not null
         returning workspace, channel, chat_user_id, assignee),
       event as (
         insert into inbox.desk_events (workspace, channel, chat_user_id, kind, at, by_user, assignee)
         select workspace, channel, chat_user_id, 'snoozed', $6, $5, assignee from snoozed),
       stopped as (
         update inbox.clocks k set ended_at = $6, ended_by = 'snooze' from snoozed z
         where k.workspace = z.workspace and k.channel = z.channel and k.chat_user_id = z.chat_user_id
           and k.ended_at is null)
       select chat_user_id from snoozed`,
      [channel, chatUserId, until === "reply" ? null : until, until === "reply", by, now, this.workspace],
    );
  }

  /** Woken by hand (or resolved, reopened): false when it was not snoozed. */
  async unsnooze(channel: string, chatUserId: number): Promise<boolean> {
    return this.tookOne(
      `update inbox.threads set snoozed_until = null, snooze_until_reply = false, snoozed_by = null
       where channel = $1 and chat_user_id = $2 and workspace = $3
         and (snoozed_until is not null or snooze_until_reply) returning chat_user_id`,
      [channel, chatUserId, this.workspace],
    );
  }

  /**
   * The channel's conversations whose snooze time has come, taken in one
   * statement (the snooze cleared as they are returned, with who snoozed
   * them): each is woken once, by whoever takes it.
   */
  async wakeDue(
    channel: string,
    now: Date,
    limit = 20,
  ): Promise<Array<Thread & { wokenFrom: Date; wokenBy: string | null }>> {
    const { rows } = await dbOf(this).query<Row>(
      `update inbox.threads t set snoozed_until = null, snoozed_by = null
       from (select workspace, channel, chat_user_id, snoozed_until, snoozed_by from inbox.threads
             where workspace = $3 and channel = $1 and snoozed_until <= $2::timestamptz
             order by snoozed_until limit $4 for update skip locked) due
       where t.workspace = due.workspace and t.channel = due.channel and t.chat_user_id = due.chat_user_id
         and t.snoozed_until is not null
       returning t.*, due.snoozed_until as woken_from, due.snoozed_by as woken_by`,
      [channel, now, this.workspace, limit],
    );
    return rows.map((r) => ({
      ...toThread(r),
      wokenFrom: r.woken_from instanceof Date ? r.woken_from : new Date(String(r.woken_from)),
      wokenBy: r.woken_by === null || r.woken_by === undefined ? null : String(r.woken_by),
    }));
  }
}
