import { dbOf } from "../per-workspace.ts";
import { InboxTable } from "./rows.ts";

/** An answer counts within this long after the rating was asked. */
export const RATING_WINDOW_MS = 24 * 3_600_000;

export class Ratings extends InboxTable {
  /** The rating asked now, with the answers offered (a new ask clears an older rating). */
  async ratingAsked(channel: string, chatUserId: number, options: string[], now: Date): Promise<void> {
    await dbOf(this).query(
      `update inbox.threads set rating_asked_at = $3, rating_options = $4::text[], rating = null, rated_at = null
       where channel = $1 and chat_user_id = $2 and workspace = $5`,
      [channel, chatUserId, now, options, this.workspace],
    );
  }

  /**
   * The customer's answer, when it is one of the options offered, the
   * conversation still resolved and asked less than 24 hours before `at`:
   * recorded (the option as the template words it). Undefined otherwise.
   */
  async rate(channel: string, chatUserId: number, answer: string, at: Date): Promise<string | undefined> {
    // One statement: the rating, and the event the desk's report counts (issue 29 §5).
    const { rows } = await dbOf(this).query<{ rating: string }>(
      `with rated as (
       update inbox.threads t set rating = o.option, rated_at = $4
       from (select option from inbox.threads th, unnest(th.rating_options) option
             where th.channel = $1 and th.chat_user_id = $2 and th.workspace = $5
               and lower(btrim(option)) = lower(btrim($3)) limit 1) o
       where t.channel = $1 and t.chat_user_id = $2 and t.workspace = $5 and t.desk_state = 'resolved'
         and t.rating_asked_at is not null and t.rating_asked_at <= $4::timestamptz
         and $4::timestamptz - t.rating_asked_at < interval '24 hours'
       returning t.workspace, t.channel, t.chat_user_id, t.assignee, t.rating),
       event as (
         insert into inbox.desk_events (workspace, channel, chat_user_id, kind, at, by_user, assignee, rating)
         select workspace, channel, chat_user_id, 'rated', $4, 'customer', assignee, rating from rated)
       select rating from rated`,
      [channel, chatUserId, answer, at, this.workspace],
    );
    return rows[0]?.rating;
  }
}
