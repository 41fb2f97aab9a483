// The away message (issue 40 §1), end to end on real parts: the sandbox
// (customers write through its control route), the fake Slack, the Bolt app
// and the poller stepped by hand on a hand-moved clock shared with the
// sandbox. Business hours mon-fri 09:00-18:00 in Madrid: a customer who
// writes outside them gets the away message once per conversation per closed
// period (across a restart too), filled as a saved reply is, shown in the
// thread as Switchboard's and audited; inside them nothing; nothing after the
// team wrote in the last hour; away now sends it at any hour; an inbox turns
// it off for itself (`inbox on` leaves that as it is); an outcome not known
// is never sent again; without hours and away now it cannot be set.
import { beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { messageDirection } from "../../src/api/inbox.ts";
import type { Message } from "../../src/api/types.ts";
import { startInbox } from "../../src/slack/features/inbox/runtime.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { useInboxStack } from "../helpers/inbox.ts";
import { startProxy } from "../helpers/proxy.ts";
import { manualClock } from "../helpers/sandbox.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const INBOX = "C0AWAY";
const AWAY = "Hi {first_name|there}, thanks for writing! We answer Mon–Fri 9–18.";
// Friday 4 December 2026, 10:00 UTC: 11:00 in Madrid, inside the business hours.
const clock = manualClock(new Date("2026-12-04T10:00:00Z"));
const shell = { userId: ALICE.id, via: "shell" as const };

const t = useInboxStack({
  channels: [{ id: INBOX, name: "support", is_member: true }],
  users: [ALICE],
  clock,
});

beforeAll(async () => {
  expect((await t.s.core.run(`inbox on ${INBOX}`, shell)).text).toMatch(/Inbox on/);
  const set = await t.s.core.run(
    `settings set tz=Europe/Madrid hours="mon-fri 09:00-18:00" away="${AWAY}"`,
    shell,
  );
  expect(set.text).toMatch(/Saved: .*Away message/);
  await t.runtime.poller.step();
}, 120_000);

/** The away messages the customer got, as the API keeps their conversation. */
const awaysOf = async (user: number) =>
  (await t.parts.messagesOf(user)).filter(
    (m: Message) => messageDirection(m) === "outbound" && /thanks for writing/.test(String(m.text)),
  );

/** The customer writes, and the poller takes a pass (and one more, which mirrors what it sent). */
async function writes(user: number, text: string) {
  await t.parts.customerWrites(user, text); // a second later on the clock
  await t.runtime.poller.step();
  await t.runtime.poller.step();
}

/** A user who wrote inside the hours (Friday morning): their 24-hour window is open for the team's send later. */
let answeredLater: number;
let insideUser: number;

describe("the away message", { timeout: 120_000 }, () => {
  it("inside business hours nothing is sent", async () => {
    insideUser = await t.parts.freshUser();
    await writes(insideUser, "Hello, is anyone there?");
    answeredLater = await t.parts.freshUser();
    await writes(answeredLater, "A question about my order");
    expect(await awaysOf(insideUser)).toEqual([]);
    expect(await awaysOf(answeredLater)).toEqual([]);
  });

  it("outside them: once per conversation per closed period, across a restart; filled, shown as Switchboard's, audited", async () => {
    // Friday 19:00 UTC, 20:00 in Madrid: closed since 18:00.
    clock.advance(9 * 3_600_000);
    const user = await t.parts.freshUser();
    await writes(user, "Are you open?");
    const sent = await awaysOf(user);
    expect(sent).toHaveLength(1);
    // Filled as a saved reply is: the customer's first name, or "there".
    expect(String(sent[0]?.text)).toMatch(/^Hi \S+, thanks for writing! We answer Mon–Fri 9–18\.$/);
    expect(String(sent[0]?.text)).not.toContain("{");
    // In the thread: Switchboard's, not "Outgoing" from elsewhere.
    const ts = await t.parts.threadOf(user);
    const lines = t.parts.inThread(ts).map((m) => String(m.text));
    expect(lines.filter((t) => /Away message sent by Switchboard/.test(t))).toHaveLength(1);
    expect(lines.some((t) => /^Outgoing/.test(t))).toBe(false);
    // Audited, as Switchboard's own.
    const audit = (await new AuditLog(t.s.switchboard.db, t.s.switchboard.workspace).list()).filter(
      (e) => e.operation === "inbox.away.message",
    );
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: "switchboard", ok: true, answer: { outcome: "sent" } });

    // A second message in the same closed period: nothing more.
    await writes(user, "Hello??");
    expect(await awaysOf(user)).toHaveLength(1);

    // A restart: another process on the same database, the same closed period: nothing more.
    await t.runtime.stop();
    t.runtime = await startInbox(t.s.switchboard, t.s.config, t.s.logger, {
      timer: false,
      now: clock.now,
      workerId: "second-process",
    });
    clock.advance(3_600_000);
    await writes(user, "Still nobody?");
    expect(await awaysOf(user)).toHaveLength(1);
  });

  it("a conversation the team wrote in within the last hour gets nothing; an hour later it does", async () => {
    // The team answers from Switchboard (a send to the chat user), at 20:15 UTC.
    clock.advance(15 * 60_000);
    const sent = await t.s.core.run(`send user:${answeredLater} We are looking into it channel=1`, shell);
    expect(sent.text, sent.text).toMatch(/sent/i);
    await t.runtime.poller.step();
    clock.advance(10 * 60_000);
    await writes(answeredLater, "Thanks, any news?");
    expect(await awaysOf(answeredLater)).toEqual([]);
    // More than an hour after the team wrote: the away message (the same closed period, not sent before).
    clock.advance(61 * 60_000);
    await writes(answeredLater, "Hello?");
    expect(await awaysOf(answeredLater)).toHaveLength(1);
  });

  it("an inbox turns it off for itself; `inbox on` leaves that as it is; `inbox away on` brings it back", async () => {
    const off = await t.s.core.run(`inbox away off ${INBOX}`, shell);
    expect(off.text).toMatch(/away message is off/);
    const user = await t.parts.freshUser();
    await writes(user, "Anyone?");
    expect(await awaysOf(user)).toEqual([]);
    // Setting the inbox as typed does not turn it back on.
    await t.s.core.run(`inbox on ${INBOX}`, shell);
    expect((await t.s.core.run("inbox", shell)).text).toBeDefined();
    expect(JSON.stringify((await t.s.core.run("inbox", shell)).blocks)).toContain("no away message");
    await writes(user, "Hello?");
    expect(await awaysOf(user)).toEqual([]);
    expect((await t.s.core.run(`inbox away on ${INBOX}`, shell)).text).toMatch(/goes out again/);
    const next = await t.parts.freshUser();
    await writes(next, "Good evening");
    expect(await awaysOf(next)).toHaveLength(1);
    const audit = (await new AuditLog(t.s.switchboard.db, t.s.switchboard.workspace).list()).filter(
      (e) => e.operation === "inbox.away",
    );
    expect(audit.map((e) => (e.answer as { on: boolean }).on)).toEqual([true, false]);
  });

  it("an outcome not known is recorded and never sent again, across a restart", async () => {
    // The API takes the message, but its answer is lost: Switchboard cannot know it was sent.
    const proxy = await startProxy(t.s.sandbox.url, {
      drop: (method, url) => method === "POST" && url.startsWith("/v1/messages"),
    });
    const client = new MessagingClient({
      baseUrl: proxy.url,
      apiKey: t.s.sandbox.apiKey,
      maxRetries: 0,
      readPerMinute: 100_000,
      writePerMinute: 10_000,
    });
    await t.runtime.stop();
    t.runtime = await startInbox({ ...t.s.switchboard, client }, t.s.config, t.s.logger, {
      timer: false,
      now: clock.now,
      workerId: "lost-answers",
    });
    try {
      const user = await t.parts.freshUser();
      await writes(user, "Is the shop open tomorrow?");
      expect(proxy.seen.filter((l) => l.startsWith("POST /v1/messages"))).toHaveLength(1);
      const row = (await new AuditLog(t.s.switchboard.db, t.s.switchboard.workspace).list()).find(
        (e) =>
          e.operation === "inbox.away.message" && (e.answer as { outcome: string }).outcome === "unknown",
      );
      expect(row).toMatchObject({ ok: false });
      // The customer writes again, then again after a restart on a sound road: never sent again.
      await writes(user, "Hello?");
      expect(proxy.seen.filter((l) => l.startsWith("POST /v1/messages"))).toHaveLength(1);
      await t.runtime.stop();
      t.runtime = await startInbox(t.s.switchboard, t.s.config, t.s.logger, {
        timer: false,
        now: clock.now,
        workerId: "third-process",
      });
      await writes(user, "Anyone?");
      expect(await awaysOf(user)).toHaveLength(1);
    } finally {
      await client.close();
      await proxy.close();
    }
  });

  it("away now: at any hour, once; off again, the hours decide", async () => {
    // Monday 7 December, 10:00 UTC: 11:00 in Madrid, inside the hours.
    clock.advance(new Date("2026-12-07T10:00:00Z").getTime() - clock.now().getTime());
    // One who never got it (wrote on Friday morning), one who got it on Friday night.
    const user = insideUser;
    await writes(user, "Good morning");
    expect(await awaysOf(user)).toEqual([]);
    expect((await t.s.core.run("settings set away-now=on", shell)).text).toMatch(/Saved: Away now/);
    await writes(user, "Hello?");
    expect(await awaysOf(user)).toHaveLength(1);
    await writes(user, "Hello again");
    expect(await awaysOf(user)).toHaveLength(1);
    expect((await t.s.core.run("settings set away-now=off", shell)).text).toMatch(/Saved: Away now/);
    const other = answeredLater;
    const before = (await awaysOf(other)).length;
    await writes(other, "Good morning");
    expect(await awaysOf(other)).toHaveLength(before);
  });

  it("without business hours and away now, an away message is refused in words and nothing changes; so is one too long", async () => {
    await t.s.core.run("settings set away=none hours=none", shell);
    const refused = await t.s.core.run('settings set away="Back on Monday"', shell);
    expect(refused.text).toMatch(/Away message: .*business hours.*Nothing was saved/);
    const settings = await t.s.core.run("settings", shell);
    expect(settings.text).toMatch(/Away message: None/);
    // With away now it is taken.
    expect((await t.s.core.run('settings set away="Back on Monday" away-now=on', shell)).text).toMatch(
      /Saved: Away message, Away now/,
    );
    const long = await t.s.core.run(`settings set away="${"x".repeat(1001)}"`, shell);
    expect(long.text).toMatch(/1,001 characters: an away message may have at most 1,000/);
    expect((await t.s.core.run("settings", shell)).text).toContain("Back on Monday");
  });
});

itLeavesBUntouched(() => t.s);
