// message.received (issue 40 §3) on real parts: a customer writes through the
// sandbox's control route, the inbox poller (stepped by hand) mirrors it into
// the fake Slack, and the workspace's hook of that inbox gets the event from
// a real loopback receiver, once; a hook limited to another inbox gets nothing.
// A reply target missed: reply_target.breached, once.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboxStore } from "../../src/store/inbox.ts";
import { eventually } from "../helpers/eventually.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { manualClock, ratingTemplate } from "../helpers/sandbox.ts";

const SHELL = { userId: "shell", via: "shell" as const };
const INBOX = "C0INBOX";
const OTHER = "C0OTHER";
const clock = manualClock();

const got: Array<{ path: string; body: Record<string, unknown> }> = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => {
    body += c;
  });
  req.on("end", () => {
    got.push({ path: req.url ?? "", body: JSON.parse(body) });
    res.end();
  });
});
let base = "";

const t = useInboxStack({
  env: { SWITCHBOARD_SECRET_KEY: randomBytes(32).toString("base64"), AUTOMATIONS_ALLOW_PRIVATE: "1" },
  channels: [
    { id: "C0GENERAL", name: "general" },
    { id: INBOX, name: "inbox", is_member: true },
    { id: OTHER, name: "other", is_member: true },
  ],
  inbox: INBOX,
  clock,
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await t.s.switchboard.automations.start();
}, 120_000);

/** A chat user writes in, through the sandbox's control route (outside /v1); its message's id. */
const customerWrites = async (chatUserId: unknown, text: string) =>
  Number((await t.parts.customerWrites(chatUserId as number, text)).id);

afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

describe("the inbox's events to automations", { timeout: 60_000 }, () => {
  it("a customer's message mirrored by the inbox reaches the hook of its inbox, once; another inbox's hook gets nothing", async () => {
    const store = new InboxStore(t.s.db, t.s.workspace);
    await store.setInbox(INBOX, "all", "U0ALICE", clock.now());
    await store.setInbox(OTHER, "all", "U0ALICE", clock.now());
    // The first poll draws what is already waiting; events are for what comes after too.
    await t.runtime.poller.step();
    const mine = await t.s.core.run(`automation add message.received ${base}/mine inbox=${INBOX}`, SHELL);
    expect(mine.text).toContain("Automation *1* added");
    expect(
      (await t.s.core.run(`automation add message.received ${base}/other inbox=${OTHER}`, SHELL)).text,
    ).toContain("Automation *2* added");
    const before = got.length;

    const users = await t.s.client.listChatUsers({ limit: 100 });
    const someone = users.items.find((u) => u.type === "phonechat" && typeof u.id === "number")!;
    const messageId = await customerWrites(someone.id, "Where is my order?");
    expect((await t.runtime.poller.step()).posted).toBeGreaterThan(0);

    await eventually(() => got.slice(before).find((g) => g.body.type === "message.received"));
    // Polled again: nothing new, nothing sent again.
    await t.runtime.poller.step();
    await new Promise((r) => setTimeout(r, 1500));
    const events = got
      .slice(before)
      .filter((g) => (g.body.data as Record<string, string>).message_id === String(messageId));
    // One event, to the hook of the inbox the conversation went to (one inbox a conversation), not the other's.
    expect(events).toHaveLength(1);
    const data = events[0]!.body.data as Record<string, string>;
    expect(events[0]!.path).toBe(data.inbox_channel === INBOX ? "/mine" : "/other");
    expect(events[0]!.body).toMatchObject({
      version: 1,
      type: "message.received",
      workspace: t.s.workspace,
      data: { chat_user_id: String(someone.id), message_text: "Where is my order?" },
    });
  });

  it("reply_target.breached: a reply target missed reaches its hook once, with the conversation's fields", async () => {
    expect((await t.s.core.run(`inbox off ${OTHER}`, SHELL)).text).toMatch(/off/i);
    expect((await t.s.core.run(`inbox on ${INBOX} first=1m`, SHELL)).text).toMatch(
      /first reply within 1 min/,
    );
    expect((await t.s.core.run(`automation add reply_target.breached ${base}/breach`, SHELL)).text).toContain(
      "Automation *3* added",
    );
    const before = got.length;
    const store = new InboxStore(t.s.db, t.s.workspace);
    const users = await t.s.client.listChatUsers({ limit: 100 });
    let fresh: number | undefined;
    for (const u of users.items)
      if (u.type === "phonechat" && typeof u.id === "number" && !(await store.thread(INBOX, u.id))) {
        fresh = u.id;
        break;
      }
    expect(fresh).toBeDefined();
    await customerWrites(fresh, "Hello? Anyone?");
    await t.runtime.poller.step();
    // Past the due time (the core set the target on the real clock, a little ahead of the sandbox's).
    clock.advance(180_000);
    await t.runtime.poller.step();
    await t.runtime.poller.step();
    const breach = await eventually(() => got.slice(before).find((g) => g.path === "/breach"));
    expect(breach.body).toMatchObject({
      type: "reply_target.breached",
      data: { inbox_channel: INBOX, chat_user_id: String(fresh), target: "first reply in 60 s" },
    });
    await t.runtime.poller.step();
    await new Promise((r) => setTimeout(r, 1000));
    expect(got.slice(before).filter((g) => g.path === "/breach")).toHaveLength(1);
  });

  it("rating.received: the customer's answer to the rating asked on Resolve reaches its hook once", async () => {
    const store = new InboxStore(t.s.db, t.s.workspace);
    // The conversation of the test before, waiting for a reply.
    const [thread] = await store.waiting(INBOX);
    expect(thread).toBeDefined();
    const user = thread!.chatUserId;
    const channelId = thread!.card?.channelId ?? 1;
    await ratingTemplate(t.s.client, channelId, "rate_us", ["Great", "Poor"]);
    expect((await t.s.core.run(`inbox on ${INBOX} first=1m rating=rate_us`, SHELL)).text).toMatch(
      /asked for a rating/,
    );
    expect(
      (await t.s.core.run(`automation add rating.received ${base}/rating inbox=${INBOX}`, SHELL)).text,
    ).toContain("added");
    const before = got.length;
    expect((await t.s.core.run(`inbox resolve ${INBOX} ${user}`, SHELL)).text).toMatch(/asked for a rating/);
    await t.runtime.poller.step();
    await customerWrites(user, "great");
    await t.runtime.poller.step();
    const rating = await eventually(() => got.slice(before).find((g) => g.path === "/rating"));
    expect(rating.body).toMatchObject({
      type: "rating.received",
      data: { inbox_channel: INBOX, chat_user_id: String(user), rating: "Great" },
    });
    // Not a customer's message: no message.received for the answer.
    expect(got.slice(before).some((g) => g.body.type === "message.received")).toBe(false);
  });
});
