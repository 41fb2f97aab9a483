// What the inbox tests do over and over, on the single-workspace stack
// (test/helpers/stack.ts) and its inbox runtime: a chat user with no thread
// in an inbox yet, a customer writing through the sandbox's control route,
// a thread's replies in the fake Slack, a conversation's messages in the API.
//   const inbox = inboxParts(s, () => runtime.poller.store, "C0SUPPORT");
import { expect } from "vitest";
import type { Message } from "../../src/api/types.ts";
import type { InboxStore } from "../../src/store/inbox.ts";
import type { Rec } from "./sandbox.ts";
import type { SlackStack } from "./stack.ts";

export interface InboxParts {
  /** A chat user of the sandbox with no thread in the inbox yet (each given once). */
  freshUser(): Promise<number>;
  /** The chat user writes in (the sandbox's control route): a customer's message. */
  customerWrites(chatUserId: number, text: string): Promise<void>;
  /** The chat user's thread in the inbox (its parent's ts). */
  threadOf(chatUserId: number): Promise<string>;
  /** The replies the fake Slack holds in that thread. */
  inThread(threadTs: string): Rec[];
  /** The chat user's conversation's messages, as the API keeps them. */
  messagesOf(chatUserId: number): Promise<Message[]>;
}

export function inboxParts(s: SlackStack, store: () => InboxStore, channel: string): InboxParts {
  const used = new Set<number>();
  const threadRow = async (chatUserId: number) => {
    const t = await store().thread(channel, chatUserId);
    if (!t) throw new Error(`chat user ${chatUserId} has no thread in ${channel}`);
    return t;
  };
  return {
    async freshUser() {
      const page = await s.client.listChatUsers({ limit: 100 });
      for (const u of page.items)
        if (typeof u.id === "number" && !used.has(u.id) && !(await store().thread(channel, u.id))) {
          used.add(u.id);
          return u.id;
        }
      throw new Error("no chat user left");
    },
    async customerWrites(chatUserId, text) {
      const res = await fetch(`${s.sandbox.controlUrl}/chat-users/${chatUserId}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": s.sandbox.apiKey },
        body: JSON.stringify({ text }),
      });
      expect(res.status).toBe(201);
    },
    threadOf: async (chatUserId) => (await threadRow(chatUserId)).threadTs as string,
    inThread: (ts) => s.fake.messages.filter((m) => m.channel === channel && m.thread_ts === ts),
    async messagesOf(chatUserId) {
      const conversation = (await threadRow(chatUserId)).conversationId as number;
      return (await s.client.listConversationMessages(conversation, { limit: 100 })).items;
    },
  };
}
