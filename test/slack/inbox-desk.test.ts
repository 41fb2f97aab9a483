// The inbox as a desk (issue 20 §2, §3, §4 "writer named"), end to end on
// real parts: the sandbox (customers write through its control route), the
// fake Slack, the Bolt app and the poller stepped by hand on a hand-moved
// clock shared with the sandbox. The card's reply window (open, then
// closed), Assign to me clicked by two writers at once, the user select,
// resolve and reopen (a new customer message reopens), `/sb inbox` by state
// and `/sb inbox mine`, the writer named under a reply, every change audited.

import { describe, expect, it } from "vitest";
import { AuditLog } from "../../src/store/audit.ts";
import type { FakeUser } from "../fakes/slack.ts";
import type { ButtonAction } from "../fakes/slack-requests.ts";
import { firstConversation, followThread, useInboxStack } from "../helpers/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const CAROL = { id: "U0CAROL", name: "carol" };
const DAN = { id: "U0DAN", name: "dan" };
const INBOX = "C0DESK";
const clock = manualClock();

let user = 0;
let threadTs = "";

const t = useInboxStack({
  channels: [{ id: INBOX, name: "desk", is_member: true }],
  users: [ALICE, CAROL, DAN],
  clock,
});

const customerWrites = (chatUserId: number, text: string) => t.parts.customerWrites(chatUserId, text);
const { card, cardText, inThread } = followThread(t, ALICE, () => ({ user, threadTs }));

/** A click on the card, as Slack sends it; resolves with what the clicker was told (ephemeral), if anything. */
const click = (who: FakeUser, action: ButtonAction) => t.parts.click(who, threadTs, action);

const handled = (ts: string, outcome: string) =>
  t.s.waitForLog((l) => l.msg === "inbox thread message handled" && l.ts === ts && l.outcome === outcome);

async function threadReply(who: string, text: string) {
  const msg = t.s.fake.addUserMessage({ channel: INBOX, user: who, text, thread_ts: threadTs });
  await t.s.req.event({ type: "message", channel: INBOX, user: who, text, ts: msg.ts, thread_ts: threadTs });
  return msg;
}

const audited = async (operation: string) =>
  (await new AuditLog(t.s.db, t.s.workspace).list({ limit: 200 })).filter((e) => e.operation === operation);

