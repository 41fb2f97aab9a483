// The inbox poller: customers' conversations mirrored into Slack threads
// (docs/inbox.md). The API has no webhooks, so each inbox is polled:
//   1. one GET /chat-users, sorted by last_activity newest first (with
//      needHuman=true for a need-human inbox), read until the activity is
//      older than what was already looked at: idle, one read a poll;
//   2. a history (GET /conversations/{id}/messages) only for the chat users
//      whose activity moved, `after` a little before the last message already
//      mirrored, duplicates dropped by message id (two messages can share a time);
//   3. each new message posted once in the chat user's thread, through the
//      per-channel post queue (1 message a second), the card updated when the
//      conversation's state changed.
// Every API call is in the client's background lane: it waits for people's
// commands, never the other way round. Two processes on one database: an
// inbox is polled by the process holding its lease, and a message is posted
// by the one process that inserted its row (inbox.mirrored).
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KnownBlock } from "@slack/types";
import {
  chatUserActivity,
  chatUserChannelId,
  chatUserContactId,
  chatUserConversationId,
  chatUserHasUnread,
  chatUserMessages,
  chatUserNeedsHuman,
  chatUserTagIds,
  messageConversationId,
  messageDirection,
  messageMediaUrl,
  messageTime,
} from "../../api/inbox.ts";
import type { ChatUser, Message, MessagingApi } from "../../api/types.ts";
import { inboxPassDone, metrics } from "../../metrics.ts";
import type { Db } from "../../store/db.ts";
import { type CardState, INBOX_MIGRATIONS, type Inbox, InboxStore } from "../../store/inbox.ts";
import { migrate } from "../../store/migrate.ts";
import { PacedLoop } from "../paced-loop.ts";
import { cardMessage, messageReply } from "./render.ts";

export interface InboxLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Posts one message through the per-channel queue; returns its ts. Throws Slack's error. */
export type InboxPost = (args: {
  channel: string;
  text: string;
  blocks: KnownBlock[];
  thread_ts?: string;
}) => Promise<{ ts?: string }>;

export type InboxUpdate = (
  channel: string,
  ts: string,
  message: { text: string; blocks: KnownBlock[] },
) => Promise<void>;

export interface InboxPollerOptions {
  db: Db;
  client: MessagingApi;
  post: InboxPost;
  update: InboxUpdate;
  /** INBOX_POLL_SECONDS: the pace of the polls (default 10). */
  pollSeconds?: number;
  /** INBOX_LOOKBACK_HOURS: how far back a poll catches up after downtime (default 24). */
  lookbackHours?: number;
  now?: () => Date;
  workerId?: string;
  /** How long a lease outlives the poll it was taken for (default 30 s). */
  leaseMs?: number;
  logger?: InboxLogger;
}

export interface InboxStepResult {
  /** API reads made (lists, chat users, histories, tags). */
  reads: number;
  /** Messages posted in threads. */
  posted: number;
  /** Threads created (cards posted). */
  threads: number;
}

/** The first cards of a new inbox: conversations already unread or needing a human. */
export const FIRST_CARDS = 20;
/** Chat users read per list page. */
const LIST_LIMIT = 25;
/** At most this many list pages a poll (a burst of activity is read over the next polls). */
const MAX_LIST_PAGES = 4;
const HISTORY_LIMIT = 50;
const MAX_HISTORY_PAGES = 4;
/** `after` starts this much before the last message mirrored: two messages can share a time. */
const OVERLAP_MS = 2_000;
const TAGS_CACHE_MS = 10 * 60_000;
/**
 * Above this many moved conversations in one poll, the moved ones are listed
 * again with their latest messages (`includeMessages=true`: one read a page)
 * instead of one history read each; a history is still read for a
 * conversation whose included messages do not reach back far enough.
 */
const INCLUDE_MESSAGES_ABOVE = 4;

const silent: InboxLogger = { info() {}, warn() {} };
const slackCode = (err: unknown) => (err as { data?: { error?: string } }).data?.error;
const GONE = new Set(["channel_not_found", "not_in_channel", "is_archived", "channel_is_archived"]);

