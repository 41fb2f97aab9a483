// Answering from an inbox thread (docs/inbox.md): a writer's message in the
// thread of a chat user is sent to that customer, exactly once, as text.
// Slack redelivers events (X-Slack-Retry-Num): the event id is handled once
// (dedupe.ts), and the reply row (channel + message ts, src/store/inbox.ts) is
// claimed before the send, so no redelivery, restart or second process sends
// it again. Acknowledged with a reaction; failures told privately, in words.
// Bot messages, other threads, edits, deletions and notes (`//`, `note:`, or
// every reply in a `replies=notes` inbox) send nothing.
import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { isApiError, NetworkError } from "../../../api/errors.ts";
import { messageTime } from "../../../api/inbox.ts";
import type { Message } from "../../../api/types.ts";
import { actions, context as context_, esc, section, truncate } from "../../../blocks/blocks.ts";
import { apiErrorReply } from "../../../commands/errors.ts";
import { UserError } from "../../../commands/registry.ts";
import { plainLine } from "../../../commands/tokenize.ts";
import { ACTION, type CommandCore } from "../../../commands/types.ts";
import { workClockOf } from "../../../domain/business-hours.ts";
import { storable } from "../../../store/text.ts";
import type { Reach } from "../../context.ts";
import { mediaMessages, prepareMedia } from "../../features/inbox/media.ts";
import { isNote } from "../../features/inbox/notes.ts";
import { customerText } from "../../features/inbox/plain.ts";
import { windowOpen } from "../../features/inbox/render.ts";
import type { EventArgs } from "../on.ts";

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

/** A message with files (Slack's subtype); its files are sent as images or documents. */
const FILE_SHARE = "file_share";

/** Edits, deletions, joins…: a subtype other than a message with files. */
const otherKind = (e: ThreadMessage) => e.subtype !== undefined && e.subtype !== FILE_SHARE;

/** The files of a `file_share` message, in order. */
function sharedFiles(e: ThreadMessage): Array<{ id: string }> {
  if (e.subtype !== FILE_SHARE) return [];
  return (e.files ?? []).flatMap((f) => {
    const id = (f as { id?: unknown } | null)?.id;
    return typeof id === "string" && id ? [{ id }] : [];
  });
}

/** Files need a public address: nothing is sent, and the text (as typed, Slack's markup) is given back. */
function noPublicAddress(typed: string): string {
  const kept = typed.trim() ? `\nYour text, to send again:\n>${typed.trim().replace(/\n/g, "\n>")}` : "";
  return `Not sent: sending files to customers needs a public address for Switchboard (the PUBLIC_URL setting, for whoever runs it). Nothing of this reply was sent.${kept}`;
}

/** The 24-hour window, as the service words a refusal (a 422 naming it). */
export const outsideWindow = (err: unknown) =>
  isApiError(err) && (err.status === 422 || err.status === 400) && /24.?hour|window/i.test(err.message);

/**
 * Where a reply to a customer is sent: the conversation's own channel (the one the chat user writes on, on its
 * card), else the workspace's default messaging channel (its settings, never the deployment's config).
 */
export const replyChannel = (
  thread: { card: { channelId?: number } | null },
  core: Pick<CommandCore, "defaultChannelId">,
): number => thread.card?.channelId ?? core.defaultChannelId ?? 1;

