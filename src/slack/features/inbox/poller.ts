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
// inbox is polled by the process holding its lease (renewed while its pass
// runs), a card is posted by the process that claimed its thread, and a
// message by the one that inserted its row (inbox.mirrored). Every post
// carries its API id in Slack's message metadata: a claim a crash left
// without a post is looked for in Slack before it is posted again. One
// conversation that fails is logged and left for the next poll; the others go
// on. A burst larger than a poll reads is read over the next polls.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { KnownBlock } from "@slack/types";
import { isApiError } from "../../../api/errors.ts";
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
} from "../../../api/inbox.ts";
import type { ChatUserType as ChatType } from "../../../api/schemas.ts";
import type { ChatUser, Message, MessagingApi } from "../../../api/types.ts";
import { routeOf } from "../../../domain/inbox-routing.ts";
import type { WorkspaceId } from "../../../domain/workspace.ts";
import { SwitchboardError } from "../../../platform/errors.ts";
import { inboxPassDone, metrics } from "../../../platform/metrics.ts";
import type { Db } from "../../../store/db.ts";
import {
  type CardState,
  type Inbox,
  InboxStore,
  type MirrorState,
  type Thread,
} from "../../../store/inbox.ts";
import { PacedLoop } from "../../../platform/paced-loop.ts";
import { channelClosed, imageRefused, slackCode } from "../../io/slack-errors.ts";
import {
  CARD_EVENT,
  cardMessage,
  deskOf,
  MESSAGE_EVENT,
  messageReplies,
  mirroredOf,
  reopenedMessage,
} from "./render.ts";

export interface InboxLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** Slack message metadata: what a post is, found again after a crash. */
export interface PostMetadata {
  event_type: string;
  event_payload: Record<string, string | number>;
}

/** Posts one message through the per-channel queue; returns its ts. Throws Slack's error. */
export type InboxPost = (args: {
  channel: string;
  text: string;
  blocks: KnownBlock[];
  thread_ts?: string;
  metadata?: PostMetadata;
}) => Promise<{ ts?: string }>;

/**
 * The bot's recent posts with their metadata: the channel's (no thread_ts) or
 * one thread's replies. Read only after a crash, to find a post whose claim
 * has no ts.
 */
export type InboxFindPosted = (
  channel: string,
  threadTs?: string,
) => Promise<
  Array<{ ts: string; metadata?: { event_type?: string; event_payload?: Record<string, unknown> } }>
>;

export type InboxUpdate = (
  channel: string,
  ts: string,
  message: { text: string; blocks: KnownBlock[] },
) => Promise<void>;

export interface InboxPollerOptions {
  db: Db;
  /** The workspace whose inboxes this poller mirrors (one poller per workspace). */
  workspace: WorkspaceId;
  client: MessagingApi;
  post: InboxPost;
  update: InboxUpdate;
  /** Without it, a claim a crash left is posted again without looking (tests that never crash). */
  findPosted?: InboxFindPosted;
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
export const MAX_LIST_PAGES = 4;
const HISTORY_LIMIT = 50;
/** At most this many history pages a conversation a poll (a burst is read over the next polls). */
export const MAX_HISTORY_PAGES = 4;
/** Threads left behind (a burst, a failure) followed again in one poll, beside the list. */
const BEHIND_PER_POLL = 10;
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

/** This process no longer holds the inbox's lease: its pass of that inbox stops. */
class LeaseLost extends SwitchboardError {
  readonly code = "inbox_lease_lost";
}

interface ListRead {
  users: ChatUser[];
  /** The read reached activity older than it looked for, or the list's end. */
  complete: boolean;
  lastPage: number;
  newest: Date | undefined;
}

interface Followed {
  posted: number;
  created: boolean;
}

/**
 * Which chat users an inbox lists: need-human ones or all; one chat type
 * through the API's `type` filter (it takes one value), several by keeping
 * the matching ones of the one list read (the idle cost stays one read).
 */
interface ListScope {
  needHuman: true | undefined;
  type?: string;
  keep: (u: ChatUser) => boolean;
}

function listScope(inbox: Inbox): ListScope {
  const needHuman = inbox.filter === "need_human" ? true : undefined;
  if (inbox.types.length === 1) return { needHuman, type: inbox.types[0], keep: () => true };
  if (!inbox.types.length) return { needHuman, keep: () => true };
  return { needHuman, keep: (u) => typeof u.type === "string" && inbox.types.includes(u.type) };
}

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
  /** The inboxes as this pass found them: a conversation goes to one (routeOf). */
  private inboxes: Inbox[] = [];

