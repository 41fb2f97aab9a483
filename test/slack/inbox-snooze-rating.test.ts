// Snooze and a rating after Resolve (issue 29 §3, §4), end to end on real
// parts: the sandbox, the fake Slack, the Bolt app and the poller stepped by
// hand on a hand-moved clock (the desk's clock the same). A snooze from the
// card's menu leaves the open list, says until when and by whom, and comes
// back once at its time: across a restart, and with two pollers (replicas)
// stepping at once; a snooze until the customer writes comes back when they
// do. An inbox with a rating template asks on Resolve; the customer's answer
// is recorded, shown on the card, not mirrored, and the conversation stays
// resolved; without a template nothing is sent.

import { describe, expect, it } from "vitest";
import { startInbox } from "../../src/slack/features/inbox/runtime.ts";
import { firstConversation, followThread, useInboxStack } from "../helpers/inbox.ts";
import { manualClock, type Rec, ratingTemplate } from "../helpers/sandbox.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const INBOX = "C0SNOOZE";
const HOUR = 3_600_000;
// A Friday, 10:00 UTC: "tomorrow 9:00" and "next Monday" are known dates.
const clock = manualClock(new Date("2026-11-27T10:00:00Z"));

let user = 0;
let threadTs = "";
let channelId = 1;

const t = useInboxStack({
  channels: [{ id: INBOX, name: "snooze", is_member: true }],
  users: [ALICE],
  clock,
  workerId: "w1",
  redraw: true,
  // The person's zone (their Slack profile): "tomorrow 9:00" is 9:00 there.
  userTz: "America/New_York",
});

const { customerWrites, cardText, inThread, deskButtons, click } = followThread(t, ALICE, () => ({
  user,
  threadTs,
}));
const backNotes = () => inThread().filter((m) => String(m.text).includes("back from its snooze")).length;

const snooze = (value: string) =>
  click({ action_id: "sb_inbox_snooze", block_id: `sb_inbox_desk:${user}`, selected_option: { value } });

const conversationMessages = async (): Promise<Rec[]> => t.parts.messagesOf(user);

describe("snooze", { timeout: 120_000 }, () => {
  it("from the card's menu: out of the open list, until when and by whom, Wake up instead of Snooze", async () => {
    const first = await firstConversation(t, ALICE, "Is my order shipped?");
    expect(first.polled).toMatchObject({ threads: 1 });
    ({ user, threadTs } = first);
    channelId = (await t.store.thread(INBOX, user))?.card?.channelId ?? 1;
    expect(deskButtons()).toEqual([
      "sb_inbox_assign_me",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_snooze",
    ]);

    // Tomorrow 9:00 in the person's zone (New York: 14:00 UTC on Saturday).
    expect(await snooze("tomorrow")).toMatch(/is snoozed until/);
    const row = await t.store.thread(INBOX, user);
    expect(row?.snoozedUntil?.toISOString()).toBe("2026-11-28T14:00:00.000Z");
    expect(row?.snoozedBy).toBe(ALICE.id);
    const at = Math.floor(Date.parse("2026-11-28T14:00:00Z") / 1000);
    expect(cardText()).toContain(`:zzz: *Snoozed until <!date^${at}^`);
    expect(cardText()).toContain(`by <@${ALICE.id}>`);
    expect(deskButtons()).toEqual([
      "sb_inbox_assign_me",
      "sb_inbox_assign",
      "sb_inbox_resolve",
      "sb_inbox_wake",
    ]);
    const list = await t.s.core.run("inbox", { userId: ALICE.id, via: "shell" });
    const text = JSON.stringify(list.blocks);
    // Listed under Snoozed, after every open one.
    expect(text).toContain("*Snoozed:* 1 conversation");
    expect(text.indexOf("Is my order shipped?")).toBeGreaterThan(text.indexOf("*Snoozed:*"));

    expect(await click({ action_id: "sb_inbox_wake", value: String(user) })).toMatch(/is back/);
    expect((await t.store.thread(INBOX, user))?.snoozedUntil).toBeNull();
    expect(deskButtons()).toContain("sb_inbox_snooze");
  });

  it("a wrong time is refused in words and changes nothing", async () => {
    const r = await t.s.core.run(`inbox snooze ${INBOX} ${user} until=someday`, {
      userId: ALICE.id,
      via: "slack",
      channelId: INBOX,
    });
    expect(r.text).toMatch(/is not a time/);
    expect((await t.store.thread(INBOX, user))?.snoozedUntil).toBeNull();
  });

  it("comes back once at its time, across a restart: the card updated, the person told in the thread", async () => {
    expect(await snooze("1h")).toMatch(/is snoozed until/);
    await t.runtime.poller.step();
    expect(backNotes()).toBe(0);
    // A restart: this process stops, another starts on the same t.store.
    await t.runtime.stop();
    t.runtime = await startInbox(t.s.switchboard, t.s.config, t.s.logger, {
      timer: false,
      now: clock.now,
      workerId: "w2",
    });
    clock.advance(HOUR + 1000);
    await t.runtime.poller.step();
    await t.s.fake.waitFor(() => backNotes() === 1);
    expect(cardText()).not.toContain("Snoozed until");
    expect(deskButtons()).toContain("sb_inbox_snooze");
    const note = inThread().find((m) => String(m.text).includes("back from its snooze")) as Rec;
    expect(String(note.text)).toContain(`<@${ALICE.id}>`);
    await t.runtime.poller.step();
    expect(backNotes()).toBe(1);
    expect((await t.store.thread(INBOX, user))?.snoozedUntil).toBeNull();
  });

  it("two pollers at its time (two replicas): woken once", async () => {
    expect(await snooze("1h")).toMatch(/is snoozed until/);
    const other = await startInbox(t.s.switchboard, t.s.config, t.s.logger, {
      timer: false,
      now: clock.now,
      workerId: "w3",
    });
    try {
      clock.advance(HOUR + 1000);
      // Both replicas' stores, both wake passes: the statement that clears the snooze takes it once.
      const [a, b] = await Promise.all([
        t.store.wakeDue(INBOX, clock.now()),
        other.poller.store.wakeDue(INBOX, clock.now()),
      ]);
      expect(a.length + b.length).toBe(1);
    } finally {
      await other.stop();
    }
    // And a poller's pass after that finds nothing left to wake.
    const before = backNotes();
    await t.runtime.poller.step();
    expect(backNotes()).toBe(before);
  });

  it("until the customer writes: back at once when they do", async () => {
    expect(await snooze("reply")).toMatch(/until the customer writes/);
    expect(cardText()).toContain("Snoozed until the customer writes");
    clock.advance(5 * HOUR);
    await t.runtime.poller.step();
    expect((await t.store.thread(INBOX, user))?.snoozeUntilReply).toBe(true);
    const before = backNotes();
    await customerWrites("Any news?");
    await t.runtime.poller.step();
    await t.s.fake.waitFor(() => backNotes() === before + 1);
    const row = await t.store.thread(INBOX, user);
    expect(row?.snoozeUntilReply).toBe(false);
    expect(cardText()).not.toContain("Snoozed");
    expect(inThread().some((m) => JSON.stringify(m.blocks).includes("Any news?"))).toBe(true);
  });
});