export async function inboxMessage({ event, client, ctx }: EventArgs<"message">): Promise<void> {
  const e = event as unknown as ThreadMessage;
  const actor = ctx.actor;
  // Edits, deletions, joins, bot posts: subtypes. Only a person's new thread reply counts.
  if (otherKind(e) || e.bot_id || !e.user || !actor || !e.thread_ts || e.thread_ts === e.ts || !ctx.stores)
    return;
  const store = ctx.stores.inbox;
  const ownSends = ctx.stores.ownSends;
  const thread = await store.threadByTs(e.channel, e.thread_ts);
  if (!thread) return;
  const typed = plainLine(e.text ?? "").trim();
  const done = (outcome: string) =>
    ctx.logger.info({ channel: e.channel, ts: e.ts, outcome }, "inbox thread message handled");
  if (isNote(typed)) return done("note");
  // An inbox whose thread replies are all notes (`replies=notes`): sending is the card's Reply form.
  if ((await store.inbox(e.channel))?.replies === "notes") return done("note");

  const tell = async (text: string, blocks?: KnownBlock[]) => {
    await client.chat
      .postEphemeral({
        channel: e.channel,
        user: e.user as string,
        thread_ts: e.thread_ts,
        text,
        blocks: blocks ?? [section(text)],
      })
      .catch((err) => ctx.logger.warn({ err: (err as Error).message }, "could not tell the writer"));
  };
  const files = sharedFiles(e);
  if (!typed && !files.length) return;
  if (!(await store.inbox(e.channel))) {
    await tell(
      "This channel's inbox is off (`/sb inbox on` turns it on again): nothing was sent to the customer.",
    );
    return;
  }
  if (
    !(await ctx.core
      .perform(actor, { access: "write", command: "inbox" }, async () => true)
      .catch(() => false))
  ) {
    await tell(
      "You may not answer customers here: only the people chosen to make changes may (an admin chooses them in `/sb settings`). Nothing was sent; start a message with `//` for a note the team sees.",
    );
    return done("not allowed");
  }
  // As the customer will read it: names for mentions, "label (URL)" for links, no Slack markup.
  const words = storable(
    await customerText(e.text ?? "", async (user) => {
      const r = await client.users.info({ user });
      const p = r.user?.profile;
      return p?.display_name || p?.real_name || r.user?.real_name || r.user?.name || undefined;
    }),
  ).trim();
  if (files.length && !ctx.config.PUBLIC_URL) {
    await tell(noPublicAddress(e.text ?? ""));
    return done("no public address");
  }
  const name = thread.card?.name ?? `chat user #${thread.chatUserId}`;
  // Claimed before the send: whatever Slack redelivers, one send.
  const claimed = await store.claimReply({
    channel: e.channel,
    messageTs: e.ts,
    chatUserId: thread.chatUserId,
    userId: e.user,
    now: new Date(),
    text: words,
  });
  if (!claimed) return done("already handled");
  // The 24-hour window, known closed: nothing is sent (told once: the claim), the text is kept in the answer.
  if (thread.windowClosedShown || !windowOpen(thread.customerWroteAt, new Date())) {
    await store.finishReply(e.channel, e.ts, "failed");
    await tellWindowClosed(tell, name, thread.chatUserId, words);
    return done("outside the window");
  }
  const channelId = replyChannel(thread, ctx.core);
  try {
    // With files: one image or document message each, the text as the first one's caption (inbox/media.ts).
    const bodies = files.length
      ? mediaMessages(await prepareMedia(client, ctx.stores.media, ctx.config, files, new Date()), words)
      : [{ type: "text" as const, text: words }];
    const ids: number[] = [];
    const recordSent = async () => {
      await store.finishReply(e.channel, e.ts, "sent", ids[0]);
      // Switchboard's own send: the poller must not show it a second time.
      for (const sentId of ids) {
        await store.claimMessage(e.channel, sentId, thread.chatUserId, "outbound", new Date(), e.ts);
        await ownSends.record(sentId, e.user as string, "reply").catch(() => {});
      }
      // A reply stops the reply target's clock (the poller never reads this reply as new).
      const settings = await ctx.core.admin?.settings().catch(() => undefined);
      await store.clocks
        .replied(
          e.channel,
          thread.chatUserId,
          messageTime(sent) ?? new Date(),
          e.user as string,
          workClockOf(settings?.businessHours?.value, settings?.reportsTimeZone?.value),
        )
        .catch((err) => ctx.logger.warn({ err: (err as Error).message }, "could not stop a reply clock"));
    };
    let sent: Message = {};
    for (const [i, body] of bodies.entries()) {
      try {
        sent = await ctx.core.perform(
          actor,
          { access: "write", command: `inbox reply user:${thread.chatUserId}` },
          (api) => api.sendMessage({ channelId, chatUserId: thread.chatUserId, ...body }),
        );
      } catch (err) {
        if (i === 0) throw err;
        await recordSent();
        await tell(
          `Only the first ${i} of ${bodies.length} files reached ${esc(name)}; the rest was not sent. ${apiErrorReply(err).text}`,
        );
        return done("partly sent");
      }
      if (typeof sent.id === "number") ids.push(sent.id);
    }
    await recordSent();
    // The API's time, not ours: the poller asks for history after it.
    const at = messageTime(sent);
    if (at)
      await store.updateThread(e.channel, thread.chatUserId, {
        lastMessageAt: at,
        lastDirection: "outbound",
        lastText: words,
      });
    await client.reactions
      .add({ channel: e.channel, timestamp: e.ts, name: SENT_REACTION })
      .catch((err) =>
        ctx.logger.warn({ err: (err as Error).message }, "could not acknowledge an inbox reply"),
      );
    await nameWriter(ctx, client, e, name);
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
      await tellWindowClosed(tell, name, thread.chatUserId, words);
      return done("outside the window");
    }
    const reply = apiErrorReply(err);
    ctx.logger.info({ channel: e.channel, err: (err as Error).message }, "inbox reply refused");
    await tell(`Not sent to ${esc(name)}. ${reply.text}`);
    done("failed");
  }
}

/**
 * Outside the 24-hour window: the writer is told privately, with Send
 * template prefilled for this chat user, and what they typed is kept in the
 * answer (nothing typed is lost).
 */
export async function tellWindowClosed(
  tell: (text: string, blocks?: KnownBlock[]) => Promise<void>,
  name: string,
  chatUserId: number,
  words: string,
): Promise<void> {
  const text = `Not sent: ${esc(name)} last wrote more than 24 hours ago, so only a template message can reach them now.`;
  const kept = words ? `Your reply, kept here:\n>${esc(truncate(words, 2500)).replace(/\n/g, "\n>")}` : "";
  await tell(`${text}${kept ? `\n${kept}` : ""}`, [
    section(text),
    ...(kept ? [section(kept)] : []),
    actions([
      { text: "Send template", actionId: ACTION.inboxTemplate, value: String(chatUserId), style: "primary" },
    ]),
  ]);
}

/** Under the reply's tick, in the thread: who answered (the customer sees the organization, the team the writer). */
async function nameWriter(
  ctx: Pick<Reach, "posts" | "logger">,
  client: webApi.WebClient,
  e: ThreadMessage,
  name: string,
): Promise<void> {
  const text = `:white_check_mark: Sent to ${esc(name)} by <@${e.user}>`;
  await ctx.posts
    .post(client, { channel: e.channel, thread_ts: e.thread_ts, text, blocks: [context_(text)] })
    .catch((err) =>
      ctx.logger.warn({ err: (err as Error).message }, "could not name an inbox reply's writer"),
    );
}