  private readonly opts: InboxPollerOptions;

  constructor(opts: InboxPollerOptions) {
    this.opts = opts;
    this.store = new InboxStore(opts.db, opts.workspace);
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

  /** One poll of every inbox this process holds or can claim. Passes never overlap. */
  step(): Promise<InboxStepResult> {
    return this.loop.step();
  }

  private async pass(): Promise<InboxStepResult> {
    const result: InboxStepResult = { reads: 0, posted: 0, threads: 0 };
    this.inboxes = await this.store.inboxes();
    for (const listed of this.inboxes) {
      const at = this.now();
      const inbox = await this.store.claimInbox(listed.channel, this.workerId, at, this.leaseEnd());
      if (!inbox) continue;
      this.reads = 0;
      try {
        const r = await this.pollInbox(inbox);
        result.posted += r.posted;
        result.threads += r.threads;
        await this.showClosedWindows(inbox.channel);
      } catch (err) {
        if (err instanceof LeaseLost) {
          this.log.warn({ channel: inbox.channel }, "inbox lease taken by another process; this pass stops");
        } else {
          await this.store.polled(inbox.channel, this.workerId, { failures: inbox.failures + 1 });
          this.log.warn(
            { channel: inbox.channel, err: (err as Error).message, code: slackCode(err) },
            "inbox poll failed; will retry",
          );
        }
      }
      result.reads += this.reads;
    }
    return result;
  }

  private leaseEnd(): Date {
    return new Date(this.now().getTime() + this.pollMs + this.leaseMs);
  }

  /** Before each conversation and each post: the lease outlives the pass, or the pass stops. */
  private async keepLease(channel: string): Promise<void> {
    if (!(await this.store.renewLease(channel, this.workerId, this.leaseEnd())))
      throw new LeaseLost(`the inbox of ${channel} is polled by another process now`);
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
    const scope = listScope(inbox);
    const needHuman = scope.needHuman;
    const type = scope.type ? { type: scope.type as ChatType } : {};

    if (!inbox.primed) {
      // From now on, plus one card for each conversation already unread or needing a human.
      const lists = [
        this.read(
          api.listChatUsers(
            { needHuman: true, sortBy: "last_activity", sortOrder: "DESC", limit: FIRST_CARDS, ...type },
            { lane: "background" },
          ),
        ),
      ];
      if (!needHuman)
        lists.push(
          this.read(
            api.listChatUsers(
              {
                hasUnreadMessages: true,
                sortBy: "last_activity",
                sortOrder: "DESC",
                limit: FIRST_CARDS,
                ...type,
              },
              { lane: "background" },
            ),
          ),
        );
      const seen = new Map<number, ChatUser>();
      for (const page of await Promise.all(lists))
        for (const u of page.items) if (typeof u.id === "number" && scope.keep(u)) seen.set(u.id, u);
      const users = [...seen.values()]
        .sort((a, b) => (chatUserActivity(b)?.getTime() ?? 0) - (chatUserActivity(a)?.getTime() ?? 0))
        .slice(0, FIRST_CARDS)
        // Oldest first, so the newest card ends at the bottom of the channel.
        .reverse();
      for (const u of users) {
        const r = await this.followSafely(inbox, u, floor, {
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
    // With a burst being read over several polls, the front read stops at the newest already looked at.
    const top = inbox.listPage && inbox.activityTop ? inbox.activityTop : cursor;
    const front = await this.listFrom(1, top, scope);
    const moved = new Map<number, ChatUser>();
    const add = (users: ChatUser[]) => {
      for (const u of users) if (typeof u.id === "number" && !moved.has(u.id)) moved.set(u.id, u);
    };
    add(front.users);
    let newest = [top, front.newest].reduce<Date>((a, b) => (b && b > a ? b : a), cursor);
    // The cursor moves only as far as what was read: past the burst once its last page is read.
    let next: { cursor: Date; listPage: number | null };
    if (!front.complete) next = { cursor, listPage: front.lastPage };
    else if (inbox.listPage) {
      // Pages only move down as activity brings chat users to the top: going on one page early misses none.
      const rest = await this.listFrom(Math.max(1, inbox.listPage), cursor, scope);
      add(rest.users);
      if (rest.newest && rest.newest > newest) newest = rest.newest;
      next = rest.complete ? { cursor: newest, listPage: null } : { cursor, listPage: rest.lastPage };
    } else next = { cursor: newest, listPage: null };

    // Oldest activity first: threads appear in the order customers wrote.
    const users = [...moved.values()].sort(
      (a, b) => (chatUserActivity(a)?.getTime() ?? 0) - (chatUserActivity(b)?.getTime() ?? 0),
    );
    const included = new Map<number, Message[]>();
    if (users.length > INCLUDE_MESSAGES_ABOVE) {
      const pages = Math.min(MAX_LIST_PAGES, Math.ceil(users.length / LIST_LIMIT));
      for (let page = 1; page <= pages; page++) {
        const p = await this.listPage(page, scope, true);
        for (const u of p.items) {
          const messages = chatUserMessages(u);
          if (typeof u.id === "number" && messages) included.set(u.id, messages);
        }
        if (p.items.length < p.limit) break;
      }
    }
    for (const u of users) {
      const r = await this.followSafely(inbox, u, cursor, {
        force: needHuman === true,
        included: typeof u.id === "number" ? included.get(u.id) : undefined,
      });
      out.posted += r.posted;
      out.threads += r.created ? 1 : 0;
    }
    // Threads a burst or a failure left behind, whatever the list says.
    for (const t of await this.store.behindThreads(inbox.channel, BEHIND_PER_POLL)) {
      if (moved.has(t.chatUserId)) continue;
      const r = await this.followSafely(inbox, { id: t.chatUserId } as ChatUser, cursor, {
        force: false,
        lookUp: true,
      });
      out.posted += r.posted;
      out.threads += r.created ? 1 : 0;
    }
    await this.store.polled(inbox.channel, this.workerId, {
      activityCursor: next.cursor,
      failures: 0,
      listPage: next.listPage,
      activityTop: next.listPage ? newest : null,
    });
    return out;
  }

  /**
   * The list from `page` on, latest activity first, while the activity is not
   * older than `since` (less the overlap), at most MAX_LIST_PAGES pages.
   */
  private async listFrom(page: number, since: Date, scope: ListScope): Promise<ListRead> {
    const stop = since.getTime() - OVERLAP_MS;
    const users: ChatUser[] = [];
    let newest: Date | undefined;
    for (let n = 0; n < MAX_LIST_PAGES; n++, page++) {
      const p = await this.listPage(page, scope);
      for (const u of p.items) {
        const activity = chatUserActivity(u);
        // Without an activity time there is no telling: look at its history (costs a read).
        if (activity && activity.getTime() < stop) return { users, complete: true, lastPage: page, newest };
        if (activity && (!newest || activity > newest)) newest = activity;
        if (scope.keep(u)) users.push(u);
      }
      if (p.items.length < p.limit) return { users, complete: true, lastPage: page, newest };
    }
    return { users, complete: false, lastPage: page - 1, newest };
  }

  /** One page of the inbox's chat users, latest activity first (with their latest messages when asked). */
  private listPage(page: number, scope: ListScope, includeMessages?: true) {
    return this.read(
      this.opts.client.listChatUsers(
        {
          sortBy: "last_activity",
          sortOrder: "DESC",
          limit: LIST_LIMIT,
          page,
          ...(includeMessages ? { includeMessages } : {}),
          ...(scope.needHuman ? { needHuman: scope.needHuman } : {}),
          ...(scope.type ? { type: scope.type as ChatType } : {}),
        },
        { lane: "background" },
      ),
    );
  }

  /**
   * follow(), where one conversation's failure (a text no store keeps, Slack
   * refusing a post, the API failing on one chat user) is logged and left for
   * the next poll: the others go on. A channel gone and a lost lease stop the inbox.
   */
  private async followSafely(
    inbox: Inbox,
    u: ChatUser,
    since: Date,
    opts: { force: boolean; included?: Message[]; lookUp?: boolean },
  ): Promise<Followed> {
    const chatUserId = u.id as number;
    try {
      await this.keepLease(inbox.channel);
      return await this.follow(inbox, u, since, opts);
    } catch (err) {
      if (err instanceof LeaseLost || channelClosed(err)) throw err;
      this.log.warn(
        { channel: inbox.channel, chatUserId, err: (err as Error).message, code: slackCode(err) },
        "could not mirror a conversation; the next poll tries again",
      );
      // A chat user the API no longer has is not tried again; anything else is, next poll.
      const gone = isApiError(err) && err.status === 404;
      await this.store
        .updateThread(inbox.channel, chatUserId, { behind: !gone, historyBefore: null })
        .catch(() => {});
      return { posted: 0, created: false };
    }
  }

  /**
   * One chat user whose activity may have moved: new messages mirrored in its
   * thread (the thread created on the first customer message, or at once with
   * `force`), the card updated when its state changed.
   */
  private async follow(
    inbox: Inbox,
    listed: ChatUser,
    since: Date,
    opts: { force: boolean; included?: Message[]; lookUp?: boolean },
  ): Promise<Followed> {
    const chatUserId = listed.id as number;
    if (typeof chatUserId !== "number") return { posted: 0, created: false };
    const channel = inbox.channel;
    let details = opts.lookUp
      ? await this.read(this.opts.client.getChatUser(chatUserId, { lane: "background" }))
      : undefined;
    const u = details ?? listed;
    const activity = chatUserActivity(u);
    let thread = await this.store.thread(channel, chatUserId);
    const still = thread?.lastActivity && activity && activity <= thread.lastActivity;
    if (still && !thread?.behind && (thread?.threadTs || !opts.force)) return { posted: 0, created: false };
    if (!(await this.routedHere(inbox, u))) {
      // Another inbox has this conversation: it is never mirrored into two.
      if (thread?.behind)
        await this.store.updateThread(channel, chatUserId, { behind: false, historyBefore: null });
      return { posted: 0, created: false };
    }
    thread ??= await this.store.ensureThread(channel, chatUserId, this.now());

    let conversationId = thread.conversationId ?? chatUserConversationId(u);
    if (!conversationId || !thread.threadTs) {
      details ??= await this.read(this.opts.client.getChatUser(chatUserId, { lane: "background" }));
      conversationId = chatUserConversationId(details) ?? conversationId;
    }
    if (!conversationId) return { posted: 0, created: false };

    // Messages after the last one mirrored (a little before, duplicates dropped by id).
    const from = thread.lastMessageAt
      ? new Date(
          Math.max(thread.lastMessageAt.getTime() - OVERLAP_MS, this.now().getTime() - this.lookbackMs),
        )
      : new Date(since.getTime() - OVERLAP_MS);
    const covered = thread.historyBefore ? undefined : this.coveredBy(opts.included, conversationId, from);
    let messages = covered;
    // A burst is read oldest part first: newer messages are left for the next poll.
    let behind = thread.historyBefore !== null;
    if (!messages) {
      const h = await this.history(conversationId, from, thread.historyBefore ?? undefined);
      // Messages are mirrored oldest first: when the oldest read is mirrored, none older is missing.
      const oldest = h.messages[0];
      const gap =
        h.capped &&
        typeof oldest?.id === "number" &&
        (await this.store.mirrorState(channel, oldest.id)).state !== "posted";
      if (gap && h.oldest && (!thread.historyBefore || h.oldest < thread.historyBefore)) {
        // More than a poll reads: read what comes before the oldest of these first (the next poll).
        await this.store.updateThread(channel, chatUserId, {
          conversationId,
          behind: true,
          historyBefore: new Date(h.oldest.getTime() + 1),
        });
        return { posted: 0, created: false };
      }
      messages = h.messages;
    }
    // A message claimed without a post (a crash, an unknown outcome) is fresh too: looked for, then posted.
    const fresh: Array<{ m: Message; claim?: MirrorState }> = [];
    for (const m of messages) {
      if (typeof m.id !== "number") continue;
      const claim = await this.store.mirrorState(channel, m.id);
      if (claim.state !== "posted") fresh.push({ m, ...(claim.state === "claimed" ? { claim } : {}) });
    }
    const customerWrote = fresh.some(({ m }) => messageDirection(m) !== "outbound");
    // The desk: the reply window moves with the customer's last message; a resolved conversation opens again.
    const desk = await this.customerWrote(channel, chatUserId, fresh, thread);
    thread = desk.thread;
    let created = false;
    if (!thread.threadTs) {
      if (!customerWrote && !opts.force && !thread.cardClaimedBy) {
        // Nothing from the customer yet: remember how far we looked, no thread.
        await this.store.updateThread(channel, chatUserId, {
          conversationId,
          lastActivity: activity,
          behind: false,
          historyBefore: null,
        });
        return { posted: 0, created: false };
      }
      const card = await this.cardState(
        details ?? u,
        fresh.map(({ m }) => m),
        undefined,
      );
      const threadTs = await this.postCard(channel, chatUserId, thread, card);
      if (!threadTs) return { posted: 0, created: false };
      await this.store.updateThread(channel, chatUserId, { conversationId, threadTs, card });
      thread = { ...thread, threadTs, card };
      created = true;
      this.log.info({ channel, chatUserId }, "inbox thread created");
    }

    let postedCount = 0;
    const name = thread.card?.name ?? displayName(u);
    let last: { at?: Date; direction?: "inbound" | "outbound"; text?: string } = {};
    for (const { m, claim } of fresh) {
      const id = m.id as number;
      const direction = messageDirection(m);
      const at = messageTime(m);
      const claimed = claim?.state === "claimed";
      const mine = claimed
        ? await this.store.takeOverClaim(channel, id, this.workerId, claim.by, this.now())
        : await this.store.claimMessage(
            channel,
            id,
            chatUserId,
            direction,
            this.now(),
            undefined,
            this.workerId,
          );
      if (!mine) continue;
      const shown = mirroredOf(m, direction, at);
      const parts = messageReplies(name, shown);
      // A claim without a post (a crash, an unknown outcome): the parts already in the thread are not posted again.
      const already = claimed ? await this.postedParts(channel, thread.threadTs as string, id) : new Map();
      let first = already.get(1);
      let failed = false;
      for (const [i, part] of parts.entries()) {
        if (already.has(i + 1)) continue;
        try {
          await this.keepLease(channel);
          const post = (p: typeof part) =>
            this.opts.post({
              channel,
              thread_ts: thread.threadTs as string,
              ...p,
              metadata: { event_type: MESSAGE_EVENT, event_payload: { message_id: id, part: i + 1 } },
            });
          // Slack could not fetch the image: posted again at once, as a link.
          const r = await post(part).catch((err) => {
            if (!imageRefused(err)) throw err;
            return post(messageReplies(name, shown, { images: "links" })[i] ?? part);
          });
          first ??= r.ts;
          already.set(i + 1, r.ts ?? "");
        } catch (err) {
          if (err instanceof LeaseLost) throw err;
          // Slack answered with an error: the part is not there; with no part out, the next poll posts it anew.
          if (slackCode(err) && already.size === 0) await this.store.unclaimMessage(channel, id);
          if (channelClosed(err)) throw err;
          this.log.warn({ channel, chatUserId, err: (err as Error).message }, "could not mirror a message");
          failed = true;
          break;
        }
      }
      if (failed) {
        behind = true;
        break;
      }
      if (first) await this.store.mirroredTs(channel, id, first);
      postedCount++;
      last = {
        at: at ?? last.at,
        direction: direction ?? "inbound",
        text: typeof m.text === "string" && m.text ? m.text : (messageMediaUrl(m) ?? ""),
      };
    }

    if (desk.reopened && thread.threadTs) await this.tellReopened(channel, thread.threadTs, name);
    await this.store.updateThread(channel, chatUserId, {
      conversationId,
      // Left behind, the thread is followed again next poll whatever its activity.
      lastActivity: behind ? undefined : activity,
      lastMessageAt: last.at,
      lastDirection: last.direction,
      lastText: last.text,
      behind,
      historyBefore: null,
    });
    if (!created && (postedCount > 0 || activity))
      await this.refreshCard(channel, chatUserId, u, last.direction, desk.moved);
    return { posted: postedCount, created };
  }

  /**
   * Whether this inbox mirrors the conversation: the inbox it is routed to
   * (while that inbox is on), else the most specific inbox that matches it
   * (ties: the oldest), which takes the route in one statement.
   */
  private async routedHere(inbox: Inbox, u: ChatUser): Promise<boolean> {
    const chatUserId = u.id as number;
    const current = await this.store.routeOf(chatUserId);
    if (current === inbox.channel) return true;
    if (current && this.inboxes.some((i) => i.channel === current)) return false;
    const best = routeOf(this.inboxes.length ? this.inboxes : [inbox], {
      type: typeof u.type === "string" ? u.type : undefined,
      needHuman: chatUserNeedsHuman(u),
    });
    if (best?.channel !== inbox.channel) return false;
    return this.store.takeRoute(chatUserId, inbox.channel, current, this.now());
  }

  /**
   * The thread's card, posted once: the thread is claimed first (one row per
   * channel and chat user), so two processes never both post it. A claim a
   * crash left (or a post whose outcome is unknown) is looked for in the
   * channel, by its metadata, before the card is posted again.
   */
  private async postCard(
    channel: string,
    chatUserId: number,
    thread: Thread,
    card: CardState,
  ): Promise<string | undefined> {
    if (!(await this.store.claimCard(channel, chatUserId, this.workerId, thread.cardClaimedBy, this.now())))
      return undefined;
    if (thread.cardClaimedBy && this.opts.findPosted) {
      const found = (await this.opts.findPosted(channel)).find(
        (m) =>
          m.metadata?.event_type === CARD_EVENT &&
          Number(m.metadata.event_payload?.chat_user_id) === chatUserId,
      );
      if (found) return found.ts;
    }
    try {
      await this.keepLease(channel);
      const posted = await this.opts.post({
        channel,
        ...cardMessage(chatUserId, card, deskOf(thread, this.now())),
        metadata: { event_type: CARD_EVENT, event_payload: { chat_user_id: chatUserId } },
      });
      return posted.ts;
    } catch (err) {
      // Slack answered with an error: no card; the next poll may post it.
      if (slackCode(err)) await this.store.releaseCard(channel, chatUserId, this.workerId);
      throw err;
    }
  }

  /** The parts of an API message already in the thread (part number → ts), told by their metadata. */
  private async postedParts(
    channel: string,
    threadTs: string,
    messageId: number,
  ): Promise<Map<number, string>> {
    const parts = new Map<number, string>();
    if (!this.opts.findPosted) return parts;
    for (const m of await this.opts.findPosted(channel, threadTs)) {
      const p = m.metadata?.event_payload;
      if (m.metadata?.event_type === MESSAGE_EVENT && Number(p?.message_id) === messageId)
        parts.set(Number(p?.part ?? 1), m.ts);
    }
    return parts;
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

  /**
   * The conversation's messages after `from` (and before `before`), oldest
   * first (the API gives them newest first), at most MAX_HISTORY_PAGES pages:
   * `capped` when there may be more, `oldest` the oldest time read.
   */
  private async history(
    conversationId: number,
    from: Date,
    before?: Date,
  ): Promise<{ messages: Message[]; capped: boolean; oldest?: Date }> {
    const all: Message[] = [];
    let capped = true;
    for (let page = 1; page <= MAX_HISTORY_PAGES; page++) {
      const p = await this.read(
        this.opts.client.listConversationMessages(
          conversationId,
          {
            after: from.toISOString(),
            ...(before ? { before: before.toISOString() } : {}),
            limit: HISTORY_LIMIT,
            page,
          },
          { lane: "background" },
        ),
      );
      all.push(...p.items);
      if (p.items.length < p.limit) {
        capped = false;
        break;
      }
    }
    const messages = all.sort(
      (a, b) =>
        (messageTime(a)?.getTime() ?? 0) - (messageTime(b)?.getTime() ?? 0) ||
        Number(a.id ?? 0) - Number(b.id ?? 0),
    );
    return { messages, capped, oldest: messages[0] ? messageTime(messages[0]) : undefined };
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
    force = false,
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
    if (!force && JSON.stringify(next) === JSON.stringify(thread.card)) return;
    try {
      await this.opts.update(
        channel,
        thread.threadTs,
        cardMessage(chatUserId, next, deskOf(thread, this.now())),
      );
      await this.store.updateThread(channel, chatUserId, { card: next });
    } catch (err) {
      this.log.warn({ channel, code: slackCode(err) }, "could not update an inbox card");
    }
  }

  /** The desk: the customer's newest message among `fresh` moves the window, and reopens a resolved thread. */
  private async customerWrote(
    channel: string,
    chatUserId: number,
    fresh: Array<{ m: Message }>,
    thread: Thread,
  ): Promise<{ thread: Thread; reopened: boolean; moved: boolean }> {
    const times = fresh
      .filter(({ m }) => messageDirection(m) !== "outbound")
      .map(({ m }) => messageTime(m)?.getTime() ?? this.now().getTime());
    if (!times.length) return { thread, reopened: false, moved: false };
    const at = new Date(Math.max(...times));
    const { reopened } = await this.store.customerWrote(channel, chatUserId, at);
    return { thread: (await this.store.thread(channel, chatUserId)) ?? thread, reopened, moved: true };
  }

  /** A resolved conversation the customer wrote in again: said in its thread. */
  private async tellReopened(channel: string, threadTs: string, name: string): Promise<void> {
    try {
      await this.keepLease(channel);
      await this.opts.post({
        channel,
        thread_ts: threadTs,
        ...reopenedMessage(name),
      });
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      this.log.warn({ channel, code: slackCode(err) }, "could not say a conversation was reopened");
    }
  }

  /**
   * Cards whose reply window closed since they were drawn: redrawn once with
   * "Window closed" and Send template first (an open window is a Slack date,
   * which needs no redraw). Store reads only, no API read.
   */
  private async showClosedWindows(channel: string): Promise<void> {
    for (const t of await this.store.windowsClosed(channel, this.now())) {
      try {
        await this.opts.update(
          channel,
          t.threadTs as string,
          cardMessage(t.chatUserId, t.card as CardState, deskOf(t, this.now())),
        );
        await this.store.windowClosedShown(channel, t.chatUserId);
      } catch (err) {
        this.log.warn({ channel, code: slackCode(err) }, "could not update an inbox card");
      }
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