describe("a rating after resolve", { timeout: 120_000 }, () => {
  it("without a rating template, Resolve sends nothing", async () => {
    const before = (await conversationMessages()).length;
    expect(await click({ action_id: "sb_inbox_resolve", value: String(user) })).toMatch(/is resolved/);
    expect(await click({ action_id: "sb_inbox_reopen", value: String(user) })).toMatch(/open again/);
    expect((await conversationMessages()).length).toBe(before);
  });

  it("a template that is not approved, or has no quick replies, is refused in words", async () => {
    const who = { userId: ALICE.id, via: "slack" as const, channelId: INBOX };
    expect((await t.s.core.run(`inbox on ${INBOX} rating=nosuch`, who)).text).toMatch(
      /is not an approved template/,
    );
    expect((await t.s.core.run(`inbox on ${INBOX} rating=welcome_message`, who)).text).toMatch(
      /no quick-reply buttons/,
    );
    expect((await t.store.inbox(INBOX))?.ratingTemplate).toBeNull();
  });

  it("asked on Resolve; the answer recorded and shown, not mirrored, the conversation still resolved", async () => {
    await ratingTemplate(t.s.client, channelId, "rate_us", ["Great", "OK", "Poor"]);
    const who = { userId: ALICE.id, via: "slack" as const, channelId: INBOX };
    expect((await t.s.core.run(`inbox on ${INBOX} rating=rate_us`, who)).text).toMatch(/asked for a rating/);
    await customerWrites("Thanks, that worked");
    await t.runtime.poller.step();

    expect(await click({ action_id: "sb_inbox_resolve", value: String(user) })).toMatch(
      /asked for a rating \(Great \/ OK \/ Poor\)/,
    );
    const sent = (await conversationMessages()).filter((m) => m.type === "template");
    expect(sent.length).toBe(1);
    await t.runtime.poller.step();
    const repliesBefore = inThread().length;

    await customerWrites("great");
    await t.runtime.poller.step();
    const row = await t.store.thread(INBOX, user);
    expect(row?.rating).toBe("Great");
    expect(row?.deskState).toBe("resolved");
    await t.s.fake.waitFor(() => cardText().includes("Rated: *Great*"));
    expect(deskButtons()).toEqual(["sb_inbox_reopen"]);
    // Neither mirrored nor "Reopened": the thread's only new reply is the rating question (sent by Alice's Resolve).
    expect(
      inThread()
        .slice(repliesBefore)
        .map((m) => m.text),
    ).toEqual([`Sent by <@${ALICE.id}> with Switchboard: How did we do?`]);

    // Any other message still reopens it, as before.
    await customerWrites("One more question");
    await t.runtime.poller.step();
    expect((await t.store.thread(INBOX, user))?.deskState).toBe("open");
    await t.s.fake.waitFor(() =>
      inThread().some((m) => JSON.stringify(m.blocks).includes("One more question")),
    );
  });
});
