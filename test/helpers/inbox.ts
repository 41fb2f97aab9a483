// What the inbox tests do over and over, on the single-workspace stack
// (test/helpers/stack.ts) and its inbox runtime: the stack started with the
// inbox runtime on a hand-moved clock, a chat user with no thread in an inbox
// yet, a customer writing through the sandbox's control route, a thread's
// replies and its card in the fake Slack, a click on the card, a slash
// command's answer, a conversation's messages in the API.
//   const t = useInboxStack({ channels: [{ id: "C0SUPPORT", name: "support" }], users: [ALICE], clock });
//   ... await t.parts.customerWrites(user, "Hello"); await t.runtime.poller.step();
import { expect } from "vitest";
import type { Message } from "../../src/api/types.ts";
import { cardRedrawer } from "../../src/slack/features/inbox/desk.ts";
import { type InboxRuntime, startInbox } from "../../src/slack/features/inbox/runtime.ts";
import type { InboxStore } from "../../src/store/inbox.ts";
import type { FakeChannel, FakeUser } from "../fakes/slack.ts";
import type { ButtonAction } from "../fakes/slack-requests.ts";
import { perFile } from "./per-file.ts";
import type { Rec } from "./sandbox.ts";
import { type SlackStack, type SlackStackOptions, startStack } from "./stack.ts";

/** A clock the test moves (manualClock in test/helpers/sandbox.ts). */
export interface HandClock {
  now(): Date;
  advance(ms: number): void;
}

export interface InboxParts {
  /** The inbox's channel. */
  channel: string;
  /** A chat user of the sandbox (of `type`, if given) with no thread in the inbox yet (each given once). */
  freshUser(type?: string): Promise<number>;
  /**
   * The chat user writes in (the sandbox's control route): a customer's message, its text or
   * the whole body (`{ text, needHuman }`, an image…); the sandbox's answer (201). With a clock,
   * the clock moves a second first.
   */
  customerWrites(chatUserId: number, message: string | Rec): Promise<Rec>;
  /** The chat user's thread in the inbox (its parent's ts). */
  threadOf(chatUserId: number): Promise<string>;
  /** The replies the fake Slack holds in that thread. */
  inThread(threadTs: string): Rec[];
  /** The thread's card: its parent message in the fake Slack. */
  card(threadTs: string): Rec;
  /** The action ids of the card's desk row (its last actions block). */
  deskButtons(threadTs: string): string[];
  /** A click on the thread's card as Slack sends it; what the clicker was told (the response's text). */
  click(who: FakeUser, threadTs: string, action: ButtonAction): Promise<string>;
  /** A slash command in a channel; the answer: the response, else the channel's new inbox line. */
  answer(line: string, who: FakeUser, channelId?: string): Promise<string>;
  /** The chat user's conversation's messages, as the API keeps them. */
  messagesOf(chatUserId: number): Promise<Message[]>;
}

