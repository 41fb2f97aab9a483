// The inboxes: one per channel (its filter, chat types and replies), polled by
// the one process holding its lease.
import type { WorkspaceId } from "../../domain/workspace.ts";
import type { Queryable } from "../db.ts";
import { type Inbox, type InboxFilter, type InboxReplies, InboxTable, type Row, toInbox } from "./rows.ts";

export class Inboxes extends InboxTable {
  /** Creates the channel's inbox or changes its filter, chat types and replies; `created` says which. */
  async setInbox(
    channel: string,
    filter: InboxFilter,
    by: string,
    now: Date,
    routing: { types?: string[]; replies?: InboxReplies; ratingTemplate?: string | null } = {},
  ): Promise<{ inbox: Inbox; created: boolean; previous?: InboxFilter; before?: Inbox }> {
    const before = await this.inbox(channel);
    const { rows } = await this.db.query<Row>(
      `insert into inbox.inboxes (channel, filter, created_by, created_at, updated_at, types, replies, workspace, rating_template)
       values ($1, $2, $3, $4, $4, $5::text[], $6, $7, $8)
       on conflict (workspace, channel) do update set filter = excluded.filter, updated_at = excluded.updated_at,
         types = excluded.types, replies = excluded.replies, rating_template = excluded.rating_template
       returning *`,
      [
        channel,
        filter,
        by,
        now,
        routing.types ?? [],
        routing.replies ?? "send",
        this.workspace,
        routing.ratingTemplate ?? null,
      ],
    );
    return {
      inbox: toInbox(rows[0]!),
      created: !before,
      previous: before?.filter,
      ...(before ? { before } : {}),
    };
  }

  /**
   * Whether the workspace's away message goes out in the inbox's
   * conversations (issue 40 §1); `inbox on` leaves it as it is. The inbox
   * as it is now, with what it was; undefined when the channel has none.
   */
  async setAway(channel: string, on: boolean): Promise<{ inbox: Inbox; was: boolean } | undefined> {
    const before = await this.inbox(channel);
    if (!before) return undefined;
    const { rows } = await this.db.query<Row>(
      "update inbox.inboxes set away = $3 where channel = $1 and workspace = $2 returning *",
      [channel, this.workspace, on],
    );
    return rows[0] ? { inbox: toInbox(rows[0]), was: before.away } : undefined;
  }

  /** Stops mirroring into the channel; its threads are kept, so turning it on again finds them. */
  async removeInbox(channel: string): Promise<boolean> {
    const { rowCount } = await this.db.query(
      "delete from inbox.inboxes where channel = $1 and workspace = $2",
      [channel, this.workspace],
    );
    return rowCount > 0;
  }

  async inbox(channel: string): Promise<Inbox | undefined> {
    const { rows } = await this.db.query<Row>(
      "select * from inbox.inboxes where channel = $1 and workspace = $2",
      [channel, this.workspace],
    );
    return rows[0] ? toInbox(rows[0]) : undefined;
  }

  async inboxes(): Promise<Inbox[]> {
    return this.rowsOf(
      "select * from inbox.inboxes where workspace = $1 order by created_at, channel",
      toInbox,
    );
  }

  /**
   * Takes the lease of an inbox no other process holds (or whose lease ran
   * out), in one statement: of two processes asking at once, one polls it.
   */
  async claimInbox(channel: string, worker: string, now: Date, until: Date): Promise<Inbox | undefined> {
    const { rows } = await this.db.query<Row>(
      `update inbox.inboxes set lease_owner = $2, lease_until = $4
       where channel = $1 and workspace = $5
         and (lease_owner = $2 or lease_owner is null or lease_until is null or lease_until < $3)
       returning *`,
      [channel, worker, now, until, this.workspace],
    );
    return rows[0] ? toInbox(rows[0]) : undefined;
  }

  /** After a poll: how far it looked, whether the first cards are out, failures in a row. */
  async polled(
    channel: string,
    worker: string,
    p: {
      activityCursor?: Date | null;
      primed?: boolean;
      failures: number;
      /** Given (a number or null) when the list was read: where a burst goes on, and the newest seen. */
      listPage?: number | null;
      activityTop?: Date | null;
    },
  ): Promise<void> {
    await this.db.query(
      `update inbox.inboxes set activity_cursor = coalesce($3, activity_cursor), primed = primed or $4, failures = $5,
         list_page = case when $6 then $7::integer else list_page end,
         activity_top = case when $6 then $8::timestamptz else activity_top end
       where channel = $1 and lease_owner = $2 and workspace = $9`,
      [
        channel,
        worker,
        p.activityCursor ?? null,
        p.primed === true,
        p.failures,
        p.listPage !== undefined,
        p.listPage ?? null,
        p.activityTop ?? null,
        this.workspace,
      ],
    );
  }

  /**
   * Keeps the lease of an inbox while a pass runs (posting at 1 a second can
   * outlast it): false when another process holds it now, and this pass stops.
   */
  async renewLease(channel: string, worker: string, until: Date): Promise<boolean> {
    return this.tookOne(
      "update inbox.inboxes set lease_until = $3 where channel = $1 and lease_owner = $2 and workspace = $4 returning channel",
      [channel, worker, until, this.workspace],
    );
  }

  /** Lets go of every lease `worker` holds (a clean stop): another process may poll at once. */
  async release(worker: string): Promise<void> {
    await this.db.query(
      "update inbox.inboxes set lease_owner = null, lease_until = null where lease_owner = $1 and workspace = $2",
      [worker, this.workspace],
    );
  }
}

/** The workspaces with an inbox (many-workspace mode: their pollers start with the process). */
export async function workspacesWithInboxes(db: Queryable): Promise<WorkspaceId[]> {
  const { rows } = await db.query<{ workspace: string }>(
    "select distinct workspace from inbox.inboxes order by workspace",
  );
  return rows.map((r) => r.workspace);
}
