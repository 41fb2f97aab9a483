// What the inbox's tables hold, as the rest of Switchboard reads it: an
// inbox, a thread and its card, a reply; rows turned into them; the base of
// every table's class (one workspace's rows: every statement names it).
import type { WorkspaceId } from "../../domain/workspace.ts";
import { PerWorkspace } from "../per-workspace.ts";

export type InboxFilter = "all" | "need_human";
/** `send`: a writer's thread reply goes to the customer; `notes`: every thread reply is a note. */
export type InboxReplies = "send" | "notes";

export interface Inbox {
  channel: string;
  filter: InboxFilter;
  /** The chat types it takes (`phonechat`, `chat_web`…); empty: every type. */
  types: string[];
  replies: InboxReplies;
  /** The approved template sent to the customer on Resolve, asking for a rating (issue 29 §4); null: none. */
  ratingTemplate: string | null;
  /** The workspace's away message goes out in its conversations (issue 40 §1); `inbox away off` turns it off here. */
  away: boolean;
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
  /** Snoozed (issue 29 §3): until a time, or until the customer writes; by whom. */
  snoozedUntil: Date | null;
  snoozeUntilReply: boolean;
  snoozedBy: string | null;
  /** The rating asked on Resolve (issue 29 §4): when, the answers offered, the one given. */
  ratingAskedAt: Date | null;
  ratingOptions: string[];
  rating: string | null;
  /**
   * The reply target running now (issue 29 §2: its clock in inbox.clocks),
   * when the thread was read with it (THREADS_WITH_DUE); null or absent: none.
   */
  due?: ThreadDue | null;
}

/** What a card's desk part is drawn from: its state, who has it, the customer's last message, the reply target; the snooze and the rating when known. */
export type ThreadDesk = Pick<Thread, "deskState" | "assignee" | "customerWroteAt" | "due"> &
  Partial<Pick<Thread, "snoozedUntil" | "snoozeUntilReply" | "snoozedBy" | "rating">>;

/** Whether a thread is snoozed now (until a time, or until the customer writes). */
export const isSnoozed = (t: Pick<Thread, "snoozedUntil" | "snoozeUntilReply">): boolean =>
  t.snoozeUntilReply || t.snoozedUntil !== null;

/** What a thread's running reply target shows: when a reply is due, which target, whether it was missed. */
export interface ThreadDue {
  at: Date;
  kind: "first" | "next";
  missed: boolean;
}

/**
 * Threads with their running reply target (the clock not ended, at most one
 * a thread): `select * from ${THREADS_WITH_DUE} where …` names the thread's
 * columns as before, plus due_at, due_kind, due_breached_at.
 */
export const THREADS_WITH_DUE = `inbox.threads t left join lateral (
  select c.due_at, c.kind as due_kind, c.breached_at as due_breached_at from inbox.clocks c
  where c.workspace = t.workspace and c.channel = t.channel and c.chat_user_id = t.chat_user_id and c.ended_at is null
) due on true`;

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

export type Row = Record<string, unknown>;
export const date = (v: unknown): Date | null =>
  v === null || v === undefined ? null : v instanceof Date ? v : new Date(String(v));
export const text = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
export const json = <T>(v: unknown): T | null =>
  v === null || v === undefined ? null : ((typeof v === "string" ? JSON.parse(v) : v) as T);

export const toInbox = (r: Row): Inbox => ({
  channel: String(r.channel),
  filter: r.filter as InboxFilter,
  types: Array.isArray(r.types) ? r.types.map(String) : [],
  replies: r.replies === "notes" ? "notes" : "send",
  ratingTemplate: text(r.rating_template),
  away: r.away !== false,
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

export const toThread = (r: Row): Thread => ({
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
  snoozedUntil: date(r.snoozed_until),
  snoozeUntilReply: r.snooze_until_reply === true,
  snoozedBy: text(r.snoozed_by),
  ratingAskedAt: date(r.rating_asked_at),
  ratingOptions: Array.isArray(r.rating_options) ? r.rating_options.map(String) : [],
  rating: text(r.rating),
  due: r.due_at
    ? {
        at: date(r.due_at) as Date,
        kind: r.due_kind === "first" ? "first" : "next",
        missed: r.due_breached_at !== null && r.due_breached_at !== undefined,
      }
    : null,
});

/** One workspace's rows of a table of schema `inbox`: every statement names the workspace. */
export class InboxTable extends PerWorkspace {}
