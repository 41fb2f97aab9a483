// The one adapter for the members of chat users and messages that the inbox
// reads and the spec does not name ("Returned records … not shown"). Each is
// tried under the names listed in INBOX_GUESSED_MEMBERS, first match wins, so
// when the real API differs this is the one place that changes (docs/api.md,
// "Members the spec does not name"; docs/inbox.md).
import type { ApiRecord, ChatUser, Message } from "./types.ts";

/**
 * Guessed members, in the order they are tried. The sandbox answers the first
 * of each (docs/sandbox.md, "Response shapes").
 */
export const INBOX_GUESSED_MEMBERS = {
  /** Chat user: when the conversation last moved (list sort `last_activity` says it exists). */
  chatUserActivity: ["lastActivity", "last_activity", "lastMessageAt", "updatedAt", "updated_at"],
  /** Chat user: its conversations (GET /chat-users/{id}), newest first; the first is the one answered. */
  chatUserConversations: ["conversations"],
  /** Chat user: its latest messages, newest first, when the list is asked `includeMessages=true`. */
  chatUserMessages: ["messages"],
  /** Chat user: a conversation id given directly. */
  chatUserConversationId: ["conversationId", "conversation_id", "lastConversationId"],
  /** Chat user: the need-human flag (the spec names the filter `needHuman`). */
  chatUserNeedHuman: ["needHuman", "need_human"],
  /** Chat user: the organization's channel (integration) it writes on; answers go there. */
  chatUserChannelId: ["channelId", "channel_id", "integrationId"],
  /** Chat user: the contact it is (the send body names `contactId`). */
  chatUserContactId: ["contactId", "contact_id"],
  /** Chat user: unread messages (the spec names the filter `hasUnreadMessages`). */
  chatUserUnread: ["hasUnreadMessages", "unreadCount", "unread_count"],
  /** Conversation: its tag (a campaign's `conversationTagId`). */
  conversationTagId: ["tagId", "tag_id", "conversationTagId"],
  /** Message: who wrote it; values `inbound`/`outbound` (or incoming/outgoing, in/out). */
  messageDirection: ["direction"],
  /** Message: when it was written. */
  messageTime: ["createdAt", "created_at", "timestamp", "sentAt"],
  /** Message: its conversation. */
  messageConversationId: ["conversationId", "conversation_id"],
  /** Message: the organization's channel (integration) it came on; an answer goes there (the away message). */
  messageChannelId: ["channelId", "channel_id", "integrationId"],
  /** Message: the link of an image or document (the send body names it `mediaUrl`). */
  messageMediaUrl: ["mediaUrl", "media_url", "url"],
  /** Message: an image's or document's caption (the send body names it `text`). */
  messageCaption: ["caption", "text"],
  /** Message: a document's file name. */
  messageFileName: ["fileName", "file_name", "filename"],
  /** Message: the template a template message was sent with (the send body names it `template`: name, language, parameters). */
  messageTemplate: ["template"],
} as const;

type Key = keyof typeof INBOX_GUESSED_MEMBERS;

function first(r: ApiRecord | undefined, key: Key): unknown {
  if (!r) return undefined;
  for (const name of INBOX_GUESSED_MEMBERS[key]) {
    const v = r[name];
    if (v !== undefined && v !== null) return v;
  }
  return undefined;
}

function asDate(v: unknown): Date | undefined {
  if (typeof v !== "string" && typeof v !== "number") return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

function asId(v: unknown): number | undefined {
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
  return typeof n === "number" && Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** When the chat user's conversation last moved; undefined when the API does not say. */
export const chatUserActivity = (u: ChatUser): Date | undefined => asDate(first(u, "chatUserActivity"));

/** The chat user's conversations as records (GET /chat-users/{id}); empty when absent. */
export function chatUserConversations(u: ChatUser): ApiRecord[] {
  const list = first(u, "chatUserConversations");
  return Array.isArray(list) ? list.filter((c): c is ApiRecord => c !== null && typeof c === "object") : [];
}

/** The latest messages a list with `includeMessages=true` carried; undefined when it carried none. */
export function chatUserMessages(u: ChatUser): Message[] | undefined {
  const list = first(u, "chatUserMessages");
  return Array.isArray(list)
    ? list.filter((m): m is Message => m !== null && typeof m === "object")
    : undefined;
}

/** The conversation to mirror and answer: a direct member, else the newest of `conversations`. */
export function chatUserConversationId(u: ChatUser): number | undefined {
  return asId(first(u, "chatUserConversationId")) ?? asId(chatUserConversations(u)[0]?.id);
}

export const chatUserNeedsHuman = (u: ChatUser): boolean => {
  const v = first(u, "chatUserNeedHuman");
  return v === true || v === "true";
};

/** The channel (integration) a message came on; undefined when the API does not say. */
export const messageChannelId = (m: Message): number | undefined => asId(first(m, "messageChannelId"));

export const chatUserChannelId = (u: ChatUser): number | undefined => asId(first(u, "chatUserChannelId"));

export const chatUserContactId = (u: ChatUser): number | undefined => asId(first(u, "chatUserContactId"));

export const chatUserHasUnread = (u: ChatUser): boolean => {
  const v = first(u, "chatUserUnread");
  return v === true || (typeof v === "number" && v > 0);
};

/** Tag ids of the chat user's conversations (deduplicated, in order). */
export function chatUserTagIds(u: ChatUser): number[] {
  const ids = chatUserConversations(u)
    .map((c) => asId(first(c, "conversationTagId")))
    .filter((id): id is number => id !== undefined);
  return [...new Set(ids)];
}

export type Direction = "inbound" | "outbound";

/** Who wrote a message: the customer (inbound) or the organization (outbound); undefined when unknown. */
export function messageDirection(m: Message): Direction | undefined {
  const v = first(m, "messageDirection");
  if (typeof v !== "string") return undefined;
  const d = v.toLowerCase();
  if (d === "inbound" || d === "incoming" || d === "in") return "inbound";
  if (d === "outbound" || d === "outgoing" || d === "out") return "outbound";
  return undefined;
}

export const messageTime = (m: Message): Date | undefined => asDate(first(m, "messageTime"));

export const messageConversationId = (m: Message): number | undefined =>
  asId(first(m, "messageConversationId"));

export function messageMediaUrl(m: Message): string | undefined {
  const v = first(m, "messageMediaUrl");
  return typeof v === "string" && v ? v : undefined;
}

/** The caption of an image or document (or a text message's text); empty when none. */
export function messageCaption(m: Message): string {
  const v = first(m, "messageCaption");
  return typeof v === "string" ? v : "";
}

/** A document's file name; undefined when the API does not say. */
export function messageFileName(m: Message): string | undefined {
  const v = first(m, "messageFileName");
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** The template of a template message: its name, language and values; undefined when the record does not say. */
export function messageTemplate(
  m: Message,
): { name: string; language?: string; parameters: Record<string, string> } | undefined {
  const v = first(m, "messageTemplate");
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const t = v as { name?: unknown; language?: unknown; parameters?: unknown };
  if (typeof t.name !== "string" || !t.name) return undefined;
  const parameters: Record<string, string> = {};
  if (t.parameters && typeof t.parameters === "object" && !Array.isArray(t.parameters))
    for (const [k, x] of Object.entries(t.parameters))
      if (x !== null && x !== undefined) parameters[k] = String(x);
  return { name: t.name, ...(typeof t.language === "string" ? { language: t.language } : {}), parameters };
}
