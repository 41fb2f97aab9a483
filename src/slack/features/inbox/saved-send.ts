// A saved reply (or, outside the 24-hour window, a template) sent from the
// saved-reply modal (issue 29 §1) the way a thread reply is sent
// (listeners/events/inbox-message.ts): the reply row claimed before the send
// (keyed by the modal's own id: a second click, a redelivery or another
// replica never sends it again), the window rules (text only within 24 hours
// of the customer's last message), the core's `perform` (writers only,
// audited as `inbox reply user:<id>`), an outcome never retried when unknown,
// the send recorded as Switchboard's own (the thread shows it as sent by that
// person), and the writer named in the thread. Failures are told privately.
import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { NetworkError } from "../../../api/errors.ts";
import { messageTime } from "../../../api/inbox.ts";
import type { SendMessageInput } from "../../../api/schemas.ts";
import { context as context_, esc, section } from "../../../blocks/blocks.ts";
import { apiErrorReply } from "../../../commands/errors.ts";
import { UserError } from "../../../commands/registry.ts";
import type { Actor } from "../../../commands/types.ts";
import { storable } from "../../../store/text.ts";
import type { OneWorkspaceWork } from "../../context.ts";
import { outsideWindow, replyChannel, tellWindowClosed } from "../../listeners/events/inbox-message.ts";
import { windowOpen } from "./render.ts";

export interface SavedSend {
  channel: string;
  chatUserId: number;
  /** The modal's own key: the reply row, claimed once. */
  key: string;
  /** What is sent: a text, or a template with its values. */
  body:
    | { type: "text"; text: string }
    | { type: "template"; template: NonNullable<SendMessageInput["template"]> };
  /** How the thread names it: "saved reply *thanks*", "template *order_update*". */
  label: string;
}

/** Sends it once; the outcome is said in the thread (to all when sent, to the writer alone otherwise). */
export async function sendSaved(
  ctx: OneWorkspaceWork,
  client: webApi.WebClient,
  actor: Actor,
  p: SavedSend,
): Promise<"sent" | "already" | "failed" | "unknown"> {
  const stores = ctx.stores;
  if (!stores) return "failed";
  const store = stores.inbox;
  const thread = await store.thread(p.channel, p.chatUserId);
  if (!thread?.threadTs) return "failed";
  const tell = async (text: string, blocks?: KnownBlock[]) => {
    await client.chat
      .postEphemeral({
        channel: p.channel,
        user: actor.userId,
        thread_ts: thread.threadTs as string,
        text,
        blocks: blocks ?? [section(text)],
      })
      .catch((err) => ctx.logger.warn({ err: (err as Error).message }, "could not tell the writer"));
  };
  const name = thread.card?.name ?? `chat user #${p.chatUserId}`;
  const words = storable(p.body.type === "text" ? p.body.text : `[template ${p.body.template.name}]`);
  if (
    !(await store.claimReply({
      channel: p.channel,
      messageTs: p.key,
      chatUserId: p.chatUserId,
      userId: actor.userId,
      now: new Date(),
      text: words,
    }))
  )
    return "already";
  // A text outside the 24-hour window is not even tried; a template is how to reach them then.
  if (
    p.body.type === "text" &&
    (thread.windowClosedShown || !windowOpen(thread.customerWroteAt, new Date()))
  ) {
    await store.finishReply(p.channel, p.key, "failed");
    await tellWindowClosed(tell, name, p.chatUserId, words);
    return "failed";
  }
  const channelId = replyChannel(thread, ctx.core);
  try {
    const sent = await ctx.core.perform(
      actor,
      { access: "write", command: `inbox reply user:${p.chatUserId}` },
      (api) => api.sendMessage({ channelId, chatUserId: p.chatUserId, ...p.body }),
    );
    const id = typeof sent.id === "number" ? sent.id : undefined;
    await store.finishReply(p.channel, p.key, "sent", id);
    // Switchboard's own send: the poller shows it in the thread as sent by this person.
    if (id !== undefined) await stores.ownSends.record(id, actor.userId, "reply").catch(() => {});
    const at = messageTime(sent);
    if (at)
      await store.updateThread(p.channel, p.chatUserId, {
        lastMessageAt: at,
        lastDirection: "outbound",
        lastText: words,
      });
    const line = `:white_check_mark: ${p.label} sent to ${esc(name)} by <@${actor.userId}>`;
    await ctx.posts
      .post(client, { channel: p.channel, thread_ts: thread.threadTs, text: line, blocks: [context_(line)] })
      .catch((err) =>
        ctx.logger.warn({ err: (err as Error).message }, "could not name a saved reply's writer"),
      );
    return "sent";
  } catch (err) {
    if (err instanceof NetworkError && err.mayHaveReachedServer) {
      await store.finishReply(p.channel, p.key, "unknown");
      await tell(
        `No answer from the messaging API: your reply may or may not have reached ${esc(name)}. Look for it in this thread on the next poll before sending it again.`,
      );
      return "unknown";
    }
    await store.finishReply(p.channel, p.key, "failed");
    if (err instanceof UserError) await tell(`${err.message} Nothing was sent.`);
    else if (outsideWindow(err)) await tellWindowClosed(tell, name, p.chatUserId, words);
    else await tell(`Not sent to ${esc(name)}. ${apiErrorReply(err).text}`);
    return "failed";
  }
}
