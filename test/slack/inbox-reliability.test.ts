// Issue 21: nothing one customer, one burst or one crash can stop in the inbox.
// Real parts: the sandbox (behind a proxy that can change its answers, for
// names the sandbox itself cannot store), the fake Slack, the Bolt app, the
// poller stepped by hand on a hand-moved clock. Each inbox test uses its own
// channel and its own poller. Bursts post into a list instead of Slack (the
// per-channel queue posts one message a second).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workFor } from "../../src/slack/context.ts";
import { InboxPoller, type InboxPost, slackInboxIo } from "../../src/slack/features/inbox/io.ts";
import { splitText } from "../../src/slack/features/inbox/render.ts";
import { settleInterruptedReplies } from "../../src/slack/recovery/inbox-replies.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";

const ALICE = { id: "U0ALICE", name: "alice", real_name: "Alice Martin" };
const BOB = { id: "U0BOB", name: "bob", real_name: "Bob Stone" };
const CHANNELS = ["C0NUL", "C0LONG", "C0CRASH", "C0HIST", "C0LIST", "C0TWO", "C0REPLY", "C0PACE", "C0PACEH"];
const clock = manualClock();
/** Names the sandbox stores as a marker, given to the app as a real API could: with a NUL, a lone surrogate. */
const ODD_NAMES: Record<string, string> = {
  "Marker Nulname": "Nul\\u0000Name",
  "Marker Lonename": "Lone\\ud83dName",
};

let s: SlackStack;
let store: InboxStore;
let phones = 0;
const warnings: Rec[] = [];
/** While set, the API refuses the need-human list (one inbox's polls fail, the others' do not). */
let refuseNeedHuman = false;
const NEED_HUMAN_LIST = /^\/v1\/chat-users\?(.*&)?needHuman=true/;

beforeAll(async () => {
  s = await startStack({
    writers: [ALICE.id],
    sandbox: { campaignTickMs: 0, now: clock.now, readLimit: 1_000_000, writeLimit: 100_000 },
    env: { API_READ_LIMIT: "1000000", API_WRITE_LIMIT: "100000" },
    proxy: {
      rewrite: (_method, _url, body) =>
        Object.entries(ODD_NAMES).reduce((b, [marker, odd]) => b.replaceAll(marker, odd), body),
      answer: (method, url) =>
        refuseNeedHuman && method === "GET" && NEED_HUMAN_LIST.test(url) ? { status: 400 } : undefined,
    },
    slack: {
      channels: CHANNELS.map((id) => ({ id, name: id.toLowerCase(), is_member: true })),
      users: [ALICE, BOB],
    },
  });
  store = new InboxStore(s.db, s.workspace);
}, 120_000);

afterAll(async () => {
  await s?.close();
});

/** An inbox in `channel`, already past its first cards: only what customers write from now on shows. */
async function inboxIn(
  channel: string,
  opts: { filter?: "all" | "need_human"; keep?: boolean } = {},
): Promise<void> {
  if (!opts.keep) for (const other of await store.inboxes()) await store.removeInbox(other.channel);
  // Past the overlap a poll looks back: earlier tests' customers are not new here.
  clock.advance(10_000);
  await store.setInbox(channel, opts.filter ?? "all", ALICE.id, clock.now());
  expect(await store.claimInbox(channel, "setup", clock.now(), clock.now())).toBeTruthy();
  await store.polled(channel, "setup", { activityCursor: clock.now(), primed: true, failures: 0 });
  await store.release("setup");
}

/** A new customer (a new phone number) writes in; returns its chat user id. */
async function newCustomer(text: string): Promise<number> {
  clock.advance(1000);
  phones++;
  const m = await s.sandbox.inbound({ phone: `+1415555${String(1000 + phones).padStart(4, "0")}`, text });
  return Number(m.chatUserId);
}

