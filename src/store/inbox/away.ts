import { dbOf } from "../per-workspace.ts";
import { InboxTable } from "./rows.ts";

/** Whose away message, for what: a conversation and the start of the closed period it is in. */
export interface AwayKey {
  conversationId: number;
  periodStart: Date;
}

export type AwayOutcome = "sent" | "unknown" | "refused";

export class AwaySends extends InboxTable {
  /**
   * Takes the away message of a conversation's closed period, in one
   * statement: true for the one caller that sends it; false when it was
   * taken before (sent, refused, unknown, or being sent), by anyone.
   */
  async claim(
    k: AwayKey & { channel: string; chatUserId: number },
    worker: string,
    now: Date,
  ): Promise<boolean> {
    return this.tookOne(
      `insert into inbox.away_sends (workspace, conversation_id, period_start, channel, chat_user_id, claimed_by, claimed_at)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing returning conversation_id`,
      [this.workspace, k.conversationId, k.periodStart, k.channel, k.chatUserId, worker, now],
    );
  }

  /** What became of a claimed away message; `messageId`: the API's, when it was sent. */
  async settle(k: AwayKey, outcome: AwayOutcome, now: Date, messageId?: number): Promise<void> {
    await dbOf(this).query(
      `update inbox.away_sends set state = $4, message_id = $5, settled_at = $6
       where workspace = $1 and conversation_id = $2 and period_start = $3 and state = 'sending'`,
      [this.workspace, k.conversationId, k.periodStart, outcome, messageId ?? null, now],
    );
  }

  /** The outcome of a conversation's away message of a closed period; undefined when none was claimed. */
  async outcome(k: AwayKey): Promise<AwayOutcome | "sending" | undefined> {
    const { rows } = await dbOf(this).query<{ state: string }>(
      "select state from inbox.away_sends where workspace = $1 and conversation_id = $2 and period_start = $3",
      [this.workspace, k.conversationId, k.periodStart],
    );
    return rows[0]?.state as AwayOutcome | "sending" | undefined;
  }

  /**
   * Whether the team wrote to the customer since `since`, in any inbox's
   * thread: a thread reply, a send, one from elsewhere, by the message's own
   * time (clocks.ts `replied` keeps it; an away message is no reply).
   */
  async teamWroteSince(chatUserId: number, since: Date): Promise<boolean> {
    const { rows } = await dbOf(this).query(
      `select 1 from inbox.threads where workspace = $1 and chat_user_id = $2 and team_wrote_at >= $3 limit 1`,
      [this.workspace, chatUserId, since],
    );
    return rows.length > 0;
  }
}
