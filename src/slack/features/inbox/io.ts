// Slack's side of the inbox engine (src/inbox): the engine's I/O (InboxIo) as
// Slack calls. Cards and messages drawn by render.ts and posted through the
// per-channel queue, each post carrying its API id in Slack's message metadata
// so that a claim a crash left without a post is found again
// (conversations.history and .replies); an image Slack could not fetch posted
// again as a link; Slack's error codes told to the engine.
import type { KnownBlock } from "@slack/types";
import { messageDirection, messageTime } from "../../../api/inbox.ts";
import type { Message } from "../../../api/types.ts";
import type { InboxIo, Sender } from "../../../inbox/io.ts";
import { InboxEngine, type InboxEngineOptions } from "../../../inbox/loop.ts";
import type { SlackBridge } from "../../io/bridge.ts";
import { channelClosed, imageRefused, slackCode } from "../../io/slack-errors.ts";
import {
  CARD_EVENT,
  cardMessage,
  deskOf,
  MESSAGE_EVENT,
  type MirroredMessage,
  messageReplies,
  mirroredOf,
  reopenedMessage,
  targetNoticeMessage,
  wokenMessage,
} from "./render.ts";

/** Pages of 200 read when a post is looked for after a crash (the newest of the channel, a thread from its start). */
const FIND_PAGES = 5;

/** Slack message metadata: what a post is, found again after a crash. */
export interface PostMetadata {
  event_type: string;
  event_payload: Record<string, string | number>;
}

/** Posts one message through the per-channel queue; returns its ts. Throws Slack's error. */
export type InboxPost = (
  args: {
    channel: string;
    text: string;
    blocks: KnownBlock[];
    metadata?: PostMetadata;
  } & (
    | { thread_ts?: string; reply_broadcast?: false }
    /** A thread reply also shown in the channel. */
    | { thread_ts: string; reply_broadcast: true }
  ),
) => Promise<{ ts?: string }>;

/**
 * The bot's recent posts with their metadata: the channel's (no thread_ts) or
 * one thread's replies. Read only after a crash, to find a post whose claim
 * has no ts.
 */
export type InboxFindPosted = (
  channel: string,
  threadTs?: string,
) => Promise<
  Array<{ ts: string; metadata?: { event_type?: string; event_payload?: Record<string, unknown> } }>
>;

export type InboxUpdate = (
  channel: string,
  ts: string,
  message: { text: string; blocks: KnownBlock[] },
) => Promise<void>;

/** The Slack calls the inbox makes. */
export interface SlackInboxCalls {
  post: InboxPost;
  update: InboxUpdate;
  /** Without it, a claim a crash left is posted again without looking (tests that never crash). */
  findPosted?: InboxFindPosted;
}