async function customerWrites(chatUserId: number, text: string, stepMs = 1000): Promise<void> {
  clock.advance(stepMs);
  const res = await fetch(`${s.sandbox.controlUrl}/chat-users/${chatUserId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": s.sandbox.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(201);
}

type Posted = Parameters<InboxPost>[0] & { ts: string };

/** A poller on the stack, posting to the fake Slack (or through `post`, say into a list). */
function poller(workerId: string, post?: InboxPost): InboxPoller {
  const io = slackInboxIo(s.switchboard.slack!);
  return new InboxPoller({
    stores: new WorkspaceStores(s.db, s.workspace),
    client: s.client,
    ...io,
    ...(post ? { post } : {}),
    now: clock.now,
    workerId,
    logger: { info() {}, warn: (o) => warnings.push(o as Rec) },
  });
}

/** A post into `list` instead of Slack (no queue): for bursts of hundreds of posts. */
function intoList(list: Posted[]): InboxPost {
  return async (args) => {
    const ts = `${1_700_000_000 + list.length}.000100`;
    list.push({ ...args, ts });
    return { ts };
  };
}

const cardsOf = (channel: string) =>
  s.fake.messages.filter(
    (m) => m.channel === channel && !m.thread_ts && /^Conversation with/.test(m.text ?? ""),
  );

describe("the inbox keeps going", { timeout: 120_000 }, () => {
  it("a customer whose name holds a NUL or a lone surrogate: one card each, the others mirrored too", async () => {
    await inboxIn("C0NUL");
    const p = poller("nul");
    const nul = await newCustomer("first, with an odd name");
    const lone = await newCustomer("second, with an odd name");
    const plain = await newCustomer("third, a plain name");
    for (const [id, name] of [
      [nul, "Marker Nulname"],
      [lone, "Marker Lonename"],
    ] as const) {
      const r = await s.client.updateChatUser(id, { standardFields: { name } });
      expect(r.id).toBe(id);
    }
    const first = await p.step();
    expect(first).toMatchObject({ threads: 3, posted: 3 });
    expect(await p.step()).toMatchObject({ threads: 0, posted: 0 });
    expect(cardsOf("C0NUL")).toHaveLength(3);
    for (const id of [nul, lone, plain]) expect((await store.thread("C0NUL", id))?.threadTs).toBeTruthy();
    const card = (await store.thread("C0NUL", nul))?.card;
    expect(card?.name).toBe("Nul\uFFFDName");
    expect((await store.thread("C0NUL", lone))?.card?.name).toBe("Lone\uFFFDName");
  });

  it("a long message is posted in parts, cut between characters, nothing lost", async () => {
    await inboxIn("C0LONG");
    const p = poller("long");
    // An emoji (a surrogate pair) and a family (joined emoji) right where a cut could fall.
    const text = `${"a".repeat(2799)}😀${"word ".repeat(700)}👨‍👩‍👧 & <end>`;
    const id = await newCustomer(text);
    expect(await p.step()).toMatchObject({ threads: 1, posted: 1 });
    const threadTs = (await store.thread("C0LONG", id))?.threadTs;
    const parts = s.fake.messages.filter((m) => m.thread_ts === threadTs);
    expect(parts.length).toBeGreaterThanOrEqual(3);
    const shown = parts.map((m) => {
      const body = ((m.blocks as Rec[])[1] as Rec).text.text as string;
      expect(body.length).toBeLessThanOrEqual(3000);
      expect(body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/);
      return body.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&");
    });
    expect(shown.join("")).toBe(text);
    expect(String(parts[0]?.blocks ? JSON.stringify(parts[0].blocks) : "")).toContain(
      `part 1/${parts.length}`,
    );
    // The splitter alone: never inside a grapheme.
    for (const piece of splitText("é".normalize("NFD").repeat(50), 7))
      expect(piece.normalize("NFC")).toMatch(/^é+$/);
  });

  it("kill -9 between a claim and its post: posted after the restart, once; a post that did go out is not repeated", async () => {
    await inboxIn("C0CRASH");
    const id = await newCustomer("hello");
    const before = poller("before");
    expect(await before.step()).toMatchObject({ threads: 1, posted: 1 });
    await before.stop();
    const slackPost = slackInboxIo(s.switchboard.slack!).post;
    // A process dies after Slack posted a message, before its ts is stored.
    await customerWrites(id, "posted, then the crash");
    const dying = poller("dying", async (args) => {
      const r = await slackPost(args);
      throw new Error(`killed after ${r.ts}`);
    });
    await dying.step();
    await dying.stop();
    // Another dies with a message claimed, before the post.
    await customerWrites(id, "lost in the crash");
    const dying2 = poller("dying2", async (args) => {
      if (args.text.includes("lost in the crash")) throw new Error("killed");
      return slackPost(args);
    });
    await dying2.step();
    expect(warnings.at(-1)).toMatchObject({ channel: "C0CRASH", err: "killed" });
    await store.release("dying2");
    const threadTs = (await store.thread("C0CRASH", id))?.threadTs as string;
    const inThread = () => s.fake.messages.filter((m) => m.thread_ts === threadTs).map((m) => m.text ?? "");
    expect(inThread().filter((t) => t.includes("lost in the crash"))).toHaveLength(0);

    const restarted = poller("restarted");
    await restarted.step();
    await restarted.step();
    expect(inThread().filter((t) => t.includes("lost in the crash"))).toHaveLength(1);
    expect(inThread().filter((t) => t.includes("posted, then the crash"))).toHaveLength(1);
    expect(await restarted.step()).toMatchObject({ posted: 0, threads: 0 });
    await restarted.stop();

    // A card Slack posted before the process died: found by its metadata, not posted twice.
    const other = await newCustomer("a new conversation");
    const dying3 = poller("dying3", async (args) => {
      const r = await slackPost(args);
      if (!args.thread_ts) throw new Error(`killed after ${r.ts}`);
      return r;
    });
    await dying3.step();
    await dying3.stop();
    const cards = () => cardsOf("C0CRASH").filter((m) => JSON.stringify(m.blocks).includes(`user ${other}`));
    expect(cards()).toHaveLength(1);
    expect((await store.thread("C0CRASH", other))?.threadTs).toBeNull();
    const again = poller("again");
    await again.step();
    expect(cards()).toHaveLength(1);
    expect((await store.thread("C0CRASH", other))?.threadTs).toBe(cards()[0]?.ts);
    expect(s.fake.messages.filter((m) => m.thread_ts === cards()[0]?.ts).map((m) => m.text)).toEqual([
      expect.stringContaining("a new conversation"),
    ]);
  });

  it("230 messages from one customer between two polls: all mirrored over the next polls, in order, once", async () => {
    await inboxIn("C0HIST");
    const posts: Posted[] = [];
    const p = poller("hist", intoList(posts));
    const id = await newCustomer("message 0");
    expect(await p.step()).toMatchObject({ threads: 1, posted: 1 });
    for (let i = 1; i <= 230; i++) await customerWrites(id, `message ${i}`, 10);
    for (let poll = 0; poll < 10; poll++) await p.step();
    const texts = posts.filter((m) => m.thread_ts).map((m) => /message (\d+)/.exec(m.text)?.[1]);
    expect(texts.join(",")).toEqual(Array.from({ length: 231 }, (_, i) => String(i)).join(","));
  });

  it("130 customers between two polls: every one mirrored over the next polls, once", async () => {
    await inboxIn("C0LIST");
    const posts: Posted[] = [];
    const p = poller("list", intoList(posts));
    const ids: number[] = [];
    for (let i = 0; i < 130; i++) ids.push(await newCustomer(`burst ${i}`));
    for (let poll = 0; poll < 10; poll++) await p.step();
    const cards = posts.filter((m) => !m.thread_ts);
    expect(cards).toHaveLength(130);
    const mirrored = posts.filter((m) => m.thread_ts).map((m) => /burst (\d+)/.exec(m.text)?.[1]);
    expect(new Set(mirrored).size).toBe(130);
    expect(mirrored).toHaveLength(130);
    const inbox = await store.inbox("C0LIST");
    expect(inbox?.listPage).toBeNull();
  });

  it("two processes while a pass posts for longer than its lease: one card per customer, each message once", async () => {
    await inboxIn("C0TWO");
    const posts: Posted[] = [];
    const others: Array<Promise<unknown>> = [];
    const sink = intoList(posts);
    const b = poller("replica-b", sink);
    const a = poller("replica-a", async (args) => {
      // One post a second: a pass of 60 conversations outlives a 40-second lease.
      clock.advance(1000);
      if (posts.length % 5 === 0) others.push(b.step());
      return sink(args);
    });
    const ids: number[] = [];
    for (let i = 0; i < 60; i++) ids.push(await newCustomer(`replica ${i}`));
    await a.step();
    await Promise.all(others);
    await Promise.all([a.step(), b.step()]);
    const cards = posts.filter((m) => !m.thread_ts);
    expect(cards).toHaveLength(60);
    const texts = posts.filter((m) => m.thread_ts).map((m) => m.text);
    expect(new Set(texts).size).toBe(texts.length);
    expect(texts).toHaveLength(60);
    await a.stop();
    await b.stop();
  });
});

describe("thread replies", { timeout: 60_000 }, () => {
  async function threadFor(
    channel: string,
  ): Promise<{ id: number; threadTs: string; conversationId: number }> {
    await inboxIn(channel);
    const id = await newCustomer("I have a question");
    await poller(`${channel}-p`).step();
    const t = await store.thread(channel, id);
    return { id, threadTs: t?.threadTs as string, conversationId: t?.conversationId as number };
  }

  async function outbound(conversationId: number): Promise<string[]> {
    const page = await s.client.listConversationMessages(conversationId, { limit: 100 });
    return page.items.filter((m) => m.direction === "outbound").map((m) => String(m.text));
  }

  it("a writer's reply reaches the customer as plain text: names, @here, links with their label", async () => {
    const { threadTs, conversationId } = await threadFor("C0REPLY");
    const text =
      "Hi, <@U0BOB> will call you. <!here> &amp; see <https://example.com/a?b=1&amp;c=2|our page> or <https://example.com>";
    const msg = s.fake.addUserMessage({ channel: "C0REPLY", user: ALICE.id, text, thread_ts: threadTs });
    await s.req.event({
      type: "message",
      channel: "C0REPLY",
      user: ALICE.id,
      text,
      ts: msg.ts,
      thread_ts: threadTs,
    });
    await s.waitForLog(
      (l) => l.msg === "inbox thread message handled" && l.ts === msg.ts && l.outcome === "sent",
    );
    expect((await outbound(conversationId)).at(-1)).toBe(
      "Hi, bob will call you. @here & see our page (https://example.com/a?b=1&c=2) or https://example.com",
    );
  });

  it("kill -9 during a reply: at start each writer is told what is known", async () => {
    const { id, threadTs, conversationId } = await threadFor("C0REPLY");
    // Two replies left `sending`: one reached the API before the crash, the other did not.
    const reached = s.fake.addUserMessage({
      channel: "C0REPLY",
      user: ALICE.id,
      text: "It reached",
      thread_ts: threadTs,
    });
    const lost = s.fake.addUserMessage({
      channel: "C0REPLY",
      user: ALICE.id,
      text: "It did not",
      thread_ts: threadTs,
    });
    for (const m of [reached, lost])
      await store.claimReply({
        channel: "C0REPLY",
        messageTs: m.ts,
        chatUserId: id,
        userId: ALICE.id,
        // The handler's own clock (the process's), as it claims a reply.
        now: new Date(Date.now() - 1000),
        text: m.text as string,
      });
    await s.client.sendMessage({ channelId: 1, type: "text", chatUserId: id, text: "It reached" });
    const told = s.fake.callsOf("chat.postEphemeral").length;

    expect(
      await settleInterruptedReplies(await workFor(s.slack.services, s.workspace), s.slack.client, 0),
    ).toBe(2);
    const words = s.fake
      .callsOf("chat.postEphemeral")
      .slice(told)
      .map((c) => ({ user: c.args.user, thread: c.args.thread_ts, text: String(c.args.text) }));
    expect(words).toHaveLength(2);
    expect(words.every((w) => w.user === ALICE.id && w.thread === threadTs)).toBe(true);
    expect(words[0]?.text).toMatch(/restarted while sending your reply .* it did reach them/);
    expect(words[1]?.text).toMatch(/restarted while sending your reply .* not in their conversation/);
    expect(s.fake.messages.find((m) => m.ts === reached.ts)?.reactions).toEqual(["white_check_mark"]);
    // Nothing sent again; the reply that reached is not mirrored back as Outgoing.
    expect((await outbound(conversationId)).filter((t) => t.startsWith("It "))).toEqual(["It reached"]);
    // The inbox's own poller (its lease; another would read nothing): it reads the conversation, and does not
    // mirror the reply that reached as Outgoing beside the writer's own message.
    expect((await poller("C0REPLY-p").step()).reads).toBeGreaterThan(0);
    expect(
      s.fake.messages.filter((m) => m.thread_ts === threadTs && /It reached/.test(m.text ?? "")),
    ).toHaveLength(1);
    expect(
      await settleInterruptedReplies(await workFor(s.slack.services, s.workspace), s.slack.client, 0),
    ).toBe(0);
  });

  it("kill -9 during a saved reply that reached the customer: at start it shows in the thread, by its writer", async () => {
    const { id, threadTs, conversationId } = await threadFor("C0REPLY");
    const text = "Thanks for waiting: your order ships today.";
    // The saved reply form's row (keyed by the form, not by a message of the thread), left `sending`.
    await store.claimReply({
      channel: "C0REPLY",
      messageTs: "saved:4242",
      chatUserId: id,
      userId: ALICE.id,
      now: new Date(Date.now() - 1000),
      text,
    });
    clock.advance(1000);
    await s.client.sendMessage({ channelId: 1, type: "text", chatUserId: id, text });
    const told = s.fake.callsOf("chat.postEphemeral").length;
    const reactions = s.fake.callsOf("reactions.add").length;
    expect(
      await settleInterruptedReplies(await workFor(s.slack.services, s.workspace), s.slack.client, 0),
    ).toBe(1);
    const words = s.fake.callsOf("chat.postEphemeral").slice(told);
    expect(words.map((c) => String(c.args.text))).toEqual([
      expect.stringMatching(
        /restarted while sending your saved reply .* it did reach them .* will show in this thread/,
      ),
    ]);
    // No reaction on a message that is not there.
    expect(s.fake.callsOf("reactions.add").length).toBe(reactions);
    // The inbox's own poller (its lease): a message it reads now is mirrored.
    expect((await poller("C0REPLY-p").step()).reads).toBeGreaterThan(0);
    const shown = s.fake.messages.filter(
      (m) => m.thread_ts === threadTs && (m.text ?? "").includes("ships today"),
    );
    expect(shown).toHaveLength(1);
    expect(JSON.stringify(shown[0])).toContain(`Sent by <@${ALICE.id}> with Switchboard`);
    // Sent once.
    expect((await outbound(conversationId)).filter((t) => t.includes("ships today"))).toHaveLength(1);
  });

  it("an inbox whose polls fail is polled again later (×2 a failure in a row); the others every pace", async () => {
    await inboxIn("C0PACE");
    await inboxIn("C0PACEH", { filter: "need_human", keep: true });
    const p = poller("pace");
    const proxy = s.proxy as NonNullable<typeof s.proxy>;
    const lists = () => proxy.seen.filter((l) => l.startsWith("GET /v1/chat-users?"));
    /** One pass: whether each inbox's list was read (the need-human inbox's, the other's). */
    const pass = async () => {
      const before = lists().length;
      await p.step();
      const read = lists().slice(before);
      return {
        needHuman: read.some((l) => NEED_HUMAN_LIST.test(l.slice(4))),
        all: read.some((l) => !NEED_HUMAN_LIST.test(l.slice(4))),
      };
    };
    const failuresOf = async (channel: string) =>
      (await store.inboxes()).find((i) => i.channel === channel)?.failures;
    refuseNeedHuman = true;
    try {
      // 0 s: both polled; the need-human list refused (1 failure: again in 20 s).
      expect(await pass()).toEqual({ needHuman: true, all: true });
      expect(await failuresOf("C0PACEH")).toBe(1);
      clock.advance(10_000);
      expect(await pass()).toEqual({ needHuman: false, all: true });
      clock.advance(10_000);
      // 20 s: polled again, refused again (2 failures: again in 40 s).
      expect(await pass()).toEqual({ needHuman: true, all: true });
      expect(await failuresOf("C0PACEH")).toBe(2);
      for (const at of [30, 40, 50]) {
        clock.advance(10_000);
        expect(await pass(), `at ${at} s`).toEqual({ needHuman: false, all: true });
      }
      expect(warnings.some((w) => w.channel === "C0PACEH" && w.retryInSeconds === 40)).toBe(true);
      refuseNeedHuman = false;
      clock.advance(10_000);
      // 60 s: polled, answered: back to every pace.
      expect(await pass()).toEqual({ needHuman: true, all: true });
      expect(await failuresOf("C0PACEH")).toBe(0);
      clock.advance(10_000);
      expect(await pass()).toEqual({ needHuman: true, all: true });
      expect(await failuresOf("C0PACE")).toBe(0);
    } finally {
      refuseNeedHuman = false;
      await p.stop();
    }
  });
});
