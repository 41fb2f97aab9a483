import { dbOf } from "../per-workspace.ts";
import { storable, storableJson } from "../text.ts";
import { type CardState, InboxTable, type Row, THREADS_WITH_DUE, type Thread, toThread } from "./rows.ts";

export class Threads extends InboxTable {
  async thread(channel: string, chatUserId: number): Promise<Thread | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from ${THREADS_WITH_DUE} where channel = $1 and chat_user_id = $2 and workspace = $3`,
      [channel, chatUserId, this.workspace],
    );
    return rows[0] ? toThread(rows[0]) : undefined;
  }

  /** The inbox thread whose parent card has this ts, if any. */
  async threadByTs(channel: string, threadTs: string): Promise<Thread | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from ${THREADS_WITH_DUE} where channel = $1 and thread_ts = $2 and workspace = $3`,
      [channel, threadTs, this.workspace],
    );
    return rows[0] ? toThread(rows[0]) : undefined;
  }

  /** Threads whose last message is the customer's, newest first (the ones waiting for an answer). */
  async waiting(channel?: string, limit = 20): Promise<Thread[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from inbox.threads where workspace = $3 and thread_ts is not null and last_direction = 'inbound'
         and ($1::text is null or channel = $1)
       order by last_message_at desc nulls last limit $2`,
      [channel ?? null, limit, this.workspace],
    );
    return rows.map(toThread);
  }

  /** Known chat user of the inbox (a thread row, posted or not yet). */
  async ensureThread(channel: string, chatUserId: number, now: Date): Promise<Thread> {
    const { rows } = await dbOf(this).query<Row>(
      `insert into inbox.threads (channel, chat_user_id, created_at, workspace) values ($1, $2, $3, $4)
       on conflict (workspace, channel, chat_user_id) do update set channel = excluded.channel returning *`,
      [channel, chatUserId, now, this.workspace],
    );
    return toThread(rows[0]!);
  }

  async updateThread(
    channel: string,
    chatUserId: number,
    p: {
      conversationId?: number;
      threadTs?: string;
      lastActivity?: Date;
      lastMessageAt?: Date;
      lastDirection?: "inbound" | "outbound";
      lastText?: string;
      card?: CardState;
      /** Given (true or false) when known: messages are left to mirror, and from where. */
      behind?: boolean;
      historyBefore?: Date | null;
    },
  ): Promise<void> {
    await dbOf(this).query(
      `update inbox.threads set
         conversation_id = coalesce($3, conversation_id),
         thread_ts = coalesce(thread_ts, $4),
         last_activity = greatest(last_activity, $5::timestamptz),
         last_message_at = greatest(last_message_at, $6::timestamptz),
         last_direction = case when $6::timestamptz is not null and (last_message_at is null or $6::timestamptz >= last_message_at)
                               then coalesce($7, last_direction) else last_direction end,
         last_text = case when $6::timestamptz is not null and (last_message_at is null or $6::timestamptz >= last_message_at)
                          then coalesce($9, last_text) else last_text end,
         card = coalesce($8::jsonb, card),
         behind = coalesce($10, behind),
         history_before = case when $10::boolean is null then history_before else $11::timestamptz end
       where channel = $1 and chat_user_id = $2 and workspace = $12`,
      [
        channel,
        chatUserId,
        p.conversationId ?? null,
        p.threadTs ?? null,
        p.lastActivity ?? null,
        p.lastMessageAt ?? null,
        p.lastDirection ?? null,
        p.card ? storableJson(p.card) : null,
        p.lastText === undefined ? null : storable(p.lastText.slice(0, 200)),
        p.behind ?? null,
        p.historyBefore ?? null,
        this.workspace,
      ],
    );
  }

  /** Threads a poll left with messages to mirror (a burst, a failure), oldest first. */
  async behindThreads(channel: string, limit: number): Promise<Thread[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from inbox.threads where channel = $1 and workspace = $3 and behind
       order by last_message_at nulls first limit $2`,
      [channel, limit, this.workspace],
    );
    return rows.map(toThread);
  }

  /**
   * Claims the post of a thread's card, before it is posted: one card per
   * chat user, whatever two processes do. `previous` is the claim the caller
   * saw (null, or a claim whose post never became a thread: a crash); the
   * claim is taken only if it is still that one.
   */
  async claimCard(
    channel: string,
    chatUserId: number,
    worker: string,
    previous: string | null,
    now: Date,
  ): Promise<boolean> {
    return this.tookOne(
      `update inbox.threads set card_claimed_by = $3, card_claimed_at = $5
       where channel = $1 and chat_user_id = $2 and workspace = $6 and thread_ts is null
         and card_claimed_by is not distinct from $4
       returning chat_user_id`,
      [channel, chatUserId, worker, previous, now, this.workspace],
    );
  }

  /** A card post that certainly did not reach Slack: the next poll may post it. */
  async releaseCard(channel: string, chatUserId: number, worker: string): Promise<void> {
    await dbOf(this).query(
      `update inbox.threads set card_claimed_by = null, card_claimed_at = null
       where channel = $1 and chat_user_id = $2 and workspace = $4 and thread_ts is null and card_claimed_by = $3`,
      [channel, chatUserId, worker, this.workspace],
    );
  }
}
