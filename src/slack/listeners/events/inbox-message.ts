// Answering from an inbox thread (docs/inbox.md): a writer's message in the
// thread of a chat user is sent to that customer, exactly once, as text.
// Slack redelivers events (X-Slack-Retry-Num): the event id is handled once
// (dedupe.ts), and the reply row (channel + message ts, src/store/inbox.ts) is
// claimed before the send, so no redelivery, restart or second process sends
// it again. Acknowledged with a reaction; failures told privately, in words.
// Bot messages, other threads, edits, deletions and `//` notes send nothing.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { isApiError, NetworkError } from "../../../api/errors.ts";
import { messageTime } from "../../../api/inbox.ts";
import { actions, esc, section } from "../../../blocks/blocks.ts";
import { apiErrorReply } from "../../../commands/errors.ts";
import { UserError } from "../../../commands/registry.ts";
import { plainLine } from "../../../commands/tokenize.ts";
import { ACTION } from "../../../commands/types.ts";
import { InboxStore } from "../../../store/inbox.ts";
import type { SlackContext } from "../../context.ts";

/** A message starting with this is a note for the team, never sent. */
export const NOTE_PREFIX = "//";
/** The reaction on a reply that reached the messaging API. */
export const SENT_REACTION = "white_check_mark";

interface ThreadMessage {
  type: "message";
  subtype?: string;
  channel: string;
  user?: string;
  bot_id?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  files?: unknown[];
}

/** The 24-hour window, as the service words a refusal (a 422 naming it). */
const outsideWindow = (err: unknown) =>
  isApiError(err) && (err.status === 422 || err.status === 400) && /24.?hour|window/i.test(err.message);

export async function inboxMessage({
  event,
  client,
  context,
}: SlackEventMiddlewareArgs<"message"> & AllMiddlewareArgs<SlackContext>): Promise<void> {
  const e = event as unknown as ThreadMessage;
  const actor = context.actor;
  // Edits, deletions, joins, bot posts: subtypes. Only a person's new thread reply counts.
  if (e.subtype || e.bot_id || !e.user || !actor || !e.thread_ts || e.thread_ts === e.ts || !context.db)
    return;
  const store = new InboxStore(context.db);
  const thread = await store.threadByTs(e.channel, e.thread_ts);
  if (!thread) return;
  const typed = plainLine(e.text ?? "").trim();
  const done = (outcome: string) =>
    context.logger.info({ channel: e.channel, ts: e.ts, outcome }, "inbox thread message handled");
  if (typed.startsWith(NOTE_PREFIX)) return done("note");

  const tell = async (text: string, blocks?: KnownBlock[]) => {
    await client.chat
      .postEphemeral({
        channel: e.channel,
        user: e.user as string,
        thread_ts: e.thread_ts,
        text,
        blocks: blocks ?? [section(text)],
      })
      .catch((err) => context.logger.warn({ err: (err as Error).message }, "could not tell the writer"));
  };
  if (!typed) {
    if (e.files?.length)
      await tell("Only text is sent to the customer: files in this thread stay in Slack. Nothing was sent.");
    return;
  }
  if (!(await store.inbox(e.channel))) {
    await tell(
      "This channel's inbox is off (`/sb inbox on` turns it on again): nothing was sent to the customer.",
    );
    return;
  }
  if (
    !(await context.core
      .perform(actor, { scope: "write", command: "inbox" }, async () => true)
      .catch(() => false))
  ) {
    await tell(
      "You may not answer customers here: only writers may (SWITCHBOARD_WRITERS). Nothing was sent; start a message with `//` for a note the team sees.",
    );
    return done("not allowed");
  }
  // Claimed before the send: whatever Slack redelivers, one send.
  const claimed = await store.claimReply({
    channel: e.channel,
    messageTs: e.ts,
    chatUserId: thread.chatUserId,
    userId: e.user,
    now: new Date(),
  });
  if (!claimed) return done("already handled");
  const name = thread.card?.name ?? `chat user #${thread.chatUserId}`;
  const channelId = thread.card?.channelId ?? context.config.MESSAGING_CHANNEL_ID ?? 1;
  try {
    const sent = await context.core.perform(
      actor,
      { scope: "write", command: `inbox reply user:${thread.chatUserId}` },
      (api) => api.sendMessage({ channelId, type: "text", chatUserId: thread.chatUserId, text: typed }),
    );
    const id = typeof sent.id === "number" ? sent.id : undefined;
    await store.finishReply(e.channel, e.ts, "sent", id);
    // Switchboard's own send: the poller must not show it a second time.
    if (id !== undefined)
      await store.claimMessage(e.channel, id, thread.chatUserId, "outbound", new Date(), e.ts);
    // The API's time, not ours: the poller asks for history after it.
    const at = messageTime(sent);
    if (at)
      await store.updateThread(e.channel, thread.chatUserId, {
        lastMessageAt: at,
        lastDirection: "outbound",
        lastText: typed,
      });
    await client.reactions
      .add({ channel: e.channel, timestamp: e.ts, name: SENT_REACTION })
      .catch((err) =>
        context.logger.warn({ err: (err as Error).message }, "could not acknowledge an inbox reply"),
      );
    done("sent");
  } catch (err) {
    if (err instanceof NetworkError && err.mayHaveReachedServer) {
      await store.finishReply(e.channel, e.ts, "unknown");
      await tell(
        `No answer from the messaging API: your reply may or may not have reached ${esc(name)}. Look for it in this thread on the next poll before sending it again.`,
      );
      return done("unknown");
    }
    await store.finishReply(e.channel, e.ts, "failed");
    if (err instanceof UserError) {
      await tell(`${err.message} Nothing was sent.`);
      return done("refused");
    }
    if (outsideWindow(err)) {
      const text = `Not sent: ${esc(name)} last wrote more than 24 hours ago, so only a template message can reach them now.`;
      await tell(text, [
        section(text),
        actions([
          {
            text: "Send template",
            actionId: ACTION.inboxTemplate,
            value: String(thread.chatUserId),
            style: "primary",
          },
        ]),
      ]);
      return done("outside the window");
    }
    const reply = apiErrorReply(err);
    context.logger.info({ channel: e.channel, err: (err as Error).message }, "inbox reply refused");
    await tell(`Not sent to ${esc(name)}. ${reply.text}`);
    done("failed");
  }
}
