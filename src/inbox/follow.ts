// Following a conversation that moved: its history read (GET
// /conversations/{id}/messages) `after` a little before the last message
// already mirrored, duplicates dropped by message id (two messages can share a
// time), each new message posted once in the chat user's thread (by the
// process that inserted its row: inbox.mirrored), the thread and its card made
// on the customer's first message, the card updated when the conversation's
// state changed. A claim a crash left without a post is looked for in the
// thread before it is posted again. One conversation that fails is logged and
// left for the next poll; the others go on. A burst larger than a poll reads
// is read over the next polls, oldest part first.
import { isApiError } from "../api/errors.ts";
import {
  chatUserActivity,
  chatUserConversationId,
  chatUserNeedsHuman,
  messageConversationId,
  messageDirection,
  messageMediaUrl,
  messageTime,
} from "../api/inbox.ts";
import type { ChatUser, Message } from "../api/types.ts";
import { routeOf } from "../domain/inbox-routing.ts";
import type { Inbox, MirrorState, Thread } from "../store/inbox.ts";
import { sendAway } from "./away.ts";
import { type Cards, displayName } from "./cards.ts";
import type { PassContext } from "./context.ts";
import { LeaseLost } from "./lease.ts";
import { clockMessages } from "./targets.ts";
import { TemplateTexts } from "./templates.ts";

const HISTORY_LIMIT = 50;
/** At most this many history pages a conversation a poll (a burst is read over the next polls). */
export const MAX_HISTORY_PAGES = 4;
/** `after` starts this much before the last message mirrored: two messages can share a time. */
export const OVERLAP_MS = 2_000;
/** The mirrored row of a customer's rating answer: handled, never posted as a message. */
const RATING_TS = "rating";

export interface Followed {
  posted: number;
  created: boolean;
}

export interface FollowOptions {
  /** A thread and its card even without a new customer message (the first cards, a need-human inbox). */
  force: boolean;
  /** The chat user's latest messages, listed with it (`includeMessages`): no history read when they reach back. */
  included?: Message[];
  /** The chat user read again first (a thread left behind: the list did not bring it). */
  lookUp?: boolean;
}

export class Follow {
  private readonly ctx: PassContext;
  private readonly cards: Cards;
  /** A template message's text as the customer read it (the templates read once, kept a while). */
  private readonly templates: TemplateTexts;

  constructor(ctx: PassContext, cards: Cards) {
    this.ctx = ctx;
    this.cards = cards;
    this.templates = new TemplateTexts(ctx);
  }

