// Thread replies sent to a customer: one row per Slack message, claimed before
// the send (sent once, whatever Slack redelivers), never retried when its
// outcome is unknown.
import type { WorkspaceId } from "../../domain/workspace.ts";
import type { Queryable } from "../db.ts";
import { dbOf } from "../per-workspace.ts";
import { storable } from "../text.ts";
import { date, InboxTable, type Row, type SendingReply, text } from "./rows.ts";

export class Replies extends InboxTable {
  /** Claims a thread reply: true once per Slack message, whatever Slack redelivers. */
  async claimReply(r: {
    channel: string;
    messageTs: string;
    chatUserId: number;
    userId: string;
    now: Date;
    /** What is sent: kept to tell the writer after a crash what became of it. */
    text?: string;
  }): Promise<boolean> {
    return this.tookOne(
      `insert into inbox.replies (channel, message_ts, chat_user_id, user_id, state, created_at, text, workspace)
       values ($1, $2, $3, $4, 'sending', $5, $6, $7) on conflict do nothing returning message_ts`,
      [
        r.channel,
        r.messageTs,
        r.chatUserId,
        r.userId,
        r.now,
        r.text === undefined ? null : storable(r.text),
        this.workspace,
      ],
    );
  }

  /**
   * sending → unknown for every reply a stopped process left sending (at
   * start; claimed before `claimedBefore`): it may or may not have reached the API. Returns them, to tell
   * their writers; the process that sent one, if still running, records its
   * real outcome over unknown (finishReply). This workspace's.
   */
  settleSendingReplies(claimedBefore: Date): Promise<SendingReply[]> {
    return settleSending(dbOf(this), claimedBefore, this.workspace);
  }

  async finishReply(
    channel: string,
    messageTs: string,
    state: "sent" | "failed" | "unknown",
    apiMessageId?: number,
  ): Promise<void> {
    await dbOf(this).query(
      `update inbox.replies set state = $3, api_message_id = $4
       where channel = $1 and message_ts = $2 and workspace = $5 and (state in ('sending', 'unknown'))`,
      [channel, messageTs, state, apiMessageId ?? null, this.workspace],
    );
  }

  async repliesSent(channel: string): Promise<number> {
    const { rows } = await dbOf(this).query<{ n: string | number }>(
      "select count(*) as n from inbox.replies where channel = $1 and workspace = $2 and state = 'sent'",
      [channel, this.workspace],
    );
    return Number(rows[0]?.n ?? 0);
  }
}

export async function settleSending(
  db: Queryable,
  claimedBefore: Date,
  workspace: WorkspaceId | null,
): Promise<SendingReply[]> {
  const { rows } = await db.query<Row>(
    `update inbox.replies set state = 'unknown'
     where state = 'sending' and created_at <= $1 and ($2::text is null or workspace = $2) returning *`,
    [claimedBefore, workspace],
  );
  return rows.map((r) => ({
    workspace: String(r.workspace),
    channel: String(r.channel),
    messageTs: String(r.message_ts),
    chatUserId: Number(r.chat_user_id),
    userId: String(r.user_id),
    text: text(r.text),
    createdAt: date(r.created_at) as Date,
  }));
}