export class InboxPoller {
  readonly store: InboxStore;
  readonly workerId: string;
  private readonly now: () => Date;
  private readonly pollMs: number;
  private readonly lookbackMs: number;
  private readonly leaseMs: number;
  private readonly log: InboxLogger;
  private readonly loop: PacedLoop<InboxStepResult>;
  private tags: { at: number; names: Map<number, string> } | undefined;
  private reads = 0;

  private readonly opts: InboxPollerOptions;

  constructor(opts: InboxPollerOptions) {
    this.opts = opts;
    this.store = new InboxStore(opts.db);
    this.now = opts.now ?? (() => new Date());
    this.pollMs = (opts.pollSeconds ?? 10) * 1000;
    this.lookbackMs = (opts.lookbackHours ?? 24) * 3_600_000;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.log = opts.logger ?? silent;
    this.loop = new PacedLoop({
      pass: () =>
        this.pass().then((r) => {
          inboxPassDone();
          metrics.inboxMirrored.inc(r.posted);
          return r;
        }),
      // Slower after failures.
      next: async () => {
        const failures = Math.max(0, ...(await this.store.inboxes().catch(() => [])).map((i) => i.failures));
        return this.pollMs * 2 ** Math.min(failures, 5);
      },
      onError: (err) => this.log.warn({ err: (err as Error).message }, "inbox pass failed"),
    });
  }

  async migrate(): Promise<void> {
    await migrate(this.opts.db, INBOX_MIGRATIONS);
  }

  /** One poll of every inbox this process holds or can claim. Passes never overlap. */
  step(): Promise<InboxStepResult> {
    return this.loop.step();
  }

  private async pass(): Promise<InboxStepResult> {
    const result: InboxStepResult = { reads: 0, posted: 0, threads: 0 };
    for (const listed of await this.store.inboxes()) {
      const at = this.now();
      const inbox = await this.store.claimInbox(
        listed.channel,
        this.workerId,
        at,
        new Date(at.getTime() + this.pollMs + this.leaseMs),
      );
      if (!inbox) continue;
      this.reads = 0;
      try {
        const r = await this.pollInbox(inbox);
        result.posted += r.posted;
        result.threads += r.threads;
      } catch (err) {
        await this.store.polled(inbox.channel, this.workerId, { failures: inbox.failures + 1 });
        this.log.warn(
          { channel: inbox.channel, err: (err as Error).message, code: slackCode(err) },
          "inbox poll failed; will retry",
        );
      }
      result.reads += this.reads;
    }
    return result;
  }

  private read<T>(p: Promise<T>): Promise<T> {
    this.reads++;
    return p;
  }

