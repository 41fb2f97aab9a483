// A message sent later (issue 40 §2): `send … at=` asks to confirm, sends
// nothing before its time, then once — across a restart, two runners, two
// pools on PostgreSQL — and not at all after Cancel; outside the 24-hour
// window nothing is sent and the writer is told with the templates offered;
// `scheduled` lists each workspace's own. Through the core, the real client,
// the sandbox (behind the counting proxy) and the store; the clock is the test's.
import { describe, expect, it } from "vitest";
import { LATER_KIND, laterSendsOf } from "../../src/commands/later-message.ts";
import { LaterSendRunner, type LaterSendWorkspace, type Message } from "../../src/commands/later-sends.ts";
import type { Actor } from "../../src/commands/types.ts";
import { parseQuietHours } from "../../src/domain/start-time.ts";
import { auditSentence } from "../../src/slack/features/audit-words.ts";
import { OwnSends } from "../../src/store/own-sends.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { postgresUrl } from "../helpers/db.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { onSecondPool, testClock } from "../helpers/timers.ts";
import { all, SHELL, useHarness } from "./helpers.ts";

const h = useHarness();

const ANA: Actor = { userId: "U0ANA", userName: "ana", via: "slack", channelId: "C0GENERAL" };
const LUIS: Actor = { userId: "U0LUIS", userName: "luis", via: "slack", channelId: "C0GENERAL" };

/** Messages the API accepted (POST /messages answered 2xx): the sandbox's own record of them. */
const posts = () => h().forwarder.requests.filter((r) => r === "POST /v1/messages").length;

let phones = 0;
/** A phone of its own per test; `wrote`: the person wrote in (the 24-hour window is open). */
async function customer(wrote = true): Promise<string> {
  phones += 1;
  const phone = `+1415555${String(1300 + phones).padStart(4, "0")}`;
  if (wrote) await h().sandbox.inbound({ phone, text: "hola" });
  return phone;
}

/** One process's runner: its core (this workspace's), what it told by DM. */
function instance(clock: { now: () => Date }, db = h().db, rules: LaterSendWorkspace["rules"] = {}) {
  const core = h().newCore({ now: clock.now, startRules: rules });
  const dms: Array<[string, Message]> = [];
  const ws: LaterSendWorkspace = { core, rules, dm: async (u, m) => void dms.push([u, m]) };
  const runner = new LaterSendRunner({
    db,
    forWorkspace: async (w) => (w === h().workspace ? ws : undefined),
    now: clock.now,
  });
  return { core, runner, dms };
}

/** `send … at=`, confirmed: the message's number. */
async function setLater(
  core: ReturnType<typeof instance>["core"],
  line: string,
  actor: Actor = ANA,
): Promise<number> {
  const ask = await core.run(line, actor);
  expect(ask.confirmation, all(ask)).toBeDefined();
  const done = await core.confirm(ask.confirmation!.id, actor);
  const n = /Message (\d+) to/.exec(done.text)?.[1];
  if (!n) throw new Error(`not set: ${done.text}`);
  return Number(n);
}