describe("the inbox desk", { timeout: 60_000 }, () => {
  it("the card shows the state, nobody on it, and the reply window open until a Slack date 24 h after the customer wrote", async () => {
    const first = await firstConversation(t, ALICE, "Where is my parcel?");
    expect(first.on.text).toMatch(/Inbox on/);
    expect(first.polled).toMatchObject({ threads: 1 });
    ({ user, threadTs } = first);
    const shown = cardText();
    expect(shown).toContain("*Open* · Nobody has it yet");
    const until = Number(/Reply window open until <!date\^(\d+)\^/.exec(shown)?.[1]);
    expect(Math.abs(until - (clock.now().getTime() / 1000 + 86_400))).toBeLessThan(10);
    for (const id of ["sb_inbox_assign_me", "sb_inbox_assign", "sb_inbox_resolve"])
      expect(shown).toContain(id);
    expect(shown).not.toContain("sb_inbox_reopen");
    // Window open: Reply is the primary button.
    const buttons = (card().blocks as Rec[]).flatMap((b) => b.elements ?? []);
    expect(buttons.find((e: Rec) => e.action_id === "sb_inbox_reply")?.style).toBe("primary");
  });

  it("Assign to me clicked by two writers at once: one has it, the other is told who", async () => {
    const me = { action_id: "sb_inbox_assign_me", value: String(user) };
    const [a, c] = await Promise.all([click(ALICE, me), click(CAROL, me)]);
    const holder = (await t.store.thread(INBOX, user))?.assignee;
    expect([ALICE.id, CAROL.id]).toContain(holder);
    const [won, lost] = holder === ALICE.id ? [a, c] : [c, a];
    expect(won).toMatch(/^You have the conversation with/);
    expect(lost).toContain(`<@${holder}> has the conversation with`);
    expect(lost).toMatch(/already: nothing was changed/);
    expect(await audited("inbox.assign")).toHaveLength(1);
    await t.s.fake.waitFor(() => cardText().includes(`Assigned to <@${holder}>`));
  });

  it("the user select gives it to someone else; audited; /sb inbox mine lists it for them", async () => {
    const told = await click(ALICE, {
      action_id: "sb_inbox_assign",
      selected_user: DAN.id,
      block_id: `sb_inbox_desk:${user}`,
    });
    expect(told).toContain(`<@${DAN.id}> has the conversation with`);
    expect((await t.store.thread(INBOX, user))?.assignee).toBe(DAN.id);
    expect(cardText()).toContain(`Assigned to <@${DAN.id}>`);
    expect(await audited("inbox.assign")).toHaveLength(2);
    const mine = await t.s.core.run("inbox mine", { userId: DAN.id, via: "shell" });
    expect(mine.text).toBe("Your conversations: 1 open");
    const none = await t.s.core.run("inbox mine", { userId: ALICE.id, via: "shell" });
    expect(none.text).toMatch(/You have no conversation/);
  });

  it("a writer's reply is named under its tick; the card says Waiting for the customer", async () => {
    clock.advance(1000);
    const msg = await threadReply(ALICE.id, "It left the depot this morning.");
    await handled(msg.ts, "sent");
    const named = await t.s.fake.waitFor(() =>
      inThread().find((m) => (m.text ?? "").startsWith(":white_check_mark: Sent to")),
    );
    expect(named.text).toContain(`by <@${ALICE.id}>`);
    // Posted after the reply, so it shows under it.
    expect(Number(named.ts)).toBeGreaterThan(Number(msg.ts));
    await t.runtime.poller.step();
    expect(cardText()).toContain("*Waiting for the customer*");
    const list = await t.s.core.run("inbox", { userId: ALICE.id, via: "shell" });
    expect(list.text).toMatch(/1 waiting for the customer/);
  });

  it("Resolve, then a new customer message reopens it and says so in the thread; Reopen by hand; audited", async () => {
    expect(await click(CAROL, { action_id: "sb_inbox_resolve", value: String(user) })).toMatch(/is resolved/);
    expect(cardText()).toContain("*Resolved*");
    expect(cardText()).toContain("sb_inbox_reopen");
    expect(cardText()).not.toContain("sb_inbox_resolve");
    // A second Resolve changes nothing and says so.
    expect(await click(ALICE, { action_id: "sb_inbox_resolve", value: String(user) })).toMatch(
      /resolved already/,
    );
    expect((await t.s.core.run("inbox", { userId: ALICE.id, via: "shell" })).text).toMatch(/1 resolved/);

    await customerWrites(user, "It has not arrived.");
    await t.runtime.poller.step();
    expect((await t.store.thread(INBOX, user))?.deskState).toBe("open");
    expect(inThread().some((m) => /Reopened: .* wrote again/.test(m.text ?? ""))).toBe(true);
    await t.s.fake.waitFor(() => cardText().includes("*Open*"));

    expect(await click(ALICE, { action_id: "sb_inbox_resolve", value: String(user) })).toMatch(/is resolved/);
    expect(await click(ALICE, { action_id: "sb_inbox_reopen", value: String(user) })).toMatch(/open again/);
    expect(cardText()).toContain("*Open*");
    expect(await audited("inbox.resolve")).toHaveLength(2);
    expect(await audited("inbox.reopen")).toHaveLength(1);
  });

  it("someone who may not write cannot assign", async () => {
    const r = await t.s.core.run(`inbox assign ${INBOX} ${user} me`, { userId: "U0NOBODY", via: "slack" });
    // In words, naming who may (issue 30 §2), never the command.
    expect(r.text).toMatch(/^Only .* may assign conversations/);
    expect(r.text).not.toContain("/sb");
  });

  it("window closed: the card says so with Send template first; a reply is not sent, the writer keeps its text", async () => {
    clock.advance(25 * 3_600_000);
    await t.runtime.poller.step();
    expect(cardText()).toContain("Window closed: only a template can start the conversation again");
    const buttons = (card().blocks as Rec[]).flatMap((b) => b.elements ?? []);
    expect(buttons.find((e: Rec) => e.action_id === "sb_inbox_template")?.style).toBe("primary");
    expect(buttons.find((e: Rec) => e.action_id === "sb_inbox_reply")?.style).toBeUndefined();

    const tries = (await new AuditLog(t.s.db, t.s.workspace).list({ limit: 200 })).filter((e) =>
      /inbox reply/.test(e.command ?? ""),
    );
    // The reply sent earlier is in the audit: a send tried now would be too.
    expect(tries.length).toBeGreaterThan(0);
    const ephemerals = t.s.fake.callsOf("chat.postEphemeral").length;
    const late = await threadReply(ALICE.id, "We are sending a new one today.");
    await handled(late.ts, "outside the window");
    const told = t.s.fake.callsOf("chat.postEphemeral").slice(ephemerals);
    expect(told).toHaveLength(1);
    expect(told[0]?.args).toMatchObject({ user: ALICE.id, thread_ts: threadTs });
    expect(String(told[0]?.args.text)).toContain("We are sending a new one today.");
    const blocks = JSON.stringify(told[0]?.args.blocks);
    expect(blocks).toContain('"action_id":"sb_inbox_template"');
    expect(blocks).toContain(`"value":"${user}"`);
    // Not even tried: the API was not called.
    expect(
      (await new AuditLog(t.s.db, t.s.workspace).list({ limit: 200 })).filter((e) =>
        /inbox reply/.test(e.command ?? ""),
      ),
    ).toHaveLength(tries.length);

    // The customer writes again: the window opens.
    await customerWrites(user, "Thanks!");
    await t.runtime.poller.step();
    await t.s.fake.waitFor(() => cardText().includes("Reply window open until"));
  });
});

itLeavesBUntouched(() => t.s);