  private async pollInbox(inbox: Inbox): Promise<{ posted: number; threads: number }> {
    const now = this.now();
    const floor = new Date(now.getTime() - this.lookbackMs);
    const out = { posted: 0, threads: 0 };
    const api = this.opts.client;
    const needHuman = inbox.filter === "need_human" ? true : undefined;

    if (!inbox.primed) {
      // From now on, plus one card for each conversation already unread or needing a human.
      const lists = [
        this.read(
          api.listChatUsers(
            { needHuman: true, sortBy: "last_activity", sortOrder: "DESC", limit: FIRST_CARDS },
            { lane: "background" },
          ),
        ),
      ];
      if (!needHuman)
        lists.push(
          this.read(
            api.listChatUsers(
              { hasUnreadMessages: true, sortBy: "last_activity", sortOrder: "DESC", limit: FIRST_CARDS },
              { lane: "background" },
            ),
          ),
        );
      const seen = new Map<number, ChatUser>();
      for (const page of await Promise.all(lists))
        for (const u of page.items) if (typeof u.id === "number") seen.set(u.id, u);
      const users = [...seen.values()]
        .sort((a, b) => (chatUserActivity(b)?.getTime() ?? 0) - (chatUserActivity(a)?.getTime() ?? 0))
        .slice(0, FIRST_CARDS)
        // Oldest first, so the newest card ends at the bottom of the channel.
        .reverse();
      for (const u of users) {
        const r = await this.follow(inbox, u, floor, {
          force: chatUserNeedsHuman(u) || chatUserHasUnread(u),
        });
        out.posted += r.posted;
        out.threads += r.created ? 1 : 0;
      }
      await this.store.polled(inbox.channel, this.workerId, {
        activityCursor: now,
        primed: true,
        failures: 0,
      });
      return out;
    }

    // After downtime, catch up no further than the look-back.
    const cursor = new Date(Math.max(inbox.activityCursor?.getTime() ?? 0, floor.getTime()));
    const since = cursor.getTime() - OVERLAP_MS;
    const moved: ChatUser[] = [];
    let newest = cursor;
    for (let page = 1; page <= MAX_LIST_PAGES; page++) {
      const p = await this.listPage(page, needHuman);
      let older = false;
      for (const u of p.items) {
        const activity = chatUserActivity(u);
        // Without an activity time there is no telling: look at its history (costs a read).
        if (activity && activity.getTime() < since) {
          older = true;
          break;
        }
        if (activity && activity > newest) newest = activity;
        moved.push(u);
      }
      if (older || p.items.length < p.limit) break;
    }
    // Oldest activity first: threads appear in the order customers wrote.
    moved.sort((a, b) => (chatUserActivity(a)?.getTime() ?? 0) - (chatUserActivity(b)?.getTime() ?? 0));
    const included = new Map<number, Message[]>();
    if (moved.length > INCLUDE_MESSAGES_ABOVE) {
      const pages = Math.min(MAX_LIST_PAGES, Math.ceil(moved.length / LIST_LIMIT));
      for (let page = 1; page <= pages; page++) {
        const p = await this.listPage(page, needHuman, true);
        for (const u of p.items) {
          const messages = chatUserMessages(u);
          if (typeof u.id === "number" && messages) included.set(u.id, messages);
        }
        if (p.items.length < p.limit) break;
      }
    }
    for (const u of moved) {
      const r = await this.follow(inbox, u, cursor, {
        force: needHuman === true,
        included: typeof u.id === "number" ? included.get(u.id) : undefined,
      });
      out.posted += r.posted;
      out.threads += r.created ? 1 : 0;
    }
    await this.store.polled(inbox.channel, this.workerId, { activityCursor: newest, failures: 0 });
    return out;
  }

  /** One page of the inbox's chat users, latest activity first (with their latest messages when asked). */
  private listPage(page: number, needHuman: true | undefined, includeMessages?: true) {
    return this.read(
      this.opts.client.listChatUsers(
        {
          sortBy: "last_activity",
          sortOrder: "DESC",
          limit: LIST_LIMIT,
          page,
          ...(includeMessages ? { includeMessages } : {}),
          ...(needHuman ? { needHuman } : {}),
        },
        { lane: "background" },
      ),
    );
  }

