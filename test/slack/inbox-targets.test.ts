// Reply targets (issue 29 §2), end to end on real parts: the sandbox
// (customers write through its control route), the fake Slack, the Bolt app
// and the poller stepped by hand on a hand-moved clock shared with the
// sandbox, with targets of a minute. The card says when a reply is due (a
// Slack date, no countdown); at 80% a warning in the thread, at 100% a
// breach line and the card redrawn once, each once across passes and a
// restart; a note does not stop the clock, a reply does; business hours
// move the due time over a weekend; `/sb inbox` lists what is due first.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type InboxRuntime, startInbox } from "../../src/slack/features/inbox/runtime.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { manualClock, type Rec } from "../helpers/sandbox.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Forms } from "./forms-harness.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const CAROL = { id: "U0CAROL", name: "carol" };
const INBOX = "C0TARGET";
const FORM_CHANNEL = "C0FORM";
// Friday 4 December 2026, 10:00 UTC: a working day, so the business hours part can cross a weekend.
const clock = manualClock(new Date("2026-12-04T10:00:00Z"));

let s: SlackStack;
let runtime: InboxRuntime;
let store: InboxStore;
const used = new Set<number>();

beforeAll(async () => {
  s = await startStack({
    writers: [ALICE.id, CAROL.id],
    sandbox: { campaignTickMs: 0, now: clock.now, readLimit: 100_000, writeLimit: 10_000 },
    env: { API_READ_LIMIT: "100000", API_WRITE_LIMIT: "10000" },
    slack: {
      channels: [
        { id: INBOX, name: "support", is_member: true },
        { id: FORM_CHANNEL, name: "web-support", is_member: true },
        // Where a slash command comes from: the inbox form opens on this channel's inbox.
        { id: "C0GENERAL", name: "general", is_member: true },
      ],
      users: [ALICE, CAROL],
    },
  });
  runtime = await startInbox(s.switchboard, s.config, s.logger, { timer: false, now: clock.now });
  store = runtime.poller.store;
  const r = await s.core.run(`inbox on ${INBOX} first=1m next=2m`, { userId: ALICE.id, via: "shell" });
  expect(r.text).toMatch(/Inbox on/);
  await runtime.poller.step(); // the first cards of the new inbox, if any
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await s?.close();
});

/** A chat user with no thread in the inbox yet. */
async function freshUser(): Promise<number> {
  const page = await s.client.listChatUsers({ limit: 100 });
  for (const u of page.items)
    if (typeof u.id === "number" && !used.has(u.id) && !(await store.thread(INBOX, u.id))) {
      used.add(u.id);
      return u.id;
    }
  throw new Error("no chat user left");
}

