// The card's state, right (issue 29 §6), end to end on real parts: the
// sandbox, the fake Slack, the Bolt app and the poller stepped by hand on a
// hand-moved clock (the desk's redraw on the same clock). A message sent with
// `/sb send` or the send form shows in the thread by who sent it, not as
// "sent from elsewhere"; the card's buttons follow its state (Assign to me,
// then Unassign and the person list; Reopen alone once resolved); one
// Assign or Resolve updates the card once, the poller's closed-window pass
// included.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cardRedrawer } from "../../src/slack/features/inbox/desk.ts";
import { type InboxRuntime, startInbox } from "../../src/slack/features/inbox/runtime.ts";
import type { InboxStore } from "../../src/store/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Forms } from "./forms-harness.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const INBOX = "C0CARDS";
const clock = manualClock();

let s: SlackStack;
let runtime: InboxRuntime;
let store: InboxStore;
let user = 0;
let threadTs = "";

beforeAll(async () => {
  s = await startStack({
    writers: [ALICE.id],
    sandbox: { campaignTickMs: 0, now: clock.now, readLimit: 100_000, writeLimit: 10_000 },
    env: { API_READ_LIMIT: "100000", API_WRITE_LIMIT: "10000" },
    slack: { channels: [{ id: INBOX, name: "cards", is_member: true }], users: [ALICE] },
  });
  runtime = await startInbox(s.switchboard, s.config, s.logger, { timer: false, now: clock.now });
  store = runtime.poller.store;
  // The desk's redraw on the poller's clock (the reply window is told by it).
  const inbox = s.switchboard.inbox;
  inbox.redraw = cardRedrawer(
    s.switchboard.slack?.client as never,
    inbox.store,
    inbox.marks,
    s.logger,
    clock.now,
  );
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await s?.close();
});

async function customerWrites(text: string): Promise<void> {
  clock.advance(1000);
  const res = await fetch(`${s.sandbox.controlUrl}/chat-users/${user}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": s.sandbox.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(201);
}

const card = () => s.fake.messages.find((m) => m.ts === threadTs) as Rec;
const cardText = () => JSON.stringify(card().blocks);
const updates = () => s.fake.callsOf("chat.update").filter((c) => c.args.ts === threadTs).length;
const inThread = () => s.fake.messages.filter((m) => m.channel === INBOX && m.thread_ts === threadTs);
/** The action ids of the card's desk row (the last actions block). */
const deskButtons = () =>
  (((card().blocks as Rec[]).filter((b) => b.type === "actions").at(-1)?.elements ?? []) as Rec[]).map(
    (e) => e.action_id,
  );

async function click(action: { action_id: string; value?: string }): Promise<string> {
  const r = await s.req.blockAction(action, {
    user: ALICE,
    channelId: INBOX,
    messageTs: threadTs,
    message: { text: card().text, blocks: card().blocks },
  });
  return String(await s.fake.waitFor(() => s.fake.responsesTo(r.responseUrl as string)[0]?.body.text));
}

describe("the inbox card's state", { timeout: 90_000 }, () => {
  it("a message sent with /sb send or the send form shows by who sent it; one sent elsewhere as Outgoing", async () => {
    await s.core.run(`inbox on ${INBOX}`, { userId: ALICE.id, via: "shell" });
    await runtime.poller.step();
    const page = await s.client.listChatUsers({ limit: 100 });
    for (const u of page.items)
      if (typeof u.id === "number" && u.type === "phonechat" && !(await store.thread(INBOX, u.id))) {
        user = u.id;
        break;
      }
    expect(user).toBeGreaterThan(0);
    await customerWrites("Where is my parcel?");
    expect(await runtime.poller.step()).toMatchObject({ threads: 1 });
    threadTs = (await store.thread(INBOX, user))?.threadTs as string;

    const channel = (await store.thread(INBOX, user))?.card?.channelId ?? 1;
    clock.advance(1000);
    const typed = await s.core.run(`send user:${user} channel=${channel} It ships today.`, {
      userId: ALICE.id,
      via: "slack",
      channelId: INBOX,
    });
    expect(typed.text).toMatch(/Sent/);
    clock.advance(1000);
    const forms = new Forms(s.req, s.fake, ALICE);
    const form = await forms.open(`send user:${user}`);
    expect(
      await forms.submit(form.id, { text: "Tracking number to follow.", channel: String(channel) }),
    ).toEqual({});
    await s.fake.waitFor(() =>
      s.fake.messages.find((m) => (m.text ?? "").includes("Tracking number to follow.")),
    );
    clock.advance(1000);
    await s.client.sendMessage({
      channelId: channel,
      chatUserId: user,
      type: "text",
      text: "From the dashboard.",
    });
    await customerWrites("Thanks!");
    await runtime.poller.step();

    const replyOf = (text: string) =>
      inThread().find((m) => JSON.stringify(m.blocks).includes(text)) as Rec | undefined;
    for (const text of ["It ships today.", "Tracking number to follow."]) {
      const shown = JSON.stringify(replyOf(text)?.blocks);
      expect(shown).toContain(`Sent by <@${ALICE.id}> with Switchboard`);
      expect(shown).not.toContain("sent from elsewhere");
    }
    expect(JSON.stringify(replyOf("From the dashboard.")?.blocks)).toContain(
      "*Outgoing* (sent from elsewhere)",
    );
  });

  it("the buttons follow the state: Assign to me, then Unassign and the list; resolved, Reopen alone", async () => {
    expect(deskButtons()).toEqual([
      "sb_inbox_assign_me",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_snooze",
    ]);
    expect(await click({ action_id: "sb_inbox_assign_me", value: String(user) })).toMatch(/^You have/);
    expect(deskButtons()).toEqual([
      "sb_inbox_unassign",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_snooze",
    ]);
    expect(cardText()).toContain(`Assigned to <@${ALICE.id}>`);
    expect(await click({ action_id: "sb_inbox_unassign", value: String(user) })).toMatch(/Nobody has/);
    expect((await store.thread(INBOX, user))?.assignee).toBeNull();
    expect(deskButtons()).toEqual([
      "sb_inbox_assign_me",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_snooze",
    ]);
    expect(await click({ action_id: "sb_inbox_resolve", value: String(user) })).toMatch(/is resolved/);
    expect(deskButtons()).toEqual(["sb_inbox_reopen"]);
    expect(await click({ action_id: "sb_inbox_reopen", value: String(user) })).toMatch(/open again/);
    expect(deskButtons()).toEqual([
      "sb_inbox_assign_me",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_snooze",
    ]);
  });

  it("one Assign, one Resolve: the card updated once each, the poller's closed-window pass included", async () => {
    // The reply window has closed; the poller has not drawn it yet.
    clock.advance(25 * 3_600_000);
    const before = updates();
    expect(await click({ action_id: "sb_inbox_assign_me", value: String(user) })).toMatch(/^You have/);
    expect(updates()).toBe(before + 1);
    await runtime.poller.step();
    expect(updates()).toBe(before + 1);
    expect(cardText()).toContain("Window closed");
    expect(deskButtons()).toEqual([
      "sb_inbox_unassign",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_snooze",
    ]);

    expect(await click({ action_id: "sb_inbox_resolve", value: String(user) })).toMatch(/is resolved/);
    expect(updates()).toBe(before + 2);
    await runtime.poller.step();
    expect(updates()).toBe(before + 2);
    expect(deskButtons()).toEqual(["sb_inbox_reopen"]);
  });
});
