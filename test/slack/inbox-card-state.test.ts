// The card's state, right (issue 29 §6), end to end on real parts: the
// sandbox, the fake Slack, the Bolt app and the poller stepped by hand on a
// hand-moved clock (the desk's redraw on the same clock). A message sent with
// `/sb send` or the send form shows in the thread by who sent it, not as
// "sent from elsewhere"; the card's buttons follow its state (Assign to me,
// then Unassign and the person list; Reopen alone once resolved); one
// Assign or Resolve updates the card once, the poller's closed-window pass
// included.

import { describe, expect, it } from "vitest";
import { firstConversation, followThread, useInboxStack } from "../helpers/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { Forms } from "./forms-harness.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const INBOX = "C0CARDS";
const clock = manualClock();

let user = 0;
let threadTs = "";

// The desk's redraw on the poller's clock (the reply window is told by it).
const t = useInboxStack({
  channels: [{ id: INBOX, name: "cards", is_member: true }],
  users: [ALICE],
  clock,
  redraw: true,
});

const { customerWrites, cardText, inThread, deskButtons, click } = followThread(t, ALICE, () => ({
  user,
  threadTs,
}));
const updates = () => t.s.fake.callsOf("chat.update").filter((c) => c.args.ts === threadTs).length;

describe("the inbox card's state", { timeout: 90_000 }, () => {
  it("a message sent with /sb send or the send form shows by who sent it; one sent elsewhere as Outgoing", async () => {
    const first = await firstConversation(t, ALICE, "Where is my parcel?");
    expect(first.polled).toMatchObject({ threads: 1 });
    ({ user, threadTs } = first);

    const channel = (await t.store.thread(INBOX, user))?.card?.channelId ?? 1;
    clock.advance(1000);
    const typed = await t.s.core.run(`send user:${user} channel=${channel} It ships today.`, {
      userId: ALICE.id,
      via: "slack",
      channelId: INBOX,
    });
    expect(typed.text).toMatch(/Sent/);
    clock.advance(1000);
    const forms = new Forms(t.s.req, t.s.fake, ALICE);
    const form = await forms.open(`send user:${user}`);
    expect(
      await forms.submit(form.id, { text: "Tracking number to follow.", channel: String(channel) }),
    ).toEqual({});
    await t.s.fake.waitFor(() =>
      t.s.fake.messages.find((m) => (m.text ?? "").includes("Tracking number to follow.")),
    );
    clock.advance(1000);
    await t.s.client.sendMessage({
      channelId: channel,
      chatUserId: user,
      type: "text",
      text: "From the dashboard.",
    });
    await customerWrites("Thanks!");
    await t.runtime.poller.step();

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
    expect((await t.store.thread(INBOX, user))?.assignee).toBeNull();
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
    await t.runtime.poller.step();
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
    await t.runtime.poller.step();
    expect(updates()).toBe(before + 2);
    expect(deskButtons()).toEqual(["sb_inbox_reopen"]);
  });
});
