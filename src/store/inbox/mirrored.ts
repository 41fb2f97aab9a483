import { dbOf } from "../per-workspace.ts";
import { InboxTable, type MirrorState, type Row, text } from "./rows.ts";

export class Mirrored extends InboxTable {
  /**
   * Claims one API message for one channel: true for the one caller that
   * inserted the row (it posts), false when it was mirrored (or is being
   * mirrored) already, by this process or another.
   */
  async claimMessage(
    channel: string,
    messageId: number,
    chatUserId: number,
    direction: string | undefined,
    now: Date,
    ts?: string,
    worker?: string,
  ): Promise<boolean> {
    return this.tookOne(
      `insert into inbox.mirrored (channel, message_id, chat_user_id, direction, ts, mirrored_at, claimed_by, workspace)
       values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing returning message_id`,
      [channel, messageId, chatUserId, direction ?? null, ts ?? null, now, worker ?? null, this.workspace],
    );
  }

  /** Whether a message is posted, claimed without a post (in flight, or left by a crash), or neither. */
  async mirrorState(channel: string, messageId: number): Promise<MirrorState> {
    const { rows } = await dbOf(this).query<Row>(
      "select ts, claimed_by from inbox.mirrored where channel = $1 and message_id = $2 and workspace = $3",
      [channel, messageId, this.workspace],
    );
    if (!rows[0]) return { state: "none" };
    if (rows[0].ts !== null && rows[0].ts !== undefined) return { state: "posted" };
    return { state: "claimed", by: text(rows[0].claimed_by) };
  }

  /**
   * Takes over a claim that never became a post (its process stopped, or its
   * post's outcome is unknown), for the inbox's lease holder: true when the
   * claim was still `previous` (the one the caller saw).
   */
  async takeOverClaim(
    channel: string,
    messageId: number,
    worker: string,
    previous: string | null,
    now: Date,
  ): Promise<boolean> {
    return this.tookOne(
      `update inbox.mirrored set claimed_by = $3, mirrored_at = $5
       where channel = $1 and message_id = $2 and workspace = $6 and ts is null
         and claimed_by is not distinct from $4
       returning message_id`,
      [channel, messageId, worker, previous, now, this.workspace],
    );
  }

  async mirroredTs(channel: string, messageId: number, ts: string): Promise<void> {
    await dbOf(this).query(
      "update inbox.mirrored set ts = $3 where channel = $1 and message_id = $2 and workspace = $4",
      [channel, messageId, ts, this.workspace],
    );
  }

  /** A post that certainly did not reach Slack: the message may be mirrored again on the next poll. */
  async unclaimMessage(channel: string, messageId: number): Promise<void> {
    await dbOf(this).query(
      "delete from inbox.mirrored where channel = $1 and message_id = $2 and workspace = $3 and ts is null",
      [channel, messageId, this.workspace],
    );
  }

  async mirroredCount(channel: string): Promise<number> {
    const { rows } = await dbOf(this).query<{ n: string | number }>(
      "select count(*) as n from inbox.mirrored where channel = $1 and workspace = $2",
      [channel, this.workspace],
    );
    return Number(rows[0]?.n ?? 0);
  }
}
