// The inbox end to end, on real parts: the sandbox (customers write through
// its control route), the fake Slack, the Bolt app and the poller stepped by
// hand (no timer) on a hand-moved clock shared with the sandbox. Mirror, a
// second message in the same thread, a second customer, a reply sent once
// (also when Slack retries the event), not allowed, notes/bots/edits, a
// restart without duplicates, two processes on one database, and last (it
// moves the clock a day on) outside the 24-hour window.

import { describe, expect, it } from "vitest";
import { InboxPoller } from "../../src/slack/features/inbox/io.ts";
import { startInbox } from "../../src/slack/features/inbox/runtime.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };
const INBOX = "C0INBOX";
const clock = manualClock();

const t = useInboxStack({
  channels: [
    { id: "C0GENERAL", name: "general" },
    { id: INBOX, name: "inbox", is_member: false },
    { id: "G0SECRET", name: "secret", is_private: true },
  ],
  inbox: INBOX,
  users: [ALICE, BOB],
  writers: [ALICE.id],
  clock,
});

/** A chat user writes in, through the sandbox's control route (outside /v1). */
const customerWrites = (chatUserId: number, text: string, needHuman?: boolean) =>
  t.parts.customerWrites(chatUserId, { text, ...(needHuman ? { needHuman } : {}) });

const answer = (line: string, user = ALICE, channelId = INBOX) => t.parts.answer(line, user, channelId);
const inThread = (ts: string) => t.parts.inThread(ts);
const cards = () =>
  t.s.fake.messages.filter(
    (m) => m.channel === INBOX && !m.thread_ts && /^Conversation with/.test(m.text ?? ""),
  );

/** Chat users of the seed that the inbox does not show yet. */
async function freshChatUsers(n: number): Promise<number[]> {
  const page = await t.s.client.listChatUsers({ limit: 100 });
  const out: number[] = [];
  for (const u of page.items) {
    if (typeof u.id !== "number" || u.type !== "phonechat") continue;
    if (await t.store.thread(INBOX, u.id)) continue;
    out.push(u.id);
    if (out.length === n) break;
  }
  expect(out).toHaveLength(n);
  return out;
}

/** A person's message in a thread, delivered to the app as Slack would (retries with the same event id). */
async function threadReply(user: string, threadTs: string, text: string, extra: Rec = {}) {
  const msg = t.s.fake.addUserMessage({ channel: INBOX, user, text, thread_ts: threadTs });
  const event = { type: "message", channel: INBOX, user, text, ts: msg.ts, thread_ts: threadTs, ...extra };
  return { msg, event };
}

const handled = (ts: string, outcome: string) =>
  t.s.waitForLog((l) => l.msg === "inbox thread message handled" && l.ts === ts && l.outcome === outcome);

async function outbound(conversationId: number): Promise<Rec[]> {
  const page = await t.s.client.listConversationMessages(conversationId, { limit: 100 });
  return page.items.filter((m) => m.direction === "outbound");
}

