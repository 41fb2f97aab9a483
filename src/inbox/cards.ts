// A conversation's card, the parent of its thread: who, where, whether a
// human is needed, answered or not, tags, the desk. Posted once (the thread is
// claimed first, so two processes never both post it; a claim a crash left is
// looked for in the channel before the card is posted again), redrawn when
// what it shows changed, and once when its reply window closed.
import {
  chatUserActivity,
  chatUserChannelId,
  chatUserContactId,
  chatUserNeedsHuman,
  chatUserTagIds,
  messageDirection,
} from "../api/inbox.ts";
import type { ChatUser, Message } from "../api/types.ts";
import type { CardMarks } from "../store/card-marks.ts";
import { type CardState, REPLY_WINDOW_MS, type Thread, type ThreadDesk } from "../store/inbox.ts";
import type { PassContext } from "./context.ts";
import type { CardDesk, InboxIo } from "./io.ts";

const TAGS_CACHE_MS = 10 * 60_000;

/** The customer's name as shown: name, else phone, else e-mail, else the chat user's number. */
export function displayName(u: ChatUser): string {
  const name = typeof u.name === "string" ? u.name.trim() : "";
  return name || u.phone || u.email || `Chat user #${u.id}`;
}

/** The desk part of a card as the thread has it, now. */
export const cardDesk = (t: ThreadDesk, now: Date): CardDesk => ({
  deskState: t.deskState,
  assignee: t.assignee,
  customerWroteAt: t.customerWroteAt,
  snoozedUntil: t.snoozedUntil ?? null,
  snoozeUntilReply: t.snoozeUntilReply ?? false,
  snoozedBy: t.snoozedBy ?? null,
  rating: t.rating ?? null,
  due: t.due ?? null,
  now,
});

/**
 * Draws a thread's card again in place (chat.update), the one way every
 * redraw goes (the poller's, and the desk's after an assign, a resolve, a
 * reopen). A drawing that shows the reply window closed takes the thread's
 * "closed shown" mark first (one statement): the poller's closed-window pass
 * then does not draw the same card a second time, and of two drawings at
 * once only one is the closed-window one. Throws the front end's error (the
 * mark given back).
 */
export async function redrawCard(
  deps: { marks: CardMarks; update: InboxIo["updateCard"] },
  t: ThreadDesk & Pick<Thread, "channel" | "chatUserId" | "windowClosedShown">,
  threadTs: string,
  card: CardState,
  now: Date,
): Promise<void> {
  const closed = t.customerWroteAt !== null && now.getTime() - t.customerWroteAt.getTime() >= REPLY_WINDOW_MS;
  const took = closed && !t.windowClosedShown && (await deps.marks.takeWindowClosed(t.channel, t.chatUserId));
  try {
    await deps.update(t.channel, threadTs, t.chatUserId, card, cardDesk(t, now));
  } catch (err) {
    if (took) await deps.marks.releaseWindowClosed(t.channel, t.chatUserId).catch(() => {});
    throw err;
  }
}

export class Cards {
  private readonly ctx: PassContext;
  private tags: { at: number; names: Map<number, string> } | undefined;

  constructor(ctx: PassContext) {
    this.ctx = ctx;
  }

  /**
   * The thread's card, posted once: the thread is claimed first (one row per
   * channel and chat user), so two processes never both post it. A claim a
   * crash left (or a post whose outcome is unknown) is looked for in the
   * channel before the card is posted again.
   */
  async post(
    channel: string,
    chatUserId: number,
    thread: Thread,
    card: CardState,
  ): Promise<string | undefined> {
    const { store, io, lease } = this.ctx;
    if (!(await store.claimCard(channel, chatUserId, lease.workerId, thread.cardClaimedBy, this.ctx.now())))
      return undefined;
    if (thread.cardClaimedBy && io.findCard) {
      const found = await io.findCard(channel, chatUserId);
      if (found) return found;
    }
    try {
      await lease.keep(channel);
      return await io.postCard(channel, chatUserId, card, cardDesk(thread, this.ctx.now()));
    } catch (err) {
      // The front end answered with an error: no card; the next poll may post it.
      if (io.errorCode(err)) await store.releaseCard(channel, chatUserId, lease.workerId);
      throw err;
    }
  }

