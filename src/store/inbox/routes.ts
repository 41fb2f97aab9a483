import { dbOf } from "../per-workspace.ts";
import { InboxTable, type Row } from "./rows.ts";

export class Routes extends InboxTable {
  /** The inbox a conversation is mirrored into, once one took it. */
  async routeOf(chatUserId: number): Promise<string | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "select channel from inbox.routes where chat_user_id = $1 and workspace = $2",
      [chatUserId, this.workspace],
    );
    return rows[0] ? String(rows[0].channel) : undefined;
  }

  /**
   * Routes a conversation to `channel`: true when it has no route yet, or its
   * route is `previous` (an inbox turned off), in one statement: of two
   * inboxes asking at once, one takes it.
   */
  async takeRoute(
    chatUserId: number,
    channel: string,
    previous: string | undefined,
    now: Date,
  ): Promise<boolean> {
    return this.tookOne(
      `insert into inbox.routes (chat_user_id, channel, routed_at, workspace) values ($1, $2, $4, $5)
       on conflict (workspace, chat_user_id) do update set channel = excluded.channel, routed_at = excluded.routed_at
         where inbox.routes.channel = $2 or inbox.routes.channel = $3
       returning chat_user_id`,
      [chatUserId, channel, previous ?? channel, now, this.workspace],
    );
  }
}