export function inboxParts(
  s: SlackStack,
  store: () => InboxStore,
  channel: string,
  clock?: HandClock,
): InboxParts {
  const used = new Set<number>();
  const threadRow = async (chatUserId: number) => {
    const t = await store().thread(channel, chatUserId);
    if (!t) throw new Error(`chat user ${chatUserId} has no thread in ${channel}`);
    return t;
  };
  const card = (ts: string) => s.fake.messages.find((m) => m.ts === ts) as Rec;
  return {
    channel,
    async freshUser(type) {
      const page = await s.client.listChatUsers({ limit: 100 });
      for (const u of page.items)
        if (
          typeof u.id === "number" &&
          (!type || u.type === type) &&
          !used.has(u.id) &&
          !(await store().thread(channel, u.id))
        ) {
          used.add(u.id);
          return u.id;
        }
      throw new Error("no chat user left");
    },
    async customerWrites(chatUserId, message) {
      clock?.advance(1000);
      const res = await fetch(`${s.sandbox.controlUrl}/chat-users/${chatUserId}/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": s.sandbox.apiKey },
        body: JSON.stringify(typeof message === "string" ? { text: message } : message),
      });
      expect(res.status).toBe(201);
      return (await res.json()) as Rec;
    },
    threadOf: async (chatUserId) => (await threadRow(chatUserId)).threadTs as string,
    inThread: (ts) => s.fake.messages.filter((m) => m.channel === channel && m.thread_ts === ts),
    card,
    deskButtons: (ts) =>
      (((card(ts).blocks as Rec[]).filter((b) => b.type === "actions").at(-1)?.elements ?? []) as Rec[]).map(
        (e) => e.action_id,
      ),
    async click(who, ts, action) {
      const r = await s.req.blockAction(action, {
        user: who,
        channelId: channel,
        messageTs: ts,
        message: { text: card(ts).text, blocks: card(ts).blocks },
      });
      return String(await s.fake.waitFor(() => s.fake.responsesTo(r.responseUrl as string)[0]?.body.text));
    },
    async answer(line, who, channelId = channel) {
      const before = s.fake.messages.length;
      const r = await s.req.command(line, { user: who, channelId });
      const text = await s.fake.waitFor(
        () =>
          s.fake.responsesTo(r.responseUrl as string)[0]?.body.text ??
          s.fake.messages
            .slice(before)
            .find((m) => m.channel === channelId && /inbox/i.test(m.text ?? "") && !m.thread_ts)?.text,
      );
      return String(text);
    },
    async messagesOf(chatUserId) {
      const conversation = (await threadRow(chatUserId)).conversationId as number;
      return (await s.client.listConversationMessages(conversation, { limit: 100 })).items;
    },
  };
}

export interface InboxStackOptions {
  /** The fake Slack's channels. */
  channels: FakeChannel[];
  /** The channel the parts look at; default the first of `channels`. */
  inbox?: string;
  /** The fake Slack's people; default its own (alice and bob). */
  users?: FakeUser[];
  /** SWITCHBOARD_WRITERS; default the users' ids. */
  writers?: string[];
  /** The hand-moved clock: the sandbox's, the poller's, the redraw's; customers write a second apart on it. */
  clock: HandClock;
  /** The desk's card redraw on the clock (the reply window is told by it), and the inbox's `now`. */
  redraw?: boolean;
  /** The person's zone, as their Slack profile gives it. */
  userTz?: string;
  /** The poller's worker id. */
  workerId?: string;
  /** Settings over the stack's. */
  env?: Record<string, string>;
  home?: SlackStackOptions["home"];
}

export interface InboxStack {
  s: SlackStack;
  /** The inbox runtime; a test that restarts it sets the new one here (closed with the stack). */
  runtime: InboxRuntime;
  /** The runtime's poller's store. */
  readonly store: InboxStore;
  /** Parts on the `inbox` channel, on the clock. */
  readonly parts: InboxParts;
  /** The runtime stopped, then the stack closed. */
  close(): Promise<void>;
}

/** The Slack stack (no campaign ticks, on the clock) and the inbox runtime (no timer: the test steps the poller). */
export async function startInboxStack(opts: InboxStackOptions): Promise<InboxStack> {
  const { clock } = opts;
  const s = await startStack({
    writers: opts.writers ?? opts.users?.map((u) => u.id),
    sandbox: { campaignTickMs: 0, now: clock.now },
    env: opts.env,
    slack: { channels: opts.channels, users: opts.users, home: opts.home },
  });
  let runtime: InboxRuntime;
  try {
    runtime = await startInbox(s.switchboard, s.config, s.logger, {
      timer: false,
      now: clock.now,
      workerId: opts.workerId,
    });
  } catch (err) {
    await s.close();
    throw err;
  }
  const inbox = s.switchboard.inbox;
  if (opts.redraw) {
    inbox.redraw = cardRedrawer(
      s.switchboard.slack?.client as never,
      inbox.store,
      inbox.marks,
      s.logger,
      clock.now,
    );
    inbox.now = clock.now;
  }
  const tz = opts.userTz;
  if (tz) inbox.userTz = async () => tz;
  const stack: InboxStack = {
    s,
    runtime,
    get store() {
      return stack.runtime.poller.store;
    },
    parts: inboxParts(s, () => stack.store, opts.inbox ?? opts.channels[0]?.id ?? "", clock),
    async close() {
      try {
        await stack.runtime.stop();
      } finally {
        await s.close();
      }
    },
  };
  return stack;
}

/** startInboxStack before the file's tests, closed after them; its parts read once it has started. */
export function useInboxStack(opts: InboxStackOptions): InboxStack {
  const started = perFile("inbox stack", () => startInboxStack(opts));
  return {
    get s() {
      return started().s;
    },
    get runtime() {
      return started().runtime;
    },
    set runtime(runtime) {
      started().runtime = runtime;
    },
    get store() {
      return started().store;
    },
    get parts() {
      return started().parts;
    },
    close: () => started().close(),
  };
}

/** The parts for the one conversation a test follows (its chat user and thread, as the test sets them). */
export interface FollowedThread {
  customerWrites(message: string | Rec): Promise<Rec>;
  card(): Rec;
  /** The card's blocks as JSON text. */
  cardText(): string;
  inThread(): Rec[];
  deskButtons(): string[];
  /** A click on the card by `who`; what they were told. */
  click(action: ButtonAction): Promise<string>;
}

export function followThread(
  t: InboxStack,
  who: FakeUser,
  current: () => { user: number; threadTs: string },
): FollowedThread {
  return {
    customerWrites: (message) => t.parts.customerWrites(current().user, message),
    card: () => t.parts.card(current().threadTs),
    cardText: () => JSON.stringify(t.parts.card(current().threadTs).blocks),
    inThread: () => t.parts.inThread(current().threadTs),
    deskButtons: () => t.parts.deskButtons(current().threadTs),
    click: (action) => t.parts.click(who, current().threadTs, action),
  };
}

/**
 * The inbox turned on in its channel (by `who`, in the shell), then a fresh phone-chat customer
 * writes `text` and the poller takes a pass: what turning it on answered, what that pass did, the
 * customer and their thread. The test asserts on `on` and `polled`.
 */
export async function firstConversation(t: InboxStack, who: FakeUser, text: string) {
  const on = await t.s.core.run(`inbox on ${t.parts.channel}`, { userId: who.id, via: "shell" });
  await t.runtime.poller.step();
  const user = await t.parts.freshUser("phonechat");
  await t.parts.customerWrites(user, text);
  const polled = await t.runtime.poller.step();
  return { on, polled, user, threadTs: await t.parts.threadOf(user) };
}
