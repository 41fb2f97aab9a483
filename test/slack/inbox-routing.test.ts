// Routing and replying on purpose (issue 20 §4), on real parts: the sandbox
// (customers write through its control route), the fake Slack, the Bolt app
// and the poller stepped by hand on a hand-moved clock. Web chat and phone
// chat go to different channels, never both (one inbox takes several types,
// filtered after its one list read); a conversation goes to the most
// specific inbox that matches, ties to the oldest, and to another only once
// its inbox is off; notes in any case are never sent; `replies=notes` makes
// every thread reply a note, and the card's Reply still opens the send form.

import { describe, expect, it } from "vitest";
import { bySpecificity, routeOf } from "../../src/domain/inbox-routing.ts";
import { isNote } from "../../src/slack/features/inbox/notes.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { manualClock } from "../helpers/sandbox.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const WEB = "C0WEB";
const PHONE = "C0PHONE";
const ALL = "C0ALL";
const ALL2 = "C0ALLTWO";
const HUMAN = "C0HUMAN";
const CHANNELS = [WEB, PHONE, ALL, ALL2, HUMAN];
const clock = manualClock();

const t = useInboxStack({
  channels: [
    { id: "C0GENERAL", name: "general" },
    ...CHANNELS.map((id) => ({ id, name: id.slice(2).toLowerCase(), is_member: false })),
  ],
  inbox: PHONE,
  users: [ALICE],
  clock,
});

const customerWrites = (chatUserId: number, text: string, needHuman?: boolean) =>
  t.parts.customerWrites(chatUserId, { text, ...(needHuman ? { needHuman } : {}) });

const answer = (line: string, channelId: string) => t.parts.answer(line, ALICE, channelId);

/** The channels where a chat user has a card (a thread). */
async function threadsOf(chatUserId: number): Promise<string[]> {
  const out: string[] = [];
  for (const c of CHANNELS) if ((await t.store.thread(c, chatUserId))?.threadTs) out.push(c);
  return out;
}

/** Chat users of a type with no thread anywhere yet. */
async function fresh(type: string, n: number): Promise<number[]> {
  const page = await t.s.client.listChatUsers({ limit: 100 });
  const out: number[] = [];
  for (const u of page.items) {
    if (typeof u.id !== "number" || u.type !== type || u.needHuman === true) continue;
    if ((await threadsOf(u.id)).length || (await t.store.routeOf(u.id))) continue;
    out.push(u.id);
    if (out.length === n) break;
  }
  expect(out).toHaveLength(n);
  return out;
}

async function reply(channel: string, chatUserId: number, text: string): Promise<string> {
  const threadTs = (await t.store.thread(channel, chatUserId))?.threadTs as string;
  const msg = t.s.fake.addUserMessage({ channel, user: ALICE.id, text, thread_ts: threadTs });
  await t.s.req.event({ type: "message", channel, user: ALICE.id, text, ts: msg.ts, thread_ts: threadTs });
  const log = await t.s.waitForLog((l) => l.msg === "inbox thread message handled" && l.ts === msg.ts);
  return String(log.outcome);
}

async function sentTo(chatUserId: number): Promise<string[]> {
  const messages = await t.parts.messagesOf(chatUserId);
  return messages.filter((m) => m.direction === "outbound").map((m) => String(m.text));
}

let webUser = 0;
let phoneUser = 0;