  /**
   * One chat user whose activity may have moved: new messages mirrored in its
   * thread (the thread created on the first customer message, or at once with
   * `force`), the card updated when its state changed.
   */
  private async follow(
    inbox: Inbox,
    u: ChatUser,
    since: Date,
    opts: { force: boolean; included?: Message[] },
  ): Promise<{ posted: number; created: boolean }> {
    const chatUserId = u.id as number;
    if (typeof chatUserId !== "number") return { posted: 0, created: false };
    const channel = inbox.channel;
    const activity = chatUserActivity(u);
    let thread = await this.store.thread(channel, chatUserId);
    const still = thread?.lastActivity && activity && activity <= thread.lastActivity;
    if (still && (thread?.threadTs || !opts.force)) return { posted: 0, created: false };
    thread ??= await this.store.ensureThread(channel, chatUserId, this.now());

    let details: ChatUser | undefined;
    let conversationId = thread.conversationId ?? chatUserConversationId(u);
    if (!conversationId || !thread.threadTs) {
      details = await this.read(this.opts.client.getChatUser(chatUserId, { lane: "background" }));
      conversationId = chatUserConversationId(details) ?? conversationId;
    }
    if (!conversationId) return { posted: 0, created: false };

    // Messages after the last one mirrored (a little before, duplicates dropped by id).
    const from = thread.lastMessageAt
      ? new Date(
          Math.max(thread.lastMessageAt.getTime() - OVERLAP_MS, this.now().getTime() - this.lookbackMs),
        )
      : new Date(since.getTime() - OVERLAP_MS);
    const messages =
      this.coveredBy(opts.included, conversationId, from) ?? (await this.history(conversationId, from));
    const fresh: Message[] = [];
    for (const m of messages) {
      if (typeof m.id !== "number") continue;
      if (await this.store.isMirrored(channel, m.id)) continue;
      fresh.push(m);
    }
    const customerWrote = fresh.some((m) => messageDirection(m) !== "outbound");
    let created = false;
    if (!thread.threadTs) {
      if (!customerWrote && !opts.force) {
        // Nothing from the customer yet: remember how far we looked, no thread.
        await this.store.updateThread(channel, chatUserId, { conversationId, lastActivity: activity });
        return { posted: 0, created: false };
      }
      const card = await this.cardState(details ?? u, fresh, undefined);
      const posted = await this.opts.post({ channel, ...cardMessage(chatUserId, card) });
      if (!posted.ts) return { posted: 0, created: false };
      await this.store.updateThread(channel, chatUserId, { conversationId, threadTs: posted.ts, card });
      thread = { ...thread, threadTs: posted.ts, card };
      created = true;
      this.log.info({ channel, chatUserId }, "inbox thread created");
    }

    let postedCount = 0;
    const name = thread.card?.name ?? displayName(u);
    let last: { at?: Date; direction?: "inbound" | "outbound"; text?: string } = {};
    for (const m of fresh) {
      const id = m.id as number;
      const direction = messageDirection(m);
      const at = messageTime(m);
      if (!(await this.store.claimMessage(channel, id, chatUserId, direction, this.now()))) continue;
      let ts: string | undefined;
      try {
        const r = await this.opts.post({
          channel,
          thread_ts: thread.threadTs as string,
          ...messageReply(name, {
            direction,
            at,
            text: typeof m.text === "string" ? m.text : "",
            type: typeof m.type === "string" ? m.type : undefined,
            mediaUrl: messageMediaUrl(m),
          }),
        });
        ts = r.ts;
      } catch (err) {
        // Slack answered with an error: the message is not there, the next poll tries again.
        if (slackCode(err)) await this.store.unclaimMessage(channel, id);
        if (GONE.has(slackCode(err) ?? "")) throw err;
        this.log.warn({ channel, chatUserId, err: (err as Error).message }, "could not mirror a message");
        break;
      }
      if (ts) await this.store.mirroredTs(channel, id, ts);
      postedCount++;
      last = {
        at: at ?? last.at,
        direction: direction ?? "inbound",
        text: typeof m.text === "string" && m.text ? m.text : (messageMediaUrl(m) ?? ""),
      };
    }

    await this.store.updateThread(channel, chatUserId, {
      conversationId,
      lastActivity: activity,
      lastMessageAt: last.at,
      lastDirection: last.direction,
      lastText: last.text,
    });
    if (!created && (postedCount > 0 || activity))
      await this.refreshCard(channel, chatUserId, u, last.direction);
    return { posted: postedCount, created };
  }

  /**
   * The included messages after `from`, oldest first, when they reach back to
   * `from` (one of them is older, so none after it is missing); else undefined.
   */
  private coveredBy(
    included: Message[] | undefined,
    conversationId: number,
    from: Date,
  ): Message[] | undefined {
    if (!included?.length) return undefined;
    const mine = included.filter((m) => {
      const c = messageConversationId(m);
      return c === undefined || c === conversationId;
    });
    const times = mine.map((m) => messageTime(m)?.getTime());
    if (times.some((t) => t === undefined) || !times.some((t) => (t as number) <= from.getTime()))
      return undefined;
    return mine
      .filter((m) => (messageTime(m) as Date) > from)
      .sort(
        (a, b) =>
          (messageTime(a) as Date).getTime() - (messageTime(b) as Date).getTime() ||
          Number(a.id ?? 0) - Number(b.id ?? 0),
      );
  }