describe("a message sent later", () => {
  it("asks to confirm with what, to whom and when in the workspace's zone; sends nothing before the time, then once across a restart", async () => {
    const clock = testClock("2026-11-27T07:12:00Z");
    const rules = { tz: "Europe/Madrid" };
    const first = instance(clock, h().db, rules);
    const phone = await customer();
    const ask = await first.core.run(`send ${phone} Hola at=09:00`, ANA);
    expect(all(ask)).toContain("Sends *Hola* to");
    expect(all(ask)).toContain("at 09:00 Madrid time");
    expect(ask.confirmation).toBeDefined();
    const before = posts();
    const done = await first.core.confirm(ask.confirmation!.id, ANA);
    expect(done.text).toMatch(/Message \d+ to .* will be sent at 09:00 Madrid time/);
    expect(posts()).toBe(before);

    // Not due yet (08:59:59 in Madrid): nothing.
    clock.set("2026-11-27T07:59:59Z");
    expect(await first.runner.pass()).toEqual([]);
    expect(posts()).toBe(before);

    clock.set("2026-11-27T08:00:01Z");
    expect(await first.runner.pass()).toEqual(["sent"]);
    expect(posts()).toBe(before + 1);
    // Again, and after a restart (a new runner on the same store): nothing more.
    expect(await first.runner.pass()).toEqual([]);
    const restarted = instance(clock, h().db, rules);
    expect(await restarted.runner.pass()).toEqual([]);
    expect(posts()).toBe(before + 1);

    // The send is the writer's: the audit's sentence, and the inbox's own sends (its thread shows it as hers).
    const row = h().audits.findLast((e) => e.operation === "sendMessage");
    expect(row?.actor).toBe("U0ANA");
    expect(auditSentence(row!)).toMatch(
      /^<@U0ANA>'s message to .+ was sent \(set at <!date\^\d+\^\{time\}\|2026-11-27 07:12 UTC>\)$/,
    );
    const id = (row?.answer as { id?: number } | undefined)?.id;
    expect(id).toBeTypeOf("number");
    expect((await new OwnSends(h().db, h().workspace).of(id!))?.userId).toBe("U0ANA");
    expect(first.dms).toEqual([]);
  });

  it("two runners firing at once: one send", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const a = instance(clock);
    const b = instance(clock);
    const phone = await customer();
    await setLater(a.core, `send ${phone} Once at=2026-11-27T10:30:00Z`);
    const before = posts();
    clock.set("2026-11-27T10:30:01Z");
    const outcomes = (await Promise.all([a.runner.pass(), b.runner.pass()])).flat();
    expect(outcomes.filter((o) => o === "sent")).toHaveLength(1);
    expect(posts()).toBe(before + 1);
  });

  it.runIf(postgresUrl())(
    "two processes on PostgreSQL (each its own pool on one database), both firing: one send",
    async () => {
      await onSecondPool(h().db, async (other) => {
        const clock = testClock("2026-11-27T10:00:00Z");
        const a = instance(clock);
        const b = instance(clock, other);
        const phone = await customer();
        await setLater(a.core, `send ${phone} Replicas at=2026-11-27T11:00:00Z`);
        const before = posts();
        clock.set("2026-11-27T11:00:02Z");
        const outcomes = (
          await Promise.all([a.runner.pass(), b.runner.pass(), a.runner.pass(), b.runner.pass()])
        ).flat();
        expect(outcomes.filter((o) => o === "sent")).toHaveLength(1);
        expect(posts()).toBe(before + 1);
      });
    },
  );

  it("cancelled: not sent at all; only its writer (or an admin) may cancel it", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const run = instance(clock);
    const phone = await customer();
    const n = await setLater(run.core, `send ${phone} Never at=2026-11-27T10:05:00Z`);
    const other = await run.core.run(`scheduled cancel ${n}`, LUIS);
    expect(other.text).toMatch(/no message \d+ waiting/);
    const cancelled = await run.core.run(`scheduled cancel ${n}`, ANA);
    expect(cancelled.text).toContain("cancelled: it will not be sent");
    const before = posts();
    clock.set("2026-11-27T10:06:00Z");
    expect(await run.runner.pass()).toEqual([]);
    expect(posts()).toBe(before);
    expect((await laterSendsOf(new WorkspaceStores(h().db, h().workspace)).get(n))?.state).toBe("cancelled");
  });

  it("the 24-hour window closed at the time: nothing is sent, the writer told by DM with the templates offered", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const run = instance(clock);
    const phone = await customer(false);
    const n = await setLater(run.core, `send ${phone} Too late at=2026-11-27T10:05:00Z`);
    clock.set("2026-11-27T10:05:01Z");
    expect(await run.runner.pass()).toEqual(["window"]);
    expect((await laterSendsOf(new WorkspaceStores(h().db, h().workspace)).get(n))?.state).toBe("failed");
    expect(run.dms).toHaveLength(1);
    const [to, dm] = run.dms[0]!;
    expect(to).toBe("U0ANA");
    expect(dm.text).toContain("was not sent");
    expect(dm.text).toContain("only an approved template can reach them now");
    expect(dm.text).toContain("Too late");
    const buttons = JSON.stringify(dm.blocks);
    expect(buttons).toContain(`"value":"send ${phone}"`);
    expect(buttons).toContain('"value":"templates status=approved"');
    // Never tried again.
    clock.set("2026-11-27T10:10:00Z");
    expect(await run.runner.pass()).toEqual([]);
  });

  it("a message its process left sending: unknown once that process is not alive, the writer told, never sent", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const run = instance(clock);
    const phone = await customer();
    const n = await setLater(run.core, `send ${phone} Maybe at=2026-11-27T10:05:00Z`);
    const store = laterSendsOf(new WorkspaceStores(h().db, h().workspace));
    const s = await store.get(n);
    // A process claimed it at 10:05 and died before its outcome was recorded.
    await store.move(n, ["waiting"], "running", new Date("2026-11-27T10:05:00Z"), {
      claimedBy: "gone",
      version: s!.version,
    });
    const before = posts();
    clock.set("2026-11-27T10:07:00Z");
    const runner = new LaterSendRunner({
      db: h().db,
      forWorkspace: async () => ({
        core: run.core,
        rules: {},
        dm: async (u, m) => void run.dms.push([u, m]),
      }),
      now: clock.now,
      workerId: "alive",
      liveWorkers: async () => new Set(["alive"]),
    });
    expect(await runner.pass()).toEqual([]);
    expect((await store.get(n))?.state).toBe("unknown");
    expect(run.dms[0]?.[1].text).toMatch(/Whether your message to .+ was sent at .+ is not known/);
    expect(posts()).toBe(before);
    const row = h().audits.findLast((e) => e.operation === "message.later.unknown");
    expect(auditSentence(row!)).toMatch(/^Whether <@U0ANA>'s message to .+ was sent at .+ is not known/);
  });

  it("quiet hours do not hold a message a person timed", async () => {
    const clock = testClock("2026-11-27T20:00:00Z");
    const quiet = parseQuietHours("21:00-08:00");
    if ("problem" in quiet) throw new Error(quiet.problem);
    const rules = { tz: "UTC", quiet };
    const run = instance(clock, h().db, rules);
    const phone = await customer();
    await setLater(run.core, `send ${phone} Late night at=23:00`);
    const before = posts();
    clock.set("2026-11-27T23:00:01Z");
    expect(await run.runner.pass()).toEqual(["sent"]);
    expect(posts()).toBe(before + 1);
  });

  it("scheduled: a writer sees theirs, the shell every one; edit changes the text and the time", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const run = instance(clock);
    const phone = await customer();
    const mine = await setLater(run.core, `send ${phone} From Ana at=2026-11-27T12:00:00Z`, ANA);
    const his = await setLater(run.core, `send ${phone} From Luis at=2026-11-27T12:30:00Z`, LUIS);
    const ana = await run.core.run("scheduled", ANA);
    expect(all(ana)).toContain("From Ana");
    expect(all(ana)).not.toContain("From Luis");
    expect(all(ana)).toContain(`scheduled cancel ${mine}`);
    expect(all(ana)).toContain(`scheduled edit ${mine}`);
    const shell = await run.core.run("scheduled", SHELL);
    expect(all(shell)).toContain("From Ana");
    expect(all(shell)).toContain("From Luis");

    const edited = await run.core.run(
      `scheduled edit ${mine} text="Ana, edited" at=2026-11-27T13:00:00Z`,
      ANA,
    );
    expect(edited.text).toMatch(/will be sent at/);
    expect((await run.core.run(`scheduled edit ${his} text=x`, ANA)).text).toMatch(/no message \d+ waiting/);
    const before = posts();
    // Luis's at 12:30; Ana's not at its old time (12:00), but at 13:00, with its new text.
    clock.set("2026-11-27T12:45:00Z");
    expect(await run.runner.pass()).toEqual(["sent"]);
    clock.set("2026-11-27T13:00:01Z");
    expect(await run.runner.pass()).toEqual(["sent"]);
    expect(posts()).toBe(before + 2);
    const row = h().audits.findLast((e) => e.operation === "sendMessage");
    expect(row?.actor).toBe("U0ANA");
    expect(await run.core.run("scheduled", ANA).then((r) => r.text)).toContain("no message waiting");
  });

  it("many workspaces: each numbers its own messages and lists only its own", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const here = instance(clock);
    const elsewhere = h().newCore({ now: clock.now, workspace: "T0OTHER" });
    const phone = await customer();
    await setLater(here.core, `send ${phone} Here at=2026-11-27T11:00:00Z`, SHELL);
    const n = await setLater(elsewhere, `send ${phone} Elsewhere at=2026-11-27T11:00:00Z`, SHELL);
    expect(n).toBe(1);
    const there = all(await elsewhere.run("scheduled", SHELL));
    expect(there).toContain("Elsewhere");
    expect(there).not.toContain("Here");
    expect(all(await here.core.run("scheduled", SHELL))).not.toContain("Elsewhere");
    // The runner of this process sends this workspace's; the other's waits while it is not connected.
    clock.set("2026-11-27T11:00:01Z");
    const outcomes = await here.runner.pass();
    expect(outcomes).toContain("waiting");
    expect((await laterSendsOf(new WorkspaceStores(h().db, "T0OTHER")).get(1))?.state).toBe("waiting");
    expect(LATER_KIND).toBe("message.later");
  });

  it("more than an hour late (Switchboard was stopped at its time): not sent, the writer told", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const run = instance(clock);
    const phone = await customer();
    const n = await setLater(run.core, `send ${phone} Buenos días at=2026-11-27T10:05:00Z`);
    const before = posts();
    clock.set("2026-11-27T11:06:00Z");
    // (Another workspace's message, not connected here, waits: the many-workspace test's.)
    expect((await run.runner.pass()).filter((o) => o !== "waiting")).toEqual(["late"]);
    expect(posts()).toBe(before);
    expect((await laterSendsOf(new WorkspaceStores(h().db, h().workspace)).get(n))?.state).toBe("failed");
    expect(run.dms[0]?.[1].text).toMatch(/was not sent at .+: Switchboard was stopped at its time/);
    expect(run.dms[0]?.[1].text).toContain("Buenos días");
  });
});

itLeavesBUntouched(h);