describe("routing by chat type", { timeout: 60_000 }, () => {
  it("web chat and phone chat go to different channels, never both; a few types filtered after one list read", async () => {
    expect(await answer("inbox on type=chat_web,telegram", WEB)).toMatch(
      /Inbox on in <#C0WEB>.*\(Web chat and Telegram\)/,
    );
    expect(await answer("inbox on type=phonechat", PHONE)).toMatch(/Inbox on in <#C0PHONE>.*\(Phone chat\)/);
    expect(await t.store.inbox(WEB)).toMatchObject({ types: ["chat_web", "telegram"], replies: "send" });
    const audit = await new AuditLog(t.s.db, t.s.workspace).list({ limit: 50 });
    expect(audit.find((e) => e.operation === "inbox.on" && e.channel === PHONE)).toBeTruthy();

    // The first cards: each in the inbox of its type.
    const first = await t.runtime.poller.step();
    expect(first.threads).toBeGreaterThan(0);
    const page = await t.s.client.listChatUsers({ limit: 100 });
    for (const u of page.items) {
      const where = await threadsOf(u.id as number);
      if (!where.length) continue;
      expect(where).toEqual([u.type === "phonechat" ? PHONE : WEB]);
    }
    // Idle: one list read an inbox, whether it takes one type or several.
    expect(await t.runtime.poller.step()).toEqual({ reads: 2, posted: 0, threads: 0 });

    [webUser] = (await fresh("chat_web", 1)) as [number];
    [phoneUser] = (await fresh("phonechat", 1)) as [number];
    await customerWrites(webUser, "Hello from the website");
    await customerWrites(phoneUser, "Hello from my phone");
    expect(await t.runtime.poller.step()).toMatchObject({ threads: 2, posted: 2 });
    expect(await threadsOf(webUser)).toEqual([WEB]);
    expect(await threadsOf(phoneUser)).toEqual([PHONE]);
    expect(
      t.s.fake.messages.filter((m) => m.text?.includes("Hello from the website")).map((m) => m.channel),
    ).toEqual([WEB]);

    // A wrong type is told in people's words; nothing changes.
    expect(await answer("inbox on type=sms", "C0GENERAL")).toMatch(
      /`sms` is not a chat type.*`phonechat` \(Phone chat\)/,
    );
    expect(await t.store.inbox("C0GENERAL")).toBeUndefined();
  });

  it("overlap: the most specific inbox takes a conversation, ties the oldest; one inbox each; /sb inbox lists the overlaps", async () => {
    await answer(`inbox on ${ALL}`, ALL);
    clock.advance(1000);
    await answer(`inbox on ${ALL2}`, ALL2);
    await answer("inbox on type=phonechat need-human", HUMAN);
    await t.runtime.poller.step(); // the new inboxes' first cards

    const [calm, urgent] = (await fresh("phonechat", 2)) as [number, number];
    await customerWrites(calm, "Just a question");
    await customerWrites(urgent, "I need a person", true);
    await customerWrites(phoneUser, "Me again");
    await t.runtime.poller.step();
    // Phone chat beats every type; need-human beats all at the same width.
    expect(await threadsOf(calm)).toEqual([PHONE]);
    expect(await threadsOf(urgent)).toEqual([HUMAN]);
    // A conversation stays where its thread is.
    expect(await threadsOf(phoneUser)).toEqual([PHONE]);
    expect(t.s.fake.messages.filter((m) => m.text?.includes("Me again")).map((m) => m.channel)).toEqual([
      PHONE,
    ]);

    const list = await t.s.core.run("inbox", { userId: "shell", via: "shell" });
    const shown = JSON.stringify(list.blocks);
    expect(shown).toContain("Overlapping inboxes");
    expect(shown).toContain(
      "Phone chat conversations match both <#C0PHONE> and <#C0ALL>: a new one goes to <#C0PHONE> only, not <#C0ALL>.",
    );
    expect(shown).toContain(
      "Conversations match both <#C0ALL> and <#C0ALLTWO>: a new one goes to <#C0ALL> only, not <#C0ALLTWO>.",
    );
    expect(shown).not.toMatch(/<#C0WEB> and <#C0PHONE>/);
  });

  it("an inbox turned off: its conversations go on in the next inbox that matches (ties: the oldest), in one", async () => {
    await answer("inbox off", WEB);
    await customerWrites(webUser, "Still there?");
    await t.runtime.poller.step();
    // Its old thread stays in the channel; the conversation goes on in one inbox.
    expect(await threadsOf(webUser)).toEqual([WEB, ALL]);
    expect(await t.store.routeOf(webUser)).toBe(ALL);
    expect(t.s.fake.messages.filter((m) => m.text?.includes("Still there?")).map((m) => m.channel)).toEqual([
      ALL,
    ]);
  });

  it("the rule itself: fewer chat types, then need-human, then the oldest", () => {
    const at = (n: number) => new Date(2026, 0, n);
    const all = { channel: "A", filter: "all" as const, types: [], createdAt: at(1) };
    const all2 = { ...all, channel: "B", createdAt: at(2) };
    const two = { channel: "C", filter: "all" as const, types: ["phonechat", "chat_web"], createdAt: at(3) };
    const human = {
      channel: "D",
      filter: "need_human" as const,
      types: ["phonechat", "chat_web"],
      createdAt: at(4),
    };
    const inboxes = [all, all2, two, human];
    expect(routeOf(inboxes, { type: "phonechat", needHuman: false })?.channel).toBe("C");
    expect(routeOf(inboxes, { type: "phonechat", needHuman: true })?.channel).toBe("D");
    expect(routeOf(inboxes, { type: "telegram", needHuman: true })?.channel).toBe("A");
    expect(routeOf([human], { type: "phonechat", needHuman: false })).toBeUndefined();
    expect(bySpecificity(all2, all)).toBeGreaterThan(0);
  });
});

describe("replying on purpose", { timeout: 60_000 }, () => {
  it("a note in any case is never sent: //, note:, Note:, NOTE:, *Note:*", async () => {
    const before = (await sentTo(phoneUser)).length;
    for (const text of [
      "// she called",
      "note: call back",
      "Note: VIP",
      "NOTE: refund done",
      "*Note:* check stock",
      "nOtE : x",
    ])
      expect(await reply(PHONE, phoneUser, text)).toBe("note");
    expect(await sentTo(phoneUser)).toHaveLength(before);
    // Not a note: sent.
    expect(await reply(PHONE, phoneUser, "Notebooks are in stock")).toBe("sent");
    const sent = await sentTo(phoneUser);
    expect(sent).toHaveLength(before + 1);
    expect(sent).toContain("Notebooks are in stock");
    expect(isNote("Notes are here")).toBe(false);
    expect(isNote("> note: quoted")).toBe(true);
  });

  it("replies=notes: every thread reply is a note; the card's Reply opens the send form; back to send", async () => {
    expect(await answer("inbox on type=phonechat replies=notes", PHONE)).toMatch(
      /now shows .*\(Phone chat\); thread replies are notes/,
    );
    expect(await t.store.inbox(PHONE)).toMatchObject({ replies: "notes", types: ["phonechat"] });
    const before = (await sentTo(phoneUser)).length;
    expect(await reply(PHONE, phoneUser, "We will call you tomorrow")).toBe("note");
    expect(await sentTo(phoneUser)).toHaveLength(before);

    const threadTs = (await t.store.thread(PHONE, phoneUser))?.threadTs as string;
    const card = t.s.fake.messages.find((m) => m.ts === threadTs)!;
    const opened = t.s.fake.callsOf("views.open").length;
    await t.s.req.blockAction(
      { action_id: "sb_inbox_reply", value: String(phoneUser) },
      {
        user: ALICE,
        channelId: PHONE,
        messageTs: threadTs,
        message: { text: card.text, blocks: card.blocks },
      },
    );
    const call = await t.s.fake.waitFor(() => t.s.fake.callsOf("views.open")[opened]);
    expect(JSON.stringify(call.args.view)).toContain(`"value":"user:${phoneUser}"`);

    expect(await answer("inbox on type=phonechat", PHONE)).toMatch(/now shows/);
    expect(await reply(PHONE, phoneUser, "Sent again")).toBe("sent");
    expect(await sentTo(phoneUser)).toHaveLength(before + 1);
    expect(await sentTo(phoneUser)).toContain("Sent again");
  });
});