describe("the inbox", { timeout: 60_000 }, () => {
  it("inbox on: writers only, joins a public channel, asks for an invite in a private one, audited", async () => {
    expect(await answer(`inbox on ${INBOX}`, BOB)).toMatch(/Only <@U0ALICE> may turn an inbox on/);
    expect(await answer("inbox on G0SECRET", ALICE, "G0SECRET")).toMatch(/invite @Switchboard first/);
    expect(await t.store.inbox("G0SECRET")).toBeUndefined();

    expect(await answer(`inbox on ${INBOX}`)).toMatch(/Inbox on in <#C0INBOX>/);
    expect(t.s.fake.callsOf("conversations.join").some((c) => c.args.channel === INBOX)).toBe(true);
    expect(t.s.fake.channels.get(INBOX)?.is_member).toBe(true);
    expect(await t.store.inbox(INBOX)).toMatchObject({ filter: "all", createdBy: ALICE.id });
    const audit = await new AuditLog(t.s.db, t.s.workspace).list({ limit: 50 });
    expect(audit.find((e) => e.operation === "inbox.on")).toMatchObject({
      actor: ALICE.id,
      channel: INBOX,
      ok: true,
    });

    // Looking is open to all, in words the shell prints too.
    const list = await t.s.core.run("inbox", { userId: "shell", via: "shell" });
    expect(list.text).toMatch(/^1 inbox;/);
    expect(JSON.stringify(list.blocks)).toContain("every conversation with a new customer message");
  });

  it("first poll: one card for each conversation already unread or needing a human, then idle costs one read", async () => {
    const first = await t.runtime.poller.step();
    expect(first.threads).toBeGreaterThan(0);
    expect(cards()).toHaveLength(first.threads);
    const idle = await t.runtime.poller.step();
    expect(idle).toEqual({ reads: 1, posted: 0, threads: 0 });
  });

  let threadA = "";
  let userA = 0;
  let userB = 0;

  it("mirrors a customer message into a new thread, escaped; a second message in the same thread; a second customer", async () => {
    [userA, userB] = (await freshChatUsers(2)) as [number, number];
    const before = cards().length;
    await customerWrites(userA as number, "Hello <!channel> & *everyone*");
    const r1 = await t.runtime.poller.step();
    expect(r1).toMatchObject({ threads: 1, posted: 1 });
    expect(cards()).toHaveLength(before + 1);
    const card = cards().at(-1)!;
    threadA = card.ts;
    expect(JSON.stringify(card.blocks)).toContain("Reply");
    const replies = inThread(threadA);
    expect(replies).toHaveLength(1);
    const shown = JSON.stringify(replies[0]?.blocks) + replies[0]?.text;
    expect(shown).toContain("&lt;!channel&gt; &amp; *everyone*");
    expect(shown).not.toContain("<!channel>");

    await customerWrites(userA, "Are you there?");
    expect(await t.runtime.poller.step()).toMatchObject({ threads: 0, posted: 1 });
    expect(inThread(threadA)).toHaveLength(2);
    expect(inThread(threadA)[1]?.text).toContain("Are you there?");

    await customerWrites(userB, "Another question", true);
    expect(await t.runtime.poller.step()).toMatchObject({ threads: 1, posted: 1 });
    const cardB = cards().at(-1)!;
    expect(cardB.ts).not.toBe(threadA);
    expect(JSON.stringify(cardB.blocks)).toContain("Needs a human");
    expect(inThread(cardB.ts)).toHaveLength(1);

    // Waiting for an answer: both, newest first.
    const waiting = await t.store.waiting(INBOX);
    expect(waiting.map((t) => t.chatUserId).slice(0, 2)).toEqual([userB, userA]);
  });

  it("the card's Reply and Send template open the send form with this chat user chosen", async () => {
    const card = t.s.fake.messages.find((m) => m.ts === threadA)!;
    for (const [actionId, type] of [
      ["sb_inbox_reply", "text"],
      ["sb_inbox_template", "template"],
    ] as const) {
      const opened = t.s.fake.callsOf("views.open").length;
      await t.s.req.blockAction(
        { action_id: actionId, value: String(userA) },
        {
          user: ALICE,
          channelId: INBOX,
          messageTs: threadA,
          message: { text: card.text, blocks: card.blocks },
        },
      );
      const call = await t.s.fake.waitFor(() => t.s.fake.callsOf("views.open")[opened]);
      expect(call.response.ok).toBe(true);
      const view = JSON.stringify(call.args.view);
      expect(view).toContain(`"value":"user:${userA}"`);
      const blocks = (call.args.view as { blocks: Rec[] }).blocks;
      // By name, as the card shows them.
      const chosen = blocks.find((b) => b.block_id === "recipient")?.element.initial_option.text.text;
      expect(chosen).toMatch(new RegExp(`^\\S.* \\(chat user #${userA}\\)$`));
      expect(chosen).not.toMatch(/^Chat user #/);
      expect(blocks.find((b) => b.block_id === "type")?.element.initial_option.value).toBe(type);
    }
  });

  it("a writer's thread reply reaches the customer once, also when Slack retries the event; acknowledged; not mirrored back", async () => {
    const thread = (await t.store.thread(INBOX, userA))!;
    const { msg, event } = await threadReply(ALICE.id, threadA, "Yes, how can I help?");
    await t.s.req.event(event, { eventId: "EvREPLY1" });
    await handled(msg.ts, "sent");
    // Slack's retry (same event id), and the same message under another event id (another delivery path).
    await t.s.req.event(event, { eventId: "EvREPLY1", retryNum: 1 });
    await t.s.req.event(event, { eventId: "EvREPLY2" });
    await handled(msg.ts, "already handled");
    const sent = (await outbound(thread.conversationId as number)).filter(
      (m) => m.text === "Yes, how can I help?",
    );
    expect(sent).toHaveLength(1);
    expect(t.s.fake.messages.find((m) => m.ts === msg.ts)?.reactions).toEqual(["white_check_mark"]);
    expect(await t.store.repliesSent(INBOX)).toBe(1);

    // The next poll shows the conversation answered but not the reply a second time.
    const before = inThread(threadA).length;
    await t.runtime.poller.step();
    expect(inThread(threadA)).toHaveLength(before);
    const card = t.s.fake.messages.find((m) => m.ts === threadA)!;
    expect(JSON.stringify(card.blocks)).toContain("Waiting for the customer");
  });

  it("notes, bot messages, edits and other threads send nothing; someone who may not write is told privately", async () => {
    const thread = (await t.store.thread(INBOX, userA))!;
    const sentBefore = (await outbound(thread.conversationId as number)).length;

    const note = await threadReply(ALICE.id, threadA, "// she called yesterday");
    await t.s.req.event(note.event);
    await handled(note.msg.ts, "note");

    await t.s.req.event({ ...note.event, text: "bot", bot_id: "B0OTHER", ts: `${note.msg.ts}1` });
    await t.s.req.event({
      type: "message",
      subtype: "message_changed",
      channel: INBOX,
      ts: note.msg.ts,
      hidden: true,
    });
    const other = t.s.fake.addUserMessage({ channel: "C0GENERAL", user: ALICE.id, text: "not an inbox" });
    await t.s.req.event({
      type: "message",
      channel: "C0GENERAL",
      user: ALICE.id,
      text: "x",
      ts: `${other.ts}9`,
      thread_ts: other.ts,
    });

    const bob = await threadReply(BOB.id, threadA, "I'll answer this one");
    const ephemerals = t.s.fake.callsOf("chat.postEphemeral").length;
    await t.s.req.event(bob.event);
    await handled(bob.msg.ts, "not allowed");
    const told = t.s.fake.callsOf("chat.postEphemeral").slice(ephemerals);
    expect(told).toHaveLength(1);
    expect(told[0]?.args).toMatchObject({ user: BOB.id, channel: INBOX, thread_ts: threadA });
    expect(String(told[0]?.args.text)).toMatch(/only the people chosen to make changes may/);
    // No setting's name in Slack (issue 39 §2: "only writers may (SWITCHBOARD_WRITERS)").
    expect(String(told[0]?.args.text)).not.toMatch(/[A-Z]+_[A-Z_]+/);

    // A writer's reply after all of them is the only other send.
    const last = await threadReply(ALICE.id, threadA, "Second answer");
    await t.s.req.event(last.event);
    await handled(last.msg.ts, "sent");
    expect(await outbound(thread.conversationId as number)).toHaveLength(sentBefore + 1);
  });

  it("after a restart nothing is mirrored twice and what customers wrote meanwhile is posted", async () => {
    await t.runtime.stop();
    await customerWrites(userB, "Written while the bot was down");
    const posts = t.s.fake.messages.length;
    t.runtime = await startInbox(t.s.switchboard, t.s.config, t.s.logger, {
      timer: false,
      now: clock.now,
      workerId: "restarted",
    });
    const r = await t.runtime.poller.step();
    expect(r).toMatchObject({ posted: 1, threads: 0 });
    expect(t.s.fake.messages.slice(posts).map((m) => m.text)).toEqual([
      expect.stringContaining("Written while the bot was down"),
    ]);
    expect(await t.runtime.poller.step()).toMatchObject({ posted: 0 });
  });

  it("two processes on one database mirror each message once", async () => {
    await t.runtime.stop();
    const make = (workerId: string) =>
      new InboxPoller({
        stores: new WorkspaceStores(t.s.db, t.s.workspace),
        client: t.s.client,
        post: async (args) => {
          const r = await t.s.switchboard.slack!.posts.post(t.s.switchboard.slack!.client, args);
          return { ts: r.ts };
        },
        update: async () => {},
        now: clock.now,
        workerId,
      });
    const a = make("proc-a");
    const b = make("proc-b");
    await customerWrites(userA, "Once, please");
    const results = await Promise.all([a.step(), b.step()]);
    expect(results.reduce((n, r) => n + r.posted, 0)).toBe(1);
    expect(t.s.fake.messages.filter((m) => (m.text ?? "").includes("Once, please"))).toHaveLength(1);
    // The unique row is the last word, whatever the leases say.
    const id = 987654321;
    expect(await t.store.claimMessage(INBOX, id, userA, "inbound", clock.now())).toBe(true);
    expect(
      await new InboxStore(t.s.db, t.s.workspace).claimMessage(INBOX, id, userA, "inbound", clock.now()),
    ).toBe(false);
    await a.stop();
    await b.stop();
    t.runtime = await startInbox(t.s.switchboard, t.s.config, t.s.logger, {
      timer: false,
      now: clock.now,
      workerId: "third",
    });
  });

  it("outside the 24-hour window: not sent, told privately with Send template", async () => {
    clock.advance(25 * 3_600_000);
    const thread = (await t.store.thread(INBOX, userB))!;
    const sentBefore = (await outbound(thread.conversationId as number)).length;
    const late = await threadReply(ALICE.id, thread.threadTs as string, "Sorry for the delay");
    const ephemerals = t.s.fake.callsOf("chat.postEphemeral").length;
    await t.s.req.event(late.event);
    await handled(late.msg.ts, "outside the window");
    const told = t.s.fake.callsOf("chat.postEphemeral").slice(ephemerals);
    expect(told).toHaveLength(1);
    expect(String(told[0]?.args.text)).toMatch(/more than 24 hours ago/);
    expect(JSON.stringify(told[0]?.args.blocks)).toContain("sb_inbox_template");
    expect(await outbound(thread.conversationId as number)).toHaveLength(sentBefore);
  });

  it("inbox off: writers only, audited; the list says so", async () => {
    expect(await answer("inbox off", BOB)).toMatch(/Only <@U0ALICE> may/);
    expect(await answer("inbox off")).toMatch(/Inbox off in <#C0INBOX>/);
    expect(await t.store.inbox(INBOX)).toBeUndefined();
    expect(
      (await new AuditLog(t.s.db, t.s.workspace).list({ limit: 50 })).some(
        (e) => e.operation === "inbox.off",
      ),
    ).toBe(true);
    const list = await t.s.core.run("inbox", { userId: "shell", via: "shell" });
    expect(list.text).toBe("No channel has an inbox.");
  });
});

itLeavesBUntouched(() => t.s);