  /**
   * follow(), where one conversation's failure (a text no store keeps, the
   * front end refusing a post, the API failing on one chat user) is logged and
   * left for the next poll: the others go on. A channel gone and a lost lease
   * stop the inbox.
   */
  async safely(inbox: Inbox, u: ChatUser, since: Date, opts: FollowOptions): Promise<Followed> {
    const { io, log, lease, store } = this.ctx;
    const chatUserId = u.id as number;
    try {
      await lease.keep(inbox.channel);
      return await this.follow(inbox, u, since, opts);
    } catch (err) {
      if (err instanceof LeaseLost || io.channelClosed(err)) throw err;
      log.warn(
        { channel: inbox.channel, chatUserId, err: (err as Error).message, code: io.errorCode(err) },
        "could not mirror a conversation; the next poll tries again",
      );
      // A chat user the API no longer has is not tried again; anything else is, next poll.
      const gone = isApiError(err) && err.status === 404;
      await store
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
  private async follow(inbox: Inbox, listed: ChatUser, since: Date, opts: FollowOptions): Promise<Followed> {
    const { store, client, io, lease, log } = this.ctx;
    const now = this.ctx.now;
    const chatUserId = listed.id as number;
    if (typeof chatUserId !== "number") return { posted: 0, created: false };
    const channel = inbox.channel;
    let details = opts.lookUp
      ? await this.ctx.read(client.getChatUser(chatUserId, { lane: "background" }))
      : undefined;
    const u = details ?? listed;
    const activity = chatUserActivity(u);
    let thread = await store.thread(channel, chatUserId);
    const still = thread?.lastActivity && activity && activity <= thread.lastActivity;
    if (still && !thread?.behind && (thread?.threadTs || !opts.force)) return { posted: 0, created: false };
    if (!(await this.routedHere(inbox, u))) {
      // Another inbox has this conversation: it is never mirrored into two.
      if (thread?.behind)
        await store.updateThread(channel, chatUserId, { behind: false, historyBefore: null });
      return { posted: 0, created: false };
    }
    thread ??= await store.ensureThread(channel, chatUserId, now());

    let conversationId = thread.conversationId ?? chatUserConversationId(u);
    if (!conversationId || !thread.threadTs) {
      details ??= await this.ctx.read(client.getChatUser(chatUserId, { lane: "background" }));
      conversationId = chatUserConversationId(details) ?? conversationId;
    }
    if (!conversationId) return { posted: 0, created: false };

    // Messages after the last one mirrored (a little before, duplicates dropped by id).
    const from = thread.lastMessageAt
      ? new Date(Math.max(thread.lastMessageAt.getTime() - OVERLAP_MS, now().getTime() - this.ctx.lookbackMs))
      : new Date(since.getTime() - OVERLAP_MS);
    const covered = thread.historyBefore ? undefined : coveredBy(opts.included, conversationId, from);
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
        (await store.mirrorState(channel, oldest.id)).state !== "posted";
      if (gap && h.oldest && (!thread.historyBefore || h.oldest < thread.historyBefore)) {
        // More than a poll reads: read what comes before the oldest of these first (the next poll).
        await store.updateThread(channel, chatUserId, {
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
      const claim = await store.mirrorState(channel, m.id);
      if (claim.state !== "posted") fresh.push({ m, ...(claim.state === "claimed" ? { claim } : {}) });
    }
    // A rating answer after Resolve (issue 29 §4): recorded, neither mirrored nor reopening the conversation.
    const rated = await this.ratings(channel, chatUserId, fresh, thread);
    if (rated) {
      fresh.splice(0, fresh.length, ...fresh.filter((f) => !rated.ids.has(f.m.id as number)));
      thread = (await store.thread(channel, chatUserId)) ?? thread;
      await this.cards.redraw(thread);
    }
    const customerWrote = fresh.some(({ m }) => messageDirection(m) !== "outbound");
    // Reply targets: customer messages start a clock, replies stop it (before a resolved conversation reopens).
    await clockMessages(
      this.ctx,
      channel,
      chatUserId,
      thread.deskState,
      fresh.map(({ m }) => m),
    );
    // The desk: the reply window moves with the customer's last message; a resolved conversation opens again.
    const desk = await this.customerWrote(channel, chatUserId, fresh, thread);
    thread = desk.thread;
    let created = false;
    if (!thread.threadTs) {
      if (!customerWrote && !opts.force && !thread.cardClaimedBy) {
        // Nothing from the customer yet: remember how far we looked, no thread.
        await store.updateThread(channel, chatUserId, {
          conversationId,
          lastActivity: activity,
          behind: false,
          historyBefore: null,
        });
        return { posted: 0, created: false };
      }
      const card = await this.cards.state(
        details ?? u,
        fresh.map(({ m }) => m),
        undefined,
      );
      const threadTs = await this.cards.post(channel, chatUserId, thread, card);
      if (!threadTs) return { posted: 0, created: false };
      await store.updateThread(channel, chatUserId, { conversationId, threadTs, card });
      thread = { ...thread, threadTs, card };
      created = true;
      log.info({ channel, chatUserId }, "inbox thread created");
    }

    let postedCount = 0;
    const name = thread.card?.name ?? displayName(u);
    const parentTs = thread.threadTs as string;
    let last: { at?: Date; direction?: "inbound" | "outbound"; text?: string } = {};
    const mirrored: Message[] = [];
    for (const { m, claim } of fresh) {
      const id = m.id as number;
      const direction = messageDirection(m);
      const at = messageTime(m);
      const claimed = claim?.state === "claimed";
      const mine = claimed
        ? await store.takeOverClaim(channel, id, lease.workerId, claim.by, now())
        : await store.claimMessage(channel, id, chatUserId, direction, now(), undefined, lease.workerId);
      if (!mine) continue;
      // Sent by Switchboard (the send form, `/sb send`, a campaign's test): shown by who sent it.
      const own = direction === "outbound" ? await this.ctx.ownSends.of(id) : undefined;
      const sender = own
        ? { userId: own.userId, via: own.via, ...(own.campaign ? { campaign: own.campaign } : {}) }
        : undefined;
      // A template message as the customer read it: its template's body with its values.
      const shown = await this.templates.shown(m);
      const parts = io.messageParts(name, shown, sender);
      // A claim without a post (a crash, an unknown outcome): the parts already in the thread are not posted again.
      const already = claimed ? await this.postedParts(channel, parentTs, id) : new Map<number, string>();
      let first = already.get(1);
      let failed = false;
      for (let part = 1; part <= parts; part++) {
        if (already.has(part)) continue;
        try {
          await lease.keep(channel);
          const ts = await io.postMessagePart(channel, parentTs, name, shown, part, sender);
          first ??= ts;
          already.set(part, ts ?? "");
        } catch (err) {
          if (err instanceof LeaseLost) throw err;
          // The front end answered with an error: the part is not there; with no part out, the next poll posts it anew.
          if (io.errorCode(err) && already.size === 0) await store.unclaimMessage(channel, id);
          if (io.channelClosed(err)) throw err;
          log.warn({ channel, chatUserId, err: (err as Error).message }, "could not mirror a message");
          failed = true;
          break;
        }
      }
      if (failed) {
        behind = true;
        break;
      }
      if (first) await store.mirroredTs(channel, id, first);
      postedCount++;
      mirrored.push(m);
      // A customer's message, mirrored once: the workspace's automations hear it (issue 40 §3).
      if (direction !== "outbound")
        await this.ctx.told({
          type: "message.received",
          channel,
          chatUserId,
          customerName: name,
          messageId: id,
          text: typeof shown.text === "string" ? shown.text : (messageMediaUrl(m) ?? ""),
        });
      // The away message is no answer: the conversation stays as the customer left it.
      if (own?.via !== "away")
        last = {
          at: at ?? last.at,
          direction: direction ?? "inbound",
          text: typeof shown.text === "string" && shown.text ? shown.text : (messageMediaUrl(m) ?? ""),
        };
    }
    // The team away: the customer who just wrote gets the away message (issue 40 §1), shown by the next poll.
    if ((await sendAway(this.ctx, inbox, thread, conversationId, mirrored)) === "sent") behind = true;

    if (desk.reopened && thread.threadTs) await this.tellReopened(channel, thread.threadTs, name);
    else if (desk.woke && thread.threadTs)
      await this.cards.tellWoken(channel, thread.threadTs, name, thread.assignee, "customer");
    await store.updateThread(channel, chatUserId, {
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
      await this.cards.refresh(channel, chatUserId, u, last.direction, desk.moved);
    return { posted: postedCount, created };
  }

  /**
   * Whether this inbox mirrors the conversation: the inbox it is routed to
   * (while that inbox is on), else the most specific inbox that matches it
   * (ties: the oldest), which takes the route in one statement.
   */
  private async routedHere(inbox: Inbox, u: ChatUser): Promise<boolean> {
    const { store, inboxes } = this.ctx;
    const chatUserId = u.id as number;
    const current = await store.routeOf(chatUserId);
    if (current === inbox.channel) return true;
    if (current && inboxes.some((i) => i.channel === current)) return false;
    const best = routeOf(inboxes.length ? inboxes : [inbox], {
      type: typeof u.type === "string" ? u.type : undefined,
      needHuman: chatUserNeedsHuman(u),
    });
    if (best?.channel !== inbox.channel) return false;
    return store.takeRoute(chatUserId, inbox.channel, current, this.ctx.now());
  }

  /** The parts of an API message already in the thread (part number → ts), as the front end finds them. */
  private async postedParts(
    channel: string,
    threadTs: string,
    messageId: number,
  ): Promise<Map<number, string>> {
    const { io } = this.ctx;
    if (!io.findParts) return new Map();
    return io.findParts(channel, threadTs, messageId);
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
      const p = await this.ctx.read(
        this.ctx.client.listConversationMessages(
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

  /** The desk: the customer's newest message among `fresh` moves the window, and reopens a resolved thread. */
  private async customerWrote(
    channel: string,
    chatUserId: number,
    fresh: Array<{ m: Message }>,
    thread: Thread,
  ): Promise<{ thread: Thread; reopened: boolean; moved: boolean; woke: boolean }> {
    const { store } = this.ctx;
    const times = fresh
      .filter(({ m }) => messageDirection(m) !== "outbound")
      .map(({ m }) => messageTime(m)?.getTime() ?? this.ctx.now().getTime());
    if (!times.length) return { thread, reopened: false, moved: false, woke: false };
    const at = new Date(Math.max(...times));
    const { reopened, woke } = await store.customerWrote(channel, chatUserId, at);
    return { thread: (await store.thread(channel, chatUserId)) ?? thread, reopened, moved: true, woke };
  }

  /**
   * The customer's answers to a rating asked on Resolve: a message whose text
   * is one of the offered answers, within 24 hours, while still resolved, is
   * recorded as the rating (one statement) and taken as handled (its mirrored
   * row holds no post): the conversation stays resolved and the thread shows
   * the rating on the card, not as a new message.
   */
  private async ratings(
    channel: string,
    chatUserId: number,
    fresh: Array<{ m: Message; claim?: MirrorState }>,
    thread: Thread,
  ): Promise<{ ids: Set<number> } | undefined> {
    if (thread.deskState !== "resolved" || !thread.ratingOptions.length || !thread.ratingAskedAt)
      return undefined;
    const { store, lease, now } = this.ctx;
    const ids = new Set<number>();
    for (const { m, claim } of fresh) {
      if (messageDirection(m) === "outbound" || typeof m.text !== "string" || typeof m.id !== "number")
        continue;
      if (
        !thread.ratingOptions.some((o) => o.trim().toLowerCase() === (m.text as string).trim().toLowerCase())
      )
        continue;
      const mine = claim
        ? await store.takeOverClaim(
            channel,
            m.id,
            lease.workerId,
            claim.state === "claimed" ? claim.by : null,
            now(),
          )
        : await store.claimMessage(channel, m.id, chatUserId, "inbound", now(), undefined, lease.workerId);
      if (!mine) {
        ids.add(m.id);
        continue;
      }
      if (await store.rate(channel, chatUserId, m.text, messageTime(m) ?? now())) {
        await store.mirroredTs(channel, m.id, RATING_TS);
        ids.add(m.id);
        await this.ctx.told({
          type: "rating.received",
          channel,
          chatUserId,
          customerName: thread.card?.name ?? `chat user #${chatUserId}`,
          // The option as the template writes it ("Great"), whatever the customer's case.
          rating:
            thread.ratingOptions.find(
              (o) => o.trim().toLowerCase() === (m.text as string).trim().toLowerCase(),
            ) ?? m.text.trim(),
        });
      } else await store.unclaimMessage(channel, m.id);
    }
    return ids.size ? { ids } : undefined;
  }

  /** A resolved conversation the customer wrote in again: said in its thread. */
  private async tellReopened(channel: string, threadTs: string, name: string): Promise<void> {
    const { io, lease, log } = this.ctx;
    try {
      await lease.keep(channel);
      await io.postReopened(channel, threadTs, name);
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      log.warn({ channel, code: io.errorCode(err) }, "could not say a conversation was reopened");
    }
  }
}

/**
 * The included messages after `from`, oldest first, when they reach back to
 * `from` (one of them is older, so none after it is missing); else undefined.
 */
function coveredBy(
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
