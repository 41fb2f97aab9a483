// What an inbox shows in Slack: the thread's parent card (who, where, whether
// a human is needed, tags, buttons) and one reply per message. Everything a
// customer wrote (text, name, file links) goes through esc(): a customer
// writing `<!channel>` pings nobody.
import type { KnownBlock } from "@slack/types";
import { ACTION } from "../../blocks/actions.ts";
import { actions, context, esc, section, truncate } from "../../blocks/blocks.ts";
import { chatTypeLabel } from "../../domain/chat-types.ts";
import type { CardState } from "../../store/inbox.ts";

export const channelTypeLabel = (type: string | undefined) =>
  type ? esc(chatTypeLabel(type)) : "unknown channel";

/** A time in each reader's zone; the fallback (shell, notifications) is UTC. */
export function timeOf(at: Date): string {
  const fallback = `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return `<!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} {time}|${fallback}>`;
}

export function cardMessage(chatUserId: number, s: CardState): { text: string; blocks: KnownBlock[] } {
  const who = `*${esc(s.name)}*${s.contact ? ` · ${esc(s.contact)}` : ""}`;
  const state = s.needHuman
    ? ":raising_hand: *Needs a human*"
    : s.answered
      ? ":white_check_mark: Answered"
      : ":speech_balloon: Waiting for an answer";
  const facts = [channelTypeLabel(s.type), state];
  if (s.tags.length) facts.push(`Tags: ${s.tags.map(esc).join(", ")}`);
  if (s.lastActivity) facts.push(`Last activity ${timeOf(new Date(s.lastActivity))}`);
  const contactLine = s.contactId ? `contact ${s.contactId}` : `user ${chatUserId}`;
  return {
    text: `Conversation with ${esc(s.name)}${s.contact ? ` (${esc(s.contact)})` : ""}${s.needHuman ? ": needs a human" : ""}`,
    blocks: [
      section(`:incoming_envelope: ${who}`),
      context(facts.join("  ·  ")),
      actions([
        { text: "Reply", actionId: ACTION.inboxReply, value: String(chatUserId), style: "primary" },
        { text: "Send template", actionId: ACTION.inboxTemplate, value: String(chatUserId) },
        { text: "Contact", actionId: ACTION.run, value: contactLine },
      ]),
      context(
        "Reply in this thread to answer the customer; start with `//` for a note the customer does not see.",
      ),
    ],
  };
}

export interface MirroredMessage {
  direction: "inbound" | "outbound" | undefined;
  at: Date | undefined;
  text: string;
  type?: string;
  mediaUrl?: string;
}

/** One message of the conversation as a thread reply: who, when, the text quoted as written. */
export function messageReply(name: string, m: MirroredMessage): { text: string; blocks: KnownBlock[] } {
  const who =
    m.direction === "outbound"
      ? ":outbox_tray: *Outgoing* (sent from elsewhere)"
      : `:bust_in_silhouette: *${esc(name)}*`;
  const when = m.at ? ` · ${timeOf(m.at)}` : "";
  const lines: string[] = [];
  if (m.text) lines.push(esc(truncate(m.text, 2800)));
  if (m.mediaUrl) {
    const label = m.type === "image" ? "image" : m.type === "document" ? "document" : "file";
    // The link is the customer's too: only a plain http(s) URL becomes a link.
    lines.push(
      /^https?:\/\/[^\s<>|]+$/.test(m.mediaUrl)
        ? `:paperclip: <${esc(m.mediaUrl)}|${label}>`
        : `:paperclip: ${label}: ${esc(m.mediaUrl)}`,
    );
  }
  if (!lines.length) lines.push(`_(${esc(m.type ?? "empty")} message)_`);
  const body = lines.join("\n");
  return {
    text: `${m.direction === "outbound" ? "Outgoing" : esc(name)}: ${truncate(body, 2900)}`,
    blocks: [context(`${who}${when}`), section(body)],
  };
}
