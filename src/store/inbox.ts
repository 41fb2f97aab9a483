// Schema `inbox`: the Slack channels that mirror customers' conversations
// (docs/inbox.md). One inbox per channel (its filter, its poll cursor, the
// lease of the process polling it); one thread per chat user per channel; one
// row per API message mirrored (the primary key makes two processes mirror it
// once); one row per thread reply sent to a customer (sent once, whatever
// Slack redelivers). Its own migration list.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { storable, storableJson } from "./text.ts";

export const INBOX_MIGRATIONS: MigrationSet = {
  schema: "inbox",
  migrations: [
    {
      id: "001_inbox",
      sql: `
create table inbox.inboxes (
  channel text primary key,
  filter text not null check (filter in ('all', 'need_human')),
  created_by text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  activity_cursor timestamptz,
  primed boolean not null default false,
  failures integer not null default 0,
  lease_owner text,
  lease_until timestamptz
)
;
create table inbox.threads (
  channel text not null,
  chat_user_id integer not null,
  conversation_id integer,
  thread_ts text,
  last_activity timestamptz,
  last_message_at timestamptz,
  last_direction text,
  last_text text,
  card jsonb,
  created_at timestamptz not null,
  primary key (channel, chat_user_id)
)
;
create unique index threads_by_ts on inbox.threads (channel, thread_ts) where thread_ts is not null
;
create table inbox.mirrored (
  channel text not null,
  message_id bigint not null,
  chat_user_id integer not null,
  direction text,
  ts text,
  mirrored_at timestamptz not null,
  primary key (channel, message_id)
)
;
create table inbox.replies (
  channel text not null,
  message_ts text not null,
  chat_user_id integer not null,
  user_id text not null,
  state text not null check (state in ('sending', 'sent', 'failed', 'unknown')),
  api_message_id bigint,
  created_at timestamptz not null,
  primary key (channel, message_ts)
)
`,
    },
    {
      // A burst read over several polls (the list's resume page, a
      // thread's history read oldest part first), the card claimed before it is
      // posted, claims that never became a post found again after a crash, and
      // the text of a reply a crash interrupted, to tell its writer.
      id: "002_inbox_reliability",
      sql: `
alter table inbox.inboxes add column list_page integer, add column activity_top timestamptz
;
alter table inbox.threads add column card_claimed_by text, add column card_claimed_at timestamptz,
  add column behind boolean not null default false, add column history_before timestamptz
;
alter table inbox.mirrored add column claimed_by text
;
alter table inbox.replies add column text text
`,
    },
    {
      // The thread as a desk. Its state (open or resolved; "waiting
      // for the customer" is an open one answered last), who has it, and the
      // customer's last message (the 24-hour window), kept by Switchboard.
      id: "003_desk",
      sql: `
alter table inbox.threads add column desk_state text not null default 'open' check (desk_state in ('open', 'resolved')),
  add column assignee text, add column desk_changed_by text, add column desk_changed_at timestamptz,
  add column customer_wrote_at timestamptz, add column window_closed_shown boolean not null default false
`,
    },
    {
      // Routing: an inbox takes some chat types (empty: every one) and may
      // make every thread reply a note; a conversation is mirrored into one
      // inbox (its route, one row per chat user), first the one its oldest
      // thread is in.
      id: "004_routing",
      sql: `
alter table inbox.inboxes add column types text[] not null default '{}',
  add column replies text not null default 'send' check (replies in ('send', 'notes'))
;
create table inbox.routes (
  chat_user_id integer primary key,
  channel text not null,
  routed_at timestamptz not null
)
;
insert into inbox.routes (chat_user_id, channel, routed_at)
  select distinct on (chat_user_id) chat_user_id, channel, created_at from inbox.threads
  where thread_ts is not null or card_claimed_by is not null
  order by chat_user_id, created_at, channel
`,
    },
    {
      // Per workspace: an inbox by (workspace, channel), a conversation by its
      // chat user of that workspace's API account. The rows kept before belong to "env".
      id: "005_workspace",
      sql: `
alter table inbox.inboxes add column workspace text not null default 'env'
;
alter table inbox.inboxes alter column workspace drop default
;
alter table inbox.inboxes drop constraint inboxes_pkey, add primary key (workspace, channel)
;
alter table inbox.threads add column workspace text not null default 'env'
;
alter table inbox.threads alter column workspace drop default
;
alter table inbox.threads drop constraint threads_pkey, add primary key (workspace, channel, chat_user_id)
;
drop index inbox.threads_by_ts
;
create unique index threads_by_ts on inbox.threads (workspace, channel, thread_ts) where thread_ts is not null
;
alter table inbox.mirrored add column workspace text not null default 'env'
;
alter table inbox.mirrored alter column workspace drop default
;
alter table inbox.mirrored drop constraint mirrored_pkey, add primary key (workspace, channel, message_id)
;
alter table inbox.replies add column workspace text not null default 'env'
;
alter table inbox.replies alter column workspace drop default
;
alter table inbox.replies drop constraint replies_pkey, add primary key (workspace, channel, message_ts)
;
alter table inbox.routes add column workspace text not null default 'env'
;
alter table inbox.routes alter column workspace drop default
;
alter table inbox.routes drop constraint routes_pkey, add primary key (workspace, chat_user_id)
`,
    },
  ],
};