async function customerWrites(chatUserId: number, text: string): Promise<void> {
  const res = await fetch(`${s.sandbox.controlUrl}/chat-users/${chatUserId}/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": s.sandbox.apiKey },
    body: JSON.stringify({ text }),
  });
  expect(res.status).toBe(201);
}

const threadOf = async (user: number) => (await store.thread(INBOX, user))?.threadTs as string;
const cardOf = (ts: string) => JSON.stringify((s.fake.messages.find((m) => m.ts === ts) as Rec).blocks);
const inThread = (ts: string) => s.fake.messages.filter((m) => m.channel === INBOX && m.thread_ts === ts);
const warnings = (ts: string) => inThread(ts).filter((m) => /is waiting: a reply is due/.test(m.text ?? ""));
const breaches = (ts: string) => inThread(ts).filter((m) => /target missed/.test(m.text ?? ""));
const updatesOf = (ts: string) => s.fake.callsOf("chat.update").filter((c) => c.args.ts === ts).length;
const broadcastOf = (ts: string) =>
  s.fake
    .callsOf("chat.postMessage")
    .find((c) => c.args.thread_ts === ts && /is waiting/.test(String(c.args.text)))?.args;

async function threadReply(threadTs: string, who: string, text: string) {
  const msg = s.fake.addUserMessage({ channel: INBOX, user: who, text, thread_ts: threadTs });
  await s.req.event({ type: "message", channel: INBOX, user: who, text, ts: msg.ts, thread_ts: threadTs });
  return msg;
}

const handled = (ts: string, outcome: string) =>
  s.waitForLog((l) => l.msg === "inbox thread message handled" && l.ts === ts && l.outcome === outcome);

describe("reply targets", { timeout: 90_000 }, () => {
  it("the card says when a reply is due; at 80% one warning, at 100% one breach and one card edit, across passes and a restart", async () => {
    const user = await freshUser();
    clock.advance(1000);
    const wrote = clock.now().getTime();
    await customerWrites(user, "Where is my parcel?");
    await runtime.poller.step();
    const ts = await threadOf(user);
    const due = Number(/Reply due by <!date\^(\d+)\^\{time\}/.exec(cardOf(ts))?.[1]);
    expect(Math.abs(due - (wrote / 1000 + 60))).toBeLessThanOrEqual(1);
    const edits = updatesOf(ts);

    // Before 80% (47 s of 60): the pass posts nothing.
    clock.advance(46_000);
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(0);

    // 80%: a warning naming nobody, also shown in the channel, without @here (the inbox was not turned on with here=yes).
    clock.advance(3000);
    await runtime.poller.step();
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(1);
    expect(warnings(ts)[0]?.text).toMatch(/Nobody has it yet/);
    expect(warnings(ts)[0]?.text).not.toContain("<!here>");
    expect(String(broadcastOf(ts)?.reply_broadcast)).toBe("true");
    // The card is not redrawn to count down.
    expect(updatesOf(ts)).toBe(edits);

    // A restart (another process, the same store): the warning is not posted again.
    await runtime.stop();
    runtime = await startInbox(s.switchboard, s.config, s.logger, {
      timer: false,
      now: clock.now,
      workerId: "second-process",
    });
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(1);

    // 100%: one breach line and one card edit saying the target was missed.
    clock.advance(12_000);
    await runtime.poller.step();
    await runtime.poller.step();
    expect(breaches(ts)).toHaveLength(1);
    expect(breaches(ts)[0]?.text).toMatch(/First reply target missed/);
    expect(updatesOf(ts)).toBe(edits + 1);
    expect(cardOf(ts)).toContain("Reply target missed");
    expect(warnings(ts)).toHaveLength(1);
  });

  it("a warning names who has the conversation, in the thread only; a note does not stop the clock", async () => {
    const user = await freshUser();
    clock.advance(1000);
    await customerWrites(user, "Hello?");
    await runtime.poller.step();
    const ts = await threadOf(user);
    expect(
      (await s.core.run(`inbox assign ${INBOX} ${user} me`, { userId: CAROL.id, via: "slack" })).text,
    ).toMatch(/You have the conversation/);
    const note = await threadReply(ts, ALICE.id, "// checking the depot first");
    await handled(note.ts, "note");
    clock.advance(49_000);
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(1);
    expect(warnings(ts)[0]?.text).toContain(`<@${CAROL.id}> has it.`);
    expect(broadcastOf(ts)?.reply_broadcast).toBeUndefined();
    expect((await store.clocks.running(INBOX, user))?.endedAt ?? null).toBeNull();
  });

  it("a reply stops the clock: no warning nor breach after it; the next customer message starts the next-reply target", async () => {
    const user = await freshUser();
    clock.advance(1000);
    await customerWrites(user, "Can I change my address?");
    await runtime.poller.step();
    const ts = await threadOf(user);
    clock.advance(10_000);
    const reply = await threadReply(ts, ALICE.id, "Yes, send it to us.");
    await handled(reply.ts, "sent");
    expect(await store.clocks.running(INBOX, user)).toBeUndefined();
    clock.advance(120_000);
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(0);
    expect(breaches(ts)).toHaveLength(0);
    expect(cardOf(ts)).not.toContain("Reply due by");

    // The next message: the next-reply target (2 min).
    await customerWrites(user, "12 Rose Street.");
    const wrote = clock.now().getTime();
    await runtime.poller.step();
    const running = await store.clocks.running(INBOX, user);
    expect(running).toMatchObject({ kind: "next", targetSecs: 120 });
    expect(Math.abs((running?.dueAt?.getTime() ?? 0) - (wrote + 120_000))).toBeLessThanOrEqual(1000);
    // Resolve stops it too.
    await s.core.run(`inbox resolve ${INBOX} ${user}`, { userId: ALICE.id, via: "slack" });
    expect(await store.clocks.running(INBOX, user)).toBeUndefined();
  });

  it("/sb inbox lists the open conversations by what is due first", async () => {
    const list = await s.core.run("inbox", { userId: ALICE.id, via: "shell" });
    const text = JSON.stringify(list.blocks);
    expect(text).toContain("Reply targets: first reply within 1 min, next reply within 2 min");
    expect(text).toMatch(/reply overdue by/);
  });

  it("business hours: a target counts only in them (the due time moves over the weekend), warned and breached once", async () => {
    const set = await s.core.run('settings set tz=UTC hours="mon-fri 09:00-18:00"', {
      userId: "shell",
      via: "shell",
    });
    expect(set.text).toMatch(/Saved/);
    // Friday 17:59:30 UTC: 30 s of the target left today, the other 30 s on Monday from 09:00.
    clock.advance(new Date("2026-12-04T17:59:30Z").getTime() - clock.now().getTime());
    const user = await freshUser();
    await customerWrites(user, "Are you open tomorrow?");
    await runtime.poller.step();
    const ts = await threadOf(user);
    const monday = new Date("2026-12-07T09:00:30Z").getTime() / 1000;
    expect(Number(/Reply due by <!date\^(\d+)\^/.exec(cardOf(ts))?.[1])).toBe(monday);

    // Saturday: closed, nothing comes due.
    clock.advance(new Date("2026-12-05T12:00:00Z").getTime() - clock.now().getTime());
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(0);
    // Monday 09:00:19: 48 s counted, the warning.
    clock.advance(new Date("2026-12-07T09:00:19Z").getTime() - clock.now().getTime());
    await runtime.poller.step();
    await runtime.poller.step();
    expect(warnings(ts)).toHaveLength(1);
    expect(breaches(ts)).toHaveLength(0);
    // 09:00:31: the breach.
    clock.advance(12_000);
    await runtime.poller.step();
    await runtime.poller.step();
    expect(breaches(ts)).toHaveLength(1);
    expect(warnings(ts)).toHaveLength(1);
  });

  it("business hours without the workspace's time zone are refused in words, nothing saved", async () => {
    const r = await s.core.run('settings set tz=none hours="mon-fri 09:00-18:00"', {
      userId: "shell",
      via: "shell",
    });
    expect(r.text).toMatch(/counted in the workspace's time zone, which is not set/);
    const bad = await s.core.run('settings set hours="mon-fri 18:00-09:00"', {
      userId: "shell",
      via: "shell",
    });
    expect(bad.text).toMatch(/end before they start/);
    const settings = await s.core.admin?.settings();
    expect(settings?.businessHours.value).toBe("mon-fri 09:00-18:00");
    expect(settings?.reportsTimeZone.value).toBe("UTC");
  });

  it("a warning is claimed once by two processes at once", async () => {
    const a = new InboxStore(s.db, s.workspace).clocks;
    const b = new InboxStore(s.db, s.workspace).clocks;
    const user = await freshUser();
    const at = clock.now();
    await a.customerWrote(INBOX, user, at, { first: false, targets: undefined, clock: undefined });
    const c = { channel: INBOX, chatUserId: user, startedAt: at };
    const took = await Promise.all([a.claimWarning(c, at), b.claimWarning(c, at), a.claimWarning(c, at)]);
    expect(took.filter(Boolean)).toHaveLength(1);
  });

  it("inbox on with a wrong target is refused in words and changes nothing", async () => {
    const before = await store.clocks.targets(INBOX);
    const r = await s.core.run(`inbox on ${INBOX} first=soon`, { userId: ALICE.id, via: "shell" });
    expect(r.text).toMatch(/`soon` is not a length of time/);
    const short = await s.core.run(`inbox on ${INBOX} first=10s`, { userId: ALICE.id, via: "shell" });
    expect(short.text).toMatch(/between 1 minute and 30 days/);
    expect(await store.clocks.targets(INBOX)).toEqual(before);
  });

  it("/sb inbox on alone opens the inbox form; saving it runs the command with its targets", async () => {
    const forms = new Forms(s.req, s.fake, ALICE);
    const opened = await forms.open("inbox on");
    expect(opened.view.callback_id).toBe("sb_inbox");
    await forms.submit(opened.id, {
      channel: FORM_CHANNEL,
      types: ["chat_web"],
      first: "900",
      next: "3600",
      here: ["yes"],
    });
    const said = await s.fake.waitFor(() =>
      s.fake.messages.find((m) => m.channel === FORM_CHANNEL && /Inbox on in/.test(m.text ?? "")),
    );
    expect(said.text).toMatch(/reply targets: first reply within 15 min, next reply within 1 h/);
    expect(await store.inbox(FORM_CHANNEL)).toMatchObject({ types: ["chat_web"], replies: "send" });
    expect(await store.clocks.targets(FORM_CHANNEL)).toMatchObject({
      firstSecs: 900,
      nextSecs: 3600,
      here: true,
    });
  });

  it("the inbox form opened on an inbox and saved untouched writes nothing and says so (issue 39 §3)", async () => {
    const general = s.fake.generalOf(s.fake.teamId);
    const on = await s.core.run(`inbox on ${general} need-human first=30m`, {
      userId: ALICE.id,
      via: "shell",
    });
    expect(on.text).toMatch(/Inbox on/);
    const audit = new AuditLog(s.db, s.workspace);
    const rows = async () => (await audit.list({ limit: 500 })).length;
    const before = await rows();
    const posted = s.fake.messages.length;
    const forms = new Forms(s.req, s.fake, ALICE);
    const opened = await forms.open("inbox on");
    const answer = await forms.submit(opened.id, {});
    expect(answer.response_action).toBe("update");
    expect(JSON.stringify(answer.view.blocks)).toContain("Nothing changed");
    expect(await rows()).toBe(before);
    expect(s.fake.messages.slice(posted).filter((m) => /Inbox on/.test(m.text ?? ""))).toEqual([]);
    // A change is saved as before.
    const again = await forms.open("inbox on");
    expect((await forms.submit(again.id, { first: "3600" })).response_action).toBe("clear");
    expect(await s.fake.waitFor(async () => ((await rows()) > before ? true : undefined))).toBe(true);
    expect((await store.clocks.targets(general))?.firstSecs).toBe(3600);
  });
});
