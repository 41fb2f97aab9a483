// At start: thread replies an earlier process left `sending`, settled and their writers told.
import type { webApi } from "@slack/bolt";
import { messageDirection } from "../../api/inbox.ts";
import { esc, section } from "../../blocks/blocks.ts";
import type { Actor } from "../../commands/types.ts";
import type { WorkspaceWork } from "../context.ts";
import { SENT_REACTION } from "../listeners/events/inbox-message.ts";

/** How far before a reply's claim its send is looked for in the conversation (clocks differ). */
const SETTLE_SLACK_MS = 5 * 60_000;

/**
 * At start: thread replies an earlier process left `sending` (stopped between
 * the claim and the API's answer) are settled, and each writer is told what
 * is known. The customer's conversation is read once: a message with the
 * reply's text sent since then means it reached the customer (the ✅, and the
 * poller does not show it again); none means it was most likely not sent.
 * Nothing is sent again here. Only replies claimed more than `graceMs` ago:
 * a younger one may be a live replica's (the caller settles again later).
 */
export async function settleInterruptedReplies(
  deps: WorkspaceWork,
  client: webApi.WebClient,
  graceMs: number,
): Promise<number> {
  const stores = deps.stores;
  if (!stores) return 0;
  const store = stores.inbox;
  const replies = await store.settleSendingReplies(new Date(Date.now() - graceMs));
  for (const r of replies) {
    const thread = await store.thread(r.channel, r.chatUserId);
    const name = esc(thread?.card?.name ?? `chat user #${r.chatUserId}`);
    const log = deps.logger.child({ channel: r.channel, ts: r.messageTs });
    let found: { id?: unknown } | undefined;
    let known = false;
    if (thread?.conversationId && r.text)
      try {
        const actor: Actor = { userId: r.userId, channelId: r.channel, via: "slack" };
        const after = new Date(r.createdAt.getTime() - SETTLE_SLACK_MS).toISOString();
        const page = await deps.core.perform(
          actor,
          { access: "read", command: `inbox reply check user:${r.chatUserId}` },
          (api) => api.listConversationMessages(thread.conversationId as number, { after, limit: 100 }),
        );
        found = page.items.find((m) => messageDirection(m) === "outbound" && m.text === r.text);
        known = true;
      } catch (err) {
        log.warn({ err: (err as Error).message }, "could not look for an interrupted inbox reply");
      }
    // A saved reply's row is keyed by its form (saved-send.ts), not by a message of the thread.
    const saved = !/^\d+\.\d+$/.test(r.messageTs);
    let words: string;
    if (found) {
      const id = typeof found.id === "number" ? found.id : undefined;
      await store.finishReply(r.channel, r.messageTs, "sent", id);
      if (saved) {
        // Nothing of it is in the thread: the next poll shows it there as sent by its writer, as a send does.
        if (id !== undefined) await stores.ownSends.record(id, r.userId, "reply").catch(() => {});
        words = `Switchboard restarted while sending your saved reply to ${name}; it did reach them (it is in their conversation), and it will show in this thread in a moment. Nothing more to do.`;
      } else {
        // The writer's own message in the thread is the reply: not mirrored again, marked sent.
        if (id !== undefined)
          await store.claimMessage(r.channel, id, r.chatUserId, "outbound", new Date(), r.messageTs);
        await client.reactions
          .add({ channel: r.channel, timestamp: r.messageTs, name: SENT_REACTION })
          .catch(() => {});
        words = `Switchboard restarted while sending your reply to ${name}; it did reach them (it is in their conversation). Nothing more to do.`;
      }
    } else if (known)
      words = `Switchboard restarted while sending your reply to ${name}, and it is not in their conversation: it was most likely not sent. Send it again if it is still needed.`;
    else
      words = `Switchboard restarted while sending your reply to ${name}: it may or may not have reached them. Look for it in this thread on the next poll before sending it again.`;
    log.warn(
      { outcome: found ? "sent" : known ? "not found" : "unknown" },
      "inbox reply interrupted by a restart",
    );
    await client.chat
      .postEphemeral({
        channel: r.channel,
        user: r.userId,
        ...(thread?.threadTs ? { thread_ts: thread.threadTs } : {}),
        text: words,
        blocks: [section(words)],
      })
      .catch((err) => log.warn({ err: (err as Error).message }, "could not tell the writer"));
  }
  return replies.length;
}
