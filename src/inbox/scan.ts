// What moved in an inbox: one GET /chat-users, sorted by last_activity newest
// first (with needHuman=true for a need-human inbox), read until the activity
// is older than what was already looked at (idle, one read a poll); the chat
// users whose activity moved are followed (follow.ts), oldest activity first,
// then the threads a burst or a failure left behind. A new inbox starts from
// now, with a card for each conversation already unread or needing a human.
// A burst larger than a poll reads is read over the next polls.
import { chatUserActivity, chatUserHasUnread, chatUserMessages, chatUserNeedsHuman } from "../api/inbox.ts";
import type { ChatUserType as ChatType } from "../api/schemas.ts";
import type { ChatUser, Message } from "../api/types.ts";
import type { Inbox } from "../store/inbox.ts";
import type { PassContext } from "./context.ts";
import { type Follow, OVERLAP_MS } from "./follow.ts";

/** The first cards of a new inbox: conversations already unread or needing a human. */
export const FIRST_CARDS = 20;
/** Chat users read per list page. */
const LIST_LIMIT = 25;
/** At most this many list pages a poll (a burst of activity is read over the next polls). */
export const MAX_LIST_PAGES = 4;
/** Threads left behind (a burst, a failure) followed again in one poll, beside the list. */
const BEHIND_PER_POLL = 10;
/**
 * Above this many moved conversations in one poll, the moved ones are listed
 * again with their latest messages (`includeMessages=true`: one read a page)
 * instead of one history read each; a history is still read for a
 * conversation whose included messages do not reach back far enough.
 */
const INCLUDE_MESSAGES_ABOVE = 4;

interface ListRead {
  users: ChatUser[];
  /** The read reached activity older than it looked for, or the list's end. */
  complete: boolean;
  lastPage: number;
  newest: Date | undefined;
}

/**
 * Which chat users an inbox lists: need-human ones or all; one chat type
 * through the API's `type` filter (it takes one value), several by keeping
 * the matching ones of the one list read (the idle cost stays one read).
 */
interface ListFilter {
  needHuman: true | undefined;
  type?: string;
  keep: (u: ChatUser) => boolean;
}

function listFilter(inbox: Inbox): ListFilter {
  const needHuman = inbox.filter === "need_human" ? true : undefined;
  if (inbox.types.length === 1) return { needHuman, type: inbox.types[0], keep: () => true };
  if (!inbox.types.length) return { needHuman, keep: () => true };
  return { needHuman, keep: (u) => typeof u.type === "string" && inbox.types.includes(u.type) };
}

export class Scan {
  private readonly ctx: PassContext;
  private readonly follow: Follow;

  constructor(ctx: PassContext, follow: Follow) {
    this.ctx = ctx;
    this.follow = follow;
  }

  /** One poll of an inbox whose lease this process holds. */
  async poll(inbox: Inbox): Promise<{ posted: number; threads: number }> {
    const { store, lease } = this.ctx;
    const api = this.ctx.client;
    const now = this.ctx.now();
    const floor = new Date(now.getTime() - this.ctx.lookbackMs);
    const out = { posted: 0, threads: 0 };
    const filter = listFilter(inbox);
    const needHuman = filter.needHuman;
    const type = filter.type ? { type: filter.type as ChatType } : {};

    if (!inbox.primed) {
      // From now on, plus one card for each conversation already unread or needing a human.
      const lists = [
        this.ctx.read(
          api.listChatUsers(
            { needHuman: true, sortBy: "last_activity", sortOrder: "DESC", limit: FIRST_CARDS, ...type },
            { lane: "background" },
          ),
        ),
      ];
      if (!needHuman)
        lists.push(
          this.ctx.read(
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
        for (const u of page.items) if (typeof u.id === "number" && filter.keep(u)) seen.set(u.id, u);
      const users = [...seen.values()]
        .sort((a, b) => (chatUserActivity(b)?.getTime() ?? 0) - (chatUserActivity(a)?.getTime() ?? 0))
        .slice(0, FIRST_CARDS)
        // Oldest first, so the newest card ends at the bottom of the channel.
        .reverse();
      for (const u of users) {
        const r = await this.follow.safely(inbox, u, floor, {
          force: chatUserNeedsHuman(u) || chatUserHasUnread(u),
        });
        out.posted += r.posted;
        out.threads += r.created ? 1 : 0;
      }
      await store.polled(inbox.channel, lease.workerId, {
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
    const front = await this.listFrom(1, top, filter);
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
      const rest = await this.listFrom(Math.max(1, inbox.listPage), cursor, filter);
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
        const p = await this.listPage(page, filter, true);
        for (const u of p.items) {
          const messages = chatUserMessages(u);
          if (typeof u.id === "number" && messages) included.set(u.id, messages);
        }
        if (p.items.length < p.limit) break;
      }
    }
    for (const u of users) {
      const r = await this.follow.safely(inbox, u, cursor, {
        force: needHuman === true,
        included: typeof u.id === "number" ? included.get(u.id) : undefined,
      });
      out.posted += r.posted;
      out.threads += r.created ? 1 : 0;
    }
    // Threads a burst or a failure left behind, whatever the list says.
    for (const t of await store.behindThreads(inbox.channel, BEHIND_PER_POLL)) {
      if (moved.has(t.chatUserId)) continue;
      const r = await this.follow.safely(inbox, { id: t.chatUserId } as ChatUser, cursor, {
        force: false,
        lookUp: true,
      });
      out.posted += r.posted;
      out.threads += r.created ? 1 : 0;
    }
    await store.polled(inbox.channel, lease.workerId, {
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
  private async listFrom(page: number, since: Date, filter: ListFilter): Promise<ListRead> {
    const stop = since.getTime() - OVERLAP_MS;
    const users: ChatUser[] = [];
    let newest: Date | undefined;
    for (let n = 0; n < MAX_LIST_PAGES; n++, page++) {
      const p = await this.listPage(page, filter);
      for (const u of p.items) {
        const activity = chatUserActivity(u);
        // Without an activity time there is no telling: look at its history (costs a read).
        if (activity && activity.getTime() < stop) return { users, complete: true, lastPage: page, newest };
        if (activity && (!newest || activity > newest)) newest = activity;
        if (filter.keep(u)) users.push(u);
      }
      if (p.items.length < p.limit) return { users, complete: true, lastPage: page, newest };
    }
    return { users, complete: false, lastPage: page - 1, newest };
  }

  /** One page of the inbox's chat users, latest activity first (with their latest messages when asked). */
  private listPage(page: number, filter: ListFilter, includeMessages?: true) {
    return this.ctx.read(
      this.ctx.client.listChatUsers(
        {
          sortBy: "last_activity",
          sortOrder: "DESC",
          limit: LIST_LIMIT,
          page,
          ...(includeMessages ? { includeMessages } : {}),
          ...(filter.needHuman ? { needHuman: filter.needHuman } : {}),
          ...(filter.type ? { type: filter.type as ChatType } : {}),
        },
        { lane: "background" },
      ),
    );
  }
}