export type InboxFilter = "all" | "need_human";
/** `send`: a writer's thread reply goes to the customer; `notes`: every thread reply is a note. */
export type InboxReplies = "send" | "notes";

export interface Inbox {
  channel: string;
  filter: InboxFilter;
  /** The chat types it takes (`phonechat`, `chat_web`…); empty: every type. */
  types: string[];
  replies: InboxReplies;
  createdBy: string;
  createdAt: Date;
  /** The newest chat-user activity already looked at; the next poll lists from a little before it. */
  activityCursor: Date | null;
  /** The first cards (conversations already unread or needing a human) are posted. */
  primed: boolean;
  /**
   * A burst larger than one poll reads: the list page the next poll goes on
   * from (the cursor stays until the burst is read), and the newest activity
   * already looked at.
   */
  listPage: number | null;
  activityTop: Date | null;
  failures: number;
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

/** What the thread's parent card shows; compared to decide whether the card needs an update. */
export interface CardState {
  name: string;
  contact?: string;
  type?: string;
  needHuman: boolean;
  answered: boolean;
  tags: string[];
  lastActivity?: string;
  contactId?: number;
  /** The messaging channel (integration) the chat user writes on: thread replies are sent there. */
  channelId?: number;
}

export interface Thread {
  channel: string;
  chatUserId: number;
  conversationId: number | null;
  /** The parent card's ts; null until it is posted. */
  threadTs: string | null;
  lastActivity: Date | null;
  lastMessageAt: Date | null;
  lastDirection: "inbound" | "outbound" | null;
  /** The start of the last message mirrored, for `/sb inbox`. */
  lastText: string | null;
  card: CardState | null;
  createdAt: Date;
  /** The process that claimed the card's post (before posting it); null when none did. */
  cardClaimedBy: string | null;
  cardClaimedAt: Date | null;
  /** Messages are left to mirror (a burst, or a failure): the next poll follows it whatever the list says. */
  behind: boolean;
  /** A burst is read oldest part first: the next history read is of the messages before this. */
  historyBefore: Date | null;
  /** The desk (issue 20): open or resolved, who has it, the customer's last message (the 24-hour window). */
  deskState: DeskState;
  assignee: string | null;
  customerWroteAt: Date | null;
  /** The card was redrawn with "Window closed" (by the poller's clock) since the customer last wrote. */
  windowClosedShown: boolean;
}

export type DeskState = "open" | "resolved";

/** Free text reaches a customer within this long after their last message. */
export const REPLY_WINDOW_MS = 24 * 3_600_000;

/** A mirrored row: posted (ts), or claimed by a process (`by`) whose post may not have happened. */
export type MirrorState = { state: "none" | "posted" } | { state: "claimed"; by: string | null };

export interface SendingReply {
  workspace: WorkspaceId;
  channel: string;
  messageTs: string;
  chatUserId: number;
  userId: string;
  text: string | null;
  createdAt: Date;
}

type Row = Record<string, unknown>;
const date = (v: unknown): Date | null =>
  v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v));
const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const json = <T>(v: unknown): T | null =>
  v === null || v === undefined ? null : ((typeof v === "string" ? JSON.parse(v) : v) as T);

const toInbox = (r: Row): Inbox => ({
  channel: String(r.channel),
  filter: r.filter as InboxFilter,
  types: Array.isArray(r.types) ? r.types.map(String) : [],
  replies: r.replies === "notes" ? "notes" : "send",
  createdBy: String(r.created_by),
  createdAt: date(r.created_at) as Date,
  activityCursor: date(r.activity_cursor),
  primed: r.primed === true,
  failures: Number(r.failures ?? 0),
  listPage: r.list_page === null || r.list_page === undefined ? null : Number(r.list_page),
  activityTop: date(r.activity_top),
  leaseOwner: text(r.lease_owner),
  leaseUntil: date(r.lease_until),
});