/** The engine's I/O over Slack's calls. */
export function inboxIoOf(calls: SlackInboxCalls): InboxIo {
  const { post, update, findPosted } = calls;
  // A message's replies, drawn once for its parts.
  const drawn = new WeakMap<
    Message,
    {
      name: string;
      sender: Sender | undefined;
      shown: MirroredMessage;
      parts: Array<{ text: string; blocks: KnownBlock[] }>;
    }
  >();
  const repliesOf = (name: string, m: Message, sender: Sender | undefined) => {
    let d = drawn.get(m);
    if (
      !d ||
      d.name !== name ||
      d.sender?.userId !== sender?.userId ||
      d.sender?.via !== sender?.via ||
      d.sender?.campaign?.name !== sender?.campaign?.name
    ) {
      const shown = {
        ...mirroredOf(m, messageDirection(m), messageTime(m)),
        ...(sender ? { sentBy: sender } : {}),
      };
      d = { name, sender, shown, parts: messageReplies(name, shown) };
      drawn.set(m, d);
    }
    return d;
  };
  const io: InboxIo = {
    async postCard(channel, chatUserId, card, desk) {
      const posted = await post({
        channel,
        ...cardMessage(chatUserId, card, deskOf(desk, desk.now)),
        metadata: { event_type: CARD_EVENT, event_payload: { chat_user_id: chatUserId } },
      });
      return posted.ts;
    },
    updateCard: (channel, ts, chatUserId, card, desk) =>
      update(channel, ts, cardMessage(chatUserId, card, deskOf(desk, desk.now))),
    messageParts: (name, m, sender) => repliesOf(name, m, sender).parts.length,
    async postMessagePart(channel, threadTs, name, m, part, sender) {
      const { shown, parts } = repliesOf(name, m, sender);
      const drawnPart = parts[part - 1] as (typeof parts)[number];
      const send = (p: typeof drawnPart) =>
        post({
          channel,
          thread_ts: threadTs,
          ...p,
          metadata: { event_type: MESSAGE_EVENT, event_payload: { message_id: m.id as number, part } },
        });
      // Slack could not fetch the image: posted again at once, as a link.
      const r = await send(drawnPart).catch((err) => {
        if (!imageRefused(err)) throw err;
        return send(messageReplies(name, shown, { images: "links" })[part - 1] ?? drawnPart);
      });
      return r.ts;
    },
    async postTargetNotice(channel, threadTs, notice) {
      const message = { channel, ...targetNoticeMessage(notice) };
      await post(
        notice.broadcast
          ? { ...message, thread_ts: threadTs, reply_broadcast: true }
          : { ...message, thread_ts: threadTs },
      );
    },
    async postReopened(channel, threadTs, name) {
      await post({ channel, thread_ts: threadTs, ...reopenedMessage(name) });
    },
    async postWoken(channel, threadTs, name, tell, why) {
      await post({ channel, thread_ts: threadTs, ...wokenMessage(name, tell, why) });
    },
    errorCode: slackCode,
    channelClosed,
  };
  if (findPosted) {
    io.findCard = async (channel, chatUserId) =>
      (await findPosted(channel)).find(
        (m) =>
          m.metadata?.event_type === CARD_EVENT &&
          Number(m.metadata.event_payload?.chat_user_id) === chatUserId,
      )?.ts;
    io.findParts = async (channel, threadTs, messageId) => {
      const parts = new Map<number, string>();
      for (const m of await findPosted(channel, threadTs)) {
        const p = m.metadata?.event_payload;
        if (m.metadata?.event_type === MESSAGE_EVENT && Number(p?.message_id) === messageId)
          parts.set(Number(p?.part ?? 1), m.ts);
      }
      return parts;
    };
  }
  return io;
}

export interface InboxPollerOptions extends Omit<InboxEngineOptions, "io">, SlackInboxCalls {}

/** The inbox engine on Slack's calls. */
export class InboxPoller extends InboxEngine {
  constructor(opts: InboxPollerOptions) {
    super({ ...opts, io: inboxIoOf(opts) });
  }
}

/** The Slack calls on the bridge: posts through the per-channel queue, card updates, and the reads after a crash. */
export function slackInboxIo(bridge: SlackBridge): SlackInboxCalls {
  return {
    post: async (args) => {
      const r = await bridge.posts.post(bridge.client, { ...args, unfurl_links: false, unfurl_media: false });
      return { ts: r.ts };
    },
    update: async (channel, ts, message) => {
      await bridge.client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
    },
    // Read only after a crash: the bot's recent posts in the channel, or in one thread, with their metadata.
    findPosted: async (channel, threadTs) => {
      const found: Array<{
        ts: string;
        metadata?: { event_type?: string; event_payload?: Record<string, unknown> };
      }> = [];
      let cursor: string | undefined;
      for (let page = 0; page < FIND_PAGES; page++) {
        const args = { channel, limit: 200, include_all_metadata: true, ...(cursor ? { cursor } : {}) };
        const r = threadTs
          ? await bridge.client.conversations.replies({ ...args, ts: threadTs })
          : await bridge.client.conversations.history(args);
        for (const m of r.messages ?? [])
          if (m.ts) found.push({ ts: m.ts, metadata: m.metadata as (typeof found)[number]["metadata"] });
        cursor = r.response_metadata?.next_cursor || undefined;
        if (!r.has_more || !cursor) break;
      }
      return found;
    },
  };
}
