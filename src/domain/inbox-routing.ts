// Which inbox a conversation goes to (docs/inbox.md, "Routing"): an inbox
// takes every chat type or some (`type=`), every conversation or only those
// needing a human. Of the inboxes that match, the most specific takes it
// (fewer chat types first, then need-human), ties to the oldest; it is never
// mirrored into two. Pure: the poller and `/sb inbox` share it.
import { CHAT_USER_TYPES } from "../api/schemas.ts";
import { chatTypeLabel } from "./chat-types.ts";

export interface RoutedInbox {
  channel: string;
  filter: "all" | "need_human";
  /** The chat types it takes; empty: every type. */
  types: string[];
  createdAt: Date;
}

/** What a conversation is routed by. */
export interface RoutedChatUser {
  type?: string;
  needHuman: boolean;
}

export const CHAT_TYPES: readonly string[] = CHAT_USER_TYPES;

export function inboxMatches(inbox: RoutedInbox, u: RoutedChatUser): boolean {
  if (inbox.filter === "need_human" && !u.needHuman) return false;
  return !inbox.types.length || (u.type !== undefined && inbox.types.includes(u.type));
}

/** Negative: `a` is more specific (fewer chat types, then need-human), then older. */
export function bySpecificity(a: RoutedInbox, b: RoutedInbox): number {
  const width = (i: RoutedInbox) => i.types.length || CHAT_TYPES.length + 1;
  return (
    width(a) - width(b) ||
    (a.filter === "need_human" ? 0 : 1) - (b.filter === "need_human" ? 0 : 1) ||
    a.createdAt.getTime() - b.createdAt.getTime() ||
    (a.channel < b.channel ? -1 : a.channel > b.channel ? 1 : 0)
  );
}

/** The inbox a conversation goes to, if any matches. */
export function routeOf<I extends RoutedInbox>(inboxes: readonly I[], u: RoutedChatUser): I | undefined {
  return inboxes.filter((i) => inboxMatches(i, u)).sort(bySpecificity)[0];
}

/** "Phone chat and Web chat", "every chat type". */
export function typesInWords(types: readonly string[]): string {
  if (!types.length) return "every chat type";
  const words = types.map(chatTypeLabel);
  return words.length === 1 ? words[0]! : `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/** Two inboxes that both match some conversations: which ones, and where they go. */
export interface Overlap<I extends RoutedInbox> {
  a: I;
  b: I;
  /** The chat types both take (empty: every type). */
  types: string[];
  needHuman: boolean;
  /** The one of the two these conversations go to. */
  winner: I;
}

export function overlaps<I extends RoutedInbox>(inboxes: readonly I[]): Overlap<I>[] {
  const out: Overlap<I>[] = [];
  const sorted = [...inboxes].sort((x, y) => x.createdAt.getTime() - y.createdAt.getTime());
  for (const [n, a] of sorted.entries())
    for (const b of sorted.slice(n + 1)) {
      const types = !a.types.length
        ? b.types
        : !b.types.length
          ? a.types
          : a.types.filter((t) => b.types.includes(t));
      if ((a.types.length || b.types.length) && !types.length) continue;
      out.push({
        a,
        b,
        types,
        needHuman: a.filter === "need_human" || b.filter === "need_human",
        winner: bySpecificity(a, b) <= 0 ? a : b,
      });
    }
  return out;
}