const toThread = (r: Row): Thread => ({
  channel: String(r.channel),
  chatUserId: Number(r.chat_user_id),
  conversationId:
    r.conversation_id === null || r.conversation_id === undefined ? null : Number(r.conversation_id),
  threadTs: text(r.thread_ts),
  lastActivity: date(r.last_activity),
  lastMessageAt: date(r.last_message_at),
  lastDirection: text(r.last_direction) as Thread["lastDirection"],
  lastText: text(r.last_text),
  card: json<CardState>(r.card),
  createdAt: date(r.created_at) as Date,
  cardClaimedBy: text(r.card_claimed_by),
  cardClaimedAt: date(r.card_claimed_at),
  behind: r.behind === true,
  historyBefore: date(r.history_before),
  deskState: r.desk_state === "resolved" ? "resolved" : "open",
  assignee: text(r.assignee),
  customerWroteAt: date(r.customer_wrote_at),
  windowClosedShown: r.window_closed_shown === true,
});

export class InboxStore {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;

  /** One workspace's inboxes, threads and replies: every statement names the workspace. */
  constructor(db: Queryable, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
  }

  /** Creates the channel's inbox or changes its filter, chat types and replies; `created` says which. */
  async setInbox(
    channel: string,
    filter: InboxFilter,
    by: string,
    now: Date,
    routing: { types?: string[]; replies?: InboxReplies } = {},
  ): Promise<{ inbox: Inbox; created: boolean; previous?: InboxFilter; before?: Inbox }> {
    const before = await this.inbox(channel);
    const { rows } = await this.db.query<Row>(
      `insert into inbox.inboxes (channel, filter, created_by, created_at, updated_at, types, replies, workspace)
       values ($1, $2, $3, $4, $4, $5::text[], $6, $7)
       on conflict (workspace, channel) do update set filter = excluded.filter, updated_at = excluded.updated_at,
         types = excluded.types, replies = excluded.replies
       returning *`,
      [channel, filter, by, now, routing.types ?? [], routing.replies ?? "send", this.workspace],
    );
    return {
      inbox: toInbox(rows[0]!),
      created: !before,
      previous: before?.filter,
      ...(before ? { before } : {}),
    };
  }