  /** The conversation's messages after `from`, oldest first (the API gives them newest first). */
  private async history(conversationId: number, from: Date): Promise<Message[]> {
    const all: Message[] = [];
    for (let page = 1; page <= MAX_HISTORY_PAGES; page++) {
      const p = await this.read(
        this.opts.client.listConversationMessages(
          conversationId,
          { after: from.toISOString(), limit: HISTORY_LIMIT, page },
          { lane: "background" },
        ),
      );
      all.push(...p.items);
      if (p.items.length < p.limit) break;
    }
    return all.sort(
      (a, b) =>
        (messageTime(a)?.getTime() ?? 0) - (messageTime(b)?.getTime() ?? 0) ||
        Number(a.id ?? 0) - Number(b.id ?? 0),
    );
  }

  private async tagNames(ids: number[]): Promise<string[]> {
    if (!ids.length) return [];
    const fresh = this.tags && Date.now() - this.tags.at < TAGS_CACHE_MS;
    if (!fresh || ids.some((id) => !this.tags?.names.has(id))) {
      try {
        const page = await this.read(this.opts.client.listTags({ lane: "background" }));
        this.tags = {
          at: Date.now(),
          names: new Map(
            page.items
              .filter((t) => typeof t.id === "number")
              .map((t) => [t.id as number, String(t.name ?? t.id)]),
          ),
        };
      } catch {
        // Tags are a nicety: a card without them is still a card.
      }
    }
    return ids.map((id) => this.tags?.names.get(id) ?? `#${id}`);
  }

  private async cardState(u: ChatUser, fresh: Message[], answered: boolean | undefined): Promise<CardState> {
    const lastMessage = fresh.at(-1);
    const activity = chatUserActivity(u);
    const contactId = chatUserContactId(u);
    const channelId = chatUserChannelId(u);
    return {
      name: displayName(u),
      contact: u.type === "chat_web" ? (u.email ?? u.phone) : (u.phone ?? u.email),
      type: u.type,
      needHuman: chatUserNeedsHuman(u),
      answered: answered ?? (lastMessage ? messageDirection(lastMessage) === "outbound" : false),
      tags: await this.tagNames(chatUserTagIds(u)),
      lastActivity: activity?.toISOString(),
      ...(contactId ? { contactId } : {}),
      ...(channelId ? { channelId } : {}),
    };
  }

  /** chat.update of the card when what it shows changed (needs a human, answered, last activity). */
  private async refreshCard(
    channel: string,
    chatUserId: number,
    u: ChatUser,
    lastDirection: "inbound" | "outbound" | undefined,
  ): Promise<void> {
    const thread = await this.store.thread(channel, chatUserId);
    if (!thread?.threadTs || !thread.card) return;
    const answered = lastDirection ? lastDirection === "outbound" : thread.lastDirection === "outbound";
    const next: CardState = {
      ...thread.card,
      needHuman: chatUserNeedsHuman(u),
      answered,
      lastActivity: chatUserActivity(u)?.toISOString() ?? thread.card.lastActivity,
    };
    if (JSON.stringify(next) === JSON.stringify(thread.card)) return;
    try {
      await this.opts.update(channel, thread.threadTs, cardMessage(chatUserId, next));
      await this.store.updateThread(channel, chatUserId, { card: next });
    } catch (err) {
      this.log.warn({ channel, code: slackCode(err) }, "could not update an inbox card");
    }
  }

  /** Polls on a timer until stop(); slows down after failures. */
  start(): void {
    this.loop.start();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
    await this.store.release(this.workerId).catch((err) => {
      this.log.warn({ err: (err as Error).message }, "could not release inbox leases");
    });
  }

  /** A new inbox: poll now rather than at the next tick. */
  wake(): void {
    this.loop.wake();
  }
}

/** The customer's name as shown: name, else phone, else e-mail, else the chat user's number. */
export function displayName(u: ChatUser): string {
  const name = typeof u.name === "string" ? u.name.trim() : "";
  return name || u.phone || u.email || `Chat user #${u.id}`;
}