  /** What a new card shows of the chat user; `fresh` are the messages about to be mirrored. */
  async state(u: ChatUser, fresh: Message[], answered: boolean | undefined): Promise<CardState> {
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

  /** The card redrawn when what it shows changed (needs a human, answered, last activity). */
  async refresh(
    channel: string,
    chatUserId: number,
    u: ChatUser,
    lastDirection: "inbound" | "outbound" | undefined,
    force = false,
  ): Promise<void> {
    const { store, io, log } = this.ctx;
    const thread = await store.thread(channel, chatUserId);
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
      await redrawCard(
        { marks: this.ctx.marks, update: io.updateCard },
        thread,
        thread.threadTs,
        next,
        this.ctx.now(),
      );
      await store.updateThread(channel, chatUserId, { card: next });
    } catch (err) {
      log.warn({ channel, code: io.errorCode(err) }, "could not update an inbox card");
    }
  }

  /**
   * Cards whose reply window closed since they were drawn: redrawn once with
   * "Window closed" and Send template first (an open window is drawn as a
   * date, which needs no redraw). Store reads only, no API read.
   */
  async showClosedWindows(channel: string): Promise<void> {
    const { store, io, log, marks } = this.ctx;
    for (const t of await store.windowsClosed(channel, this.ctx.now())) {
      try {
        // Drawn already (the desk's redraw took the mark since the list was read): not drawn again.
        if (!(await marks.takeWindowClosed(channel, t.chatUserId))) continue;
        await io
          .updateCard(
            channel,
            t.threadTs as string,
            t.chatUserId,
            t.card as CardState,
            cardDesk(t, this.ctx.now()),
          )
          .catch(async (err) => {
            await marks.releaseWindowClosed(channel, t.chatUserId).catch(() => {});
            throw err;
          });
      } catch (err) {
        log.warn({ channel, code: io.errorCode(err) }, "could not update an inbox card");
      }
    }
  }

  /** The card drawn again as the thread is now (a rating recorded, a snooze over). */
  async redraw(t: Thread): Promise<void> {
    const { io, log } = this.ctx;
    if (!t.threadTs || !t.card) return;
    try {
      await redrawCard(
        { marks: this.ctx.marks, update: io.updateCard },
        t,
        t.threadTs,
        t.card,
        this.ctx.now(),
      );
    } catch (err) {
      log.warn({ channel: t.channel, code: io.errorCode(err) }, "could not update an inbox card");
    }
  }

  /**
   * Snoozed conversations whose time came (issue 29 §3): each taken in one
   * statement (the snooze cleared as it is read), so of two replicas, or a
   * process before and after a restart, one wakes it, once; then its card is
   * redrawn and the person who has it (else who snoozed it) told in the thread.
   */
  async wakeSnoozed(channel: string): Promise<number> {
    const woken = await this.ctx.store.wakeDue(channel, this.ctx.now());
    for (const t of woken) {
      await this.redraw(t);
      if (t.threadTs && t.card)
        await this.tellWoken(channel, t.threadTs, t.card.name, t.assignee ?? t.wokenBy, "time");
    }
    return woken.length;
  }

  /** Said in the thread: the conversation is back from its snooze. */
  async tellWoken(
    channel: string,
    threadTs: string,
    name: string,
    tell: string | null,
    why: "time" | "customer",
  ): Promise<void> {
    const { io, lease, log } = this.ctx;
    if (!io.postWoken) return;
    try {
      await lease.keep(channel);
      await io.postWoken(channel, threadTs, name, tell, why);
    } catch (err) {
      log.warn({ channel, code: io.errorCode(err) }, "could not say a snoozed conversation is back");
    }
  }

  private async tagNames(ids: number[]): Promise<string[]> {
    if (!ids.length) return [];
    const fresh = this.tags && Date.now() - this.tags.at < TAGS_CACHE_MS;
    if (!fresh || ids.some((id) => !this.tags?.names.has(id))) {
      try {
        const page = await this.ctx.read(this.ctx.client.listTags({ lane: "background" }));
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
}