  /** The inbox a conversation is mirrored into, once one took it. */
  async routeOf(chatUserId: number): Promise<string | undefined> {
    const { rows } = await this.db.query<Row>(
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
    const { rows } = await this.db.query(
      `insert into inbox.routes (chat_user_id, channel, routed_at, workspace) values ($1, $2, $4, $5)
       on conflict (workspace, chat_user_id) do update set channel = excluded.channel, routed_at = excluded.routed_at
         where inbox.routes.channel = $2 or inbox.routes.channel = $3
       returning chat_user_id`,
      [chatUserId, channel, previous ?? channel, now, this.workspace],
    );
    return rows.length === 1;
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
    const { rows } = await this.db.query<Row>(
      "select * from inbox.inboxes where workspace = $1 order by created_at, channel",
      [this.workspace],
    );
    return rows.map(toInbox);
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
    const { rows } = await this.db.query(
      "update inbox.inboxes set lease_until = $3 where channel = $1 and lease_owner = $2 and workspace = $4 returning channel",
      [channel, worker, until, this.workspace],
    );
    return rows.length === 1;
  }

  /** Lets go of every lease `worker` holds (a clean stop): another process may poll at once. */
  async release(worker: string): Promise<void> {
    await this.db.query(
      "update inbox.inboxes set lease_owner = null, lease_until = null where lease_owner = $1 and workspace = $2",
      [worker, this.workspace],
    );
  }

  async thread(channel: string, chatUserId: number): Promise<Thread | undefined> {
    const { rows } = await this.db.query<Row>(
      "select * from inbox.threads where channel = $1 and chat_user_id = $2 and workspace = $3",
      [channel, chatUserId, this.workspace],
    );
    return rows[0] ? toThread(rows[0]) : undefined;
  }

  /** The inbox thread whose parent card has this ts, if any. */
  async threadByTs(channel: string, threadTs: string): Promise<Thread | undefined> {
    const { rows } = await this.db.query<Row>(
      "select * from inbox.threads where channel = $1 and thread_ts = $2 and workspace = $3",
      [channel, threadTs, this.workspace],
    );
    return rows[0] ? toThread(rows[0]) : undefined;
  }

  /** Threads whose last message is the customer's, newest first (the ones waiting for an answer). */
  async waiting(channel?: string, limit = 20): Promise<Thread[]> {
    const { rows } = await this.db.query<Row>(
      `select * from inbox.threads where workspace = $3 and thread_ts is not null and last_direction = 'inbound'
         and ($1::text is null or channel = $1)
       order by last_message_at desc nulls last limit $2`,
      [channel ?? null, limit, this.workspace],
    );
    return rows.map(toThread);
  }

  /** Known chat user of the inbox (a thread row, posted or not yet). */
  async ensureThread(channel: string, chatUserId: number, now: Date): Promise<Thread> {
    const { rows } = await this.db.query<Row>(
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
    await this.db.query(
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
    const { rows } = await this.db.query<Row>(
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
    const { rows } = await this.db.query(
      `update inbox.threads set card_claimed_by = $3, card_claimed_at = $5
       where channel = $1 and chat_user_id = $2 and workspace = $6 and thread_ts is null
         and card_claimed_by is not distinct from $4
       returning chat_user_id`,
      [channel, chatUserId, worker, previous, now, this.workspace],
    );
    return rows.length === 1;
  }

  /** A card post that certainly did not reach Slack: the next poll may post it. */
  async releaseCard(channel: string, chatUserId: number, worker: string): Promise<void> {
    await this.db.query(
      `update inbox.threads set card_claimed_by = null, card_claimed_at = null
       where channel = $1 and chat_user_id = $2 and workspace = $4 and thread_ts is null and card_claimed_by = $3`,
      [channel, chatUserId, worker, this.workspace],
    );
  }

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
    const { rows } = await this.db.query(
      `insert into inbox.mirrored (channel, message_id, chat_user_id, direction, ts, mirrored_at, claimed_by, workspace)
       values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict do nothing returning message_id`,
      [channel, messageId, chatUserId, direction ?? null, ts ?? null, now, worker ?? null, this.workspace],
    );
    return rows.length === 1;
  }

  /** Whether a message is posted, claimed without a post (in flight, or left by a crash), or neither. */
  async mirrorState(channel: string, messageId: number): Promise<MirrorState> {
    const { rows } = await this.db.query<Row>(
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
    const { rows } = await this.db.query(
      `update inbox.mirrored set claimed_by = $3, mirrored_at = $5
       where channel = $1 and message_id = $2 and workspace = $6 and ts is null
         and claimed_by is not distinct from $4
       returning message_id`,
      [channel, messageId, worker, previous, now, this.workspace],
    );
    return rows.length === 1;
  }

  async mirroredTs(channel: string, messageId: number, ts: string): Promise<void> {
    await this.db.query(
      "update inbox.mirrored set ts = $3 where channel = $1 and message_id = $2 and workspace = $4",
      [channel, messageId, ts, this.workspace],
    );
  }

  /** A post that certainly did not reach Slack: the message may be mirrored again on the next poll. */
  async unclaimMessage(channel: string, messageId: number): Promise<void> {
    await this.db.query(
      "delete from inbox.mirrored where channel = $1 and message_id = $2 and workspace = $3 and ts is null",
      [channel, messageId, this.workspace],
    );
  }

  async mirroredCount(channel: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>(
      "select count(*) as n from inbox.mirrored where channel = $1 and workspace = $2",
      [channel, this.workspace],
    );
    return Number(rows[0]?.n ?? 0);
  }

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
    const { rows } = await this.db.query(
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
    return rows.length === 1;
  }

  /**
   * sending → unknown for every reply a stopped process left sending (at
   * start; claimed before `claimedBefore`): it may or may not have reached the API. Returns them, to tell
   * their writers; the process that sent one, if still running, records its
   * real outcome over unknown (finishReply). This workspace's.
   */
  settleSendingReplies(claimedBefore: Date): Promise<SendingReply[]> {
    return settleSending(this.db, claimedBefore, this.workspace);
  }

  /** The workspaces with an inbox (many-workspace mode: their pollers start with the process). */
  static async workspacesWithInboxes(db: Queryable): Promise<WorkspaceId[]> {
    const { rows } = await db.query<{ workspace: string }>(
      "select distinct workspace from inbox.inboxes order by workspace",
    );
    return rows.map((r) => r.workspace);
  }

  /** settleSendingReplies of every workspace (the start), each reply with its `workspace`. */
  static settleSendingRepliesAll(db: Queryable, claimedBefore: Date): Promise<SendingReply[]> {
    return settleSending(db, claimedBefore, null);
  }

  async finishReply(
    channel: string,
    messageTs: string,
    state: "sent" | "failed" | "unknown",
    apiMessageId?: number,
  ): Promise<void> {
    await this.db.query(
      `update inbox.replies set state = $3, api_message_id = $4
       where channel = $1 and message_ts = $2 and workspace = $5 and (state in ('sending', 'unknown'))`,
      [channel, messageTs, state, apiMessageId ?? null, this.workspace],
    );
  }

  async repliesSent(channel: string): Promise<number> {
    const { rows } = await this.db.query<{ n: string | number }>(
      "select count(*) as n from inbox.replies where channel = $1 and workspace = $2 and state = 'sent'",
      [channel, this.workspace],
    );
    return Number(rows[0]?.n ?? 0);
  }

  // --- The desk (issue 20): state and assignee per thread, each change one statement. ---

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
    const { rows } = await this.db.query<Row>(
      `update inbox.threads set assignee = $3, desk_changed_by = $4, desk_changed_at = $5
       where channel = $1 and chat_user_id = $2 and workspace = $7 and assignee is distinct from $3
         and (not $6 or assignee is null)
       returning assignee`,
      [channel, chatUserId, userId, by, now, onlyIfFree, this.workspace],
    );
    if (rows[0]) return { changed: true, holder: userId };
    const t = await this.thread(channel, chatUserId);
    return { changed: false, holder: t?.assignee ?? null };
  }

  /** Nobody has it any more; false when nobody had it. */
  async unassign(channel: string, chatUserId: number, by: string, now: Date): Promise<boolean> {
    const { rows } = await this.db.query(
      `update inbox.threads set assignee = null, desk_changed_by = $3, desk_changed_at = $4
       where channel = $1 and chat_user_id = $2 and workspace = $5 and assignee is not null returning chat_user_id`,
      [channel, chatUserId, by, now, this.workspace],
    );
    return rows.length === 1;
  }

  /** Open → resolved or back; false when it already was in that state (someone else was first). */
  async setDeskState(
    channel: string,
    chatUserId: number,
    state: DeskState,
    by: string,
    now: Date,
  ): Promise<boolean> {
    const { rows } = await this.db.query(
      `update inbox.threads set desk_state = $3, desk_changed_by = $4, desk_changed_at = $5
       where channel = $1 and chat_user_id = $2 and workspace = $6 and desk_state <> $3 returning chat_user_id`,
      [channel, chatUserId, state, by, now, this.workspace],
    );
    return rows.length === 1;
  }

  /**
   * The customer wrote (a mirrored customer message at `at`): the reply window
   * moves, and a resolved conversation is open again (`reopened`).
   */
  async customerWrote(channel: string, chatUserId: number, at: Date): Promise<{ reopened: boolean }> {
    const { rows } = await this.db.query<Row>(
      `update inbox.threads t set customer_wrote_at = greatest(t.customer_wrote_at, $3::timestamptz),
         window_closed_shown = false, desk_state = 'open',
         desk_changed_by = case when t.desk_state = 'resolved' then 'customer' else t.desk_changed_by end,
         desk_changed_at = case when t.desk_state = 'resolved' then $3::timestamptz else t.desk_changed_at end
       from inbox.threads old
       where t.channel = $1 and t.chat_user_id = $2 and t.workspace = $4
         and old.workspace = t.workspace and old.channel = t.channel and old.chat_user_id = t.chat_user_id
       returning old.desk_state as was`,
      [channel, chatUserId, at, this.workspace],
    );
    return { reopened: rows[0]?.was === "resolved" };
  }

  /** Threads whose reply window closed before `before` and whose card does not say so yet. */
  async windowsClosed(channel: string, before: Date, limit = 20): Promise<Thread[]> {
    const { rows } = await this.db.query<Row>(
      `select * from inbox.threads where channel = $1 and workspace = $4 and thread_ts is not null and card is not null
         and not window_closed_shown and customer_wrote_at < $2::timestamptz - interval '24 hours'
       order by customer_wrote_at limit $3`,
      [channel, before, limit, this.workspace],
    );
    return rows.map(toThread);
  }

  async windowClosedShown(channel: string, chatUserId: number): Promise<void> {
    await this.db.query(
      "update inbox.threads set window_closed_shown = true where channel = $1 and chat_user_id = $2 and workspace = $3",
      [channel, chatUserId, this.workspace],
    );
  }

  /** Conversations with a thread, latest message first, optionally only those `assignee` has. */
  async desk(p: { assignee?: string; limit: number }): Promise<Thread[]> {
    const { rows } = await this.db.query<Row>(
      `select * from inbox.threads where workspace = $3 and thread_ts is not null and ($1::text is null or assignee = $1)
       order by last_message_at desc nulls last limit $2`,
      [p.assignee ?? null, p.limit, this.workspace],
    );
    return rows.map(toThread);
  }
}

async function settleSending(
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
