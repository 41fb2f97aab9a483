// Held starts (issue 28 §4): a campaign Switchboard starts at a time, once,
// whichever process gets there (a restart, a second replica); quiet hours;
// Cancel start; a start missed by more than an hour held and asked; `at=`.
// Through the core, the real client, the sandbox (behind the counting proxy)
// and the store; the clock is the test's.
import { describe, expect, it } from "vitest";
import {
  HeldStartRunner,
  type HeldStartWorkspace,
  type Message,
} from "../../src/campaigns/held-start-runner.ts";
import { parseQuietHours, parseStartAt, type QuietHours, startRulesOf } from "../../src/domain/start-time.ts";
import { HeldStarts } from "../../src/store/held-starts.ts";
import { postgresUrl } from "../helpers/db.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { onSecondPool, testClock } from "../helpers/timers.ts";
import { all, useHarness } from "./helpers.ts";

const h = useHarness();

/** Ana, who asks for the starts, in #general. */
const ANA = { userId: "U0ANA", via: "slack" as const, channelId: "C0GENERAL" };

const sends = (id: number) =>
  h().forwarder.requests.filter((r) => r === `POST /v1/campaigns/${id}/send`).length;

async function newDraft(name: string, at?: string, core = h().core) {
  const r = await core.run(
    `campaign add ${name} template=1 group=1 first_name=a order_id=b${at ? ` at="${at}"` : ""}`,
    ANA,
  );
  const m = /campaign #(\d+)/i.exec(r.text);
  if (!m) throw new Error(`no campaign made: ${r.text}`);
  return { id: Number(m[1]), reply: r };
}

/** A runner as one app instance has it: this workspace's core, its rules, and what it told. */
function instance(clock: { now: () => Date }, rules = {}, db = h().db) {
  const core = h().newCore({ now: clock.now, startRules: rules });
  const told: { dms: Array<[string, Message]>; cards: Array<[string, string, Message]> } = {
    dms: [],
    cards: [],
  };
  const ws: HeldStartWorkspace = {
    core,
    rules,
    dm: async (user, m) => {
      told.dms.push([user, m]);
    },
    updateCard: async (channel, ts, m) => {
      told.cards.push([channel, ts, m]);
    },
  };
  const runner = new HeldStartRunner({
    db,
    forWorkspace: async (w) => (w === h().workspace ? ws : undefined),
    now: clock.now,
  });
  return { core, runner, told };
}

/**
 * A runner on the test's clock (at `now`), and its core's draft `name` held to start at `at`, the start's
 * card posted in #general as `ts`.
 */
async function heldWithCard(name: string, at: string, ts: string, now = "2026-11-27T10:00:00Z") {
  const clock = testClock(now);
  const run = instance(clock);
  const { id } = await newDraft(name, at, run.core);
  const store = new HeldStarts(h().db, h().workspace);
  await store.setCard((await store.ofCampaign(id))!.id, "C0GENERAL", ts);
  return { clock, run, id, store };
}

/** The workspace as a runner of its own sees it: its core, no rules, its DMs kept in `base.told`. */
const dmsOnly = (base: ReturnType<typeof instance>): HeldStartWorkspace => ({
  core: base.core,
  rules: {},
  dm: async (u, m) => void base.told.dms.push([u, m]),
});

describe("start times as typed", () => {
  const now = new Date("2026-11-27T20:30:00Z"); // 21:30 in Paris
  it("HH:MM is the next such time in the workspace's zone", () => {
    expect(parseStartAt("09:00", now, "Europe/Paris")).toEqual({ at: new Date("2026-11-28T08:00:00Z") });
    expect(parseStartAt("22:15", now, "Europe/Paris")).toEqual({ at: new Date("2026-11-27T21:15:00Z") });
  });
  it('"YYYY-MM-DD HH:MM" is in the workspace\'s zone, to the second; ISO 8601 keeps its offset', () => {
    expect(parseStartAt("2026-12-01 09:00", now, "Europe/Paris")).toEqual({
      at: new Date("2026-12-01T08:00:00Z"),
    });
    expect(parseStartAt("2026-12-01 09:00:30", now, "America/New_York")).toEqual({
      at: new Date("2026-12-01T14:00:30Z"),
    });
    expect(parseStartAt("2026-12-01T09:00:30Z", now, undefined)).toEqual({
      at: new Date("2026-12-01T09:00:30Z"),
    });
    expect(parseStartAt("2026-12-01T09:00:00+01:00", now, undefined)).toEqual({
      at: new Date("2026-12-01T08:00:00Z"),
    });
  });
  it("refuses in words: the past, a day that does not exist, a local time without a zone, nonsense", () => {
    expect(parseStartAt("2026-11-01 09:00", now, "Europe/Paris")).toEqual({
      problem: expect.stringMatching(/in the past/),
    });
    expect(parseStartAt("2026-02-30 09:00", now, "Europe/Paris")).toEqual({
      problem: expect.stringMatching(/not a date/),
    });
    expect(parseStartAt("09:00", now, undefined)).toEqual({
      problem: expect.stringMatching(/time zone, which is not set/),
    });
    expect(parseStartAt("soon", now, "UTC")).toEqual({ problem: expect.stringMatching(/is not a time/) });
  });
  it("quiet hours: 21:00-08:00 parsed, refused when equal or malformed; none without a zone", () => {
    expect(parseQuietHours("21:00-08:00")).toEqual({ start: 1260, end: 480 });
    expect(parseQuietHours("21:00-21:00")).toHaveProperty("problem");
    expect(parseQuietHours("9pm")).toHaveProperty("problem");
    expect(startRulesOf(undefined, "21:00-08:00")).toEqual({});
    expect(startRulesOf("Europe/Paris", "21:00-08:00").quiet).toEqual({
      start: 1260,
      end: 480,
    } satisfies QuietHours);
  });
});

describe("held starts", () => {
  it("campaign add at= makes a held start and sends no scheduledAt; it starts once across a restart", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const first = instance(clock);
    const { id, reply } = await newDraft("Held once", "2026-11-27T12:00:00Z", first.core);
    expect(all(reply)).toMatch(
      /Starts at <!date\^\d+\^\{date_short_pretty\} \{time\}\|2026-11-27 12:00 UTC>/,
    );
    expect(all(reply)).toContain(`campaign ${id} cancel start`);
    const record = (await h().client.getCampaign(id)) as Record<string, unknown>;
    expect(record.scheduledAt ?? null).toBeNull();
    expect(record.status).toBe("draft");
    expect((await new HeldStarts(h().db, h().workspace).ofCampaign(id))?.state).toBe("held");

    // Not due yet: nothing starts.
    expect(await first.runner.pass()).toEqual([]);
    await first.runner.stop();

    // "Restart": another instance on the same database, at the time.
    clock.set("2026-11-27T12:00:05Z");
    const second = instance(clock);
    expect(await second.runner.pass()).toEqual(["sent"]);
    expect(await second.runner.pass()).toEqual([]);
    expect(await first.runner.pass()).toEqual([]);
    expect(sends(id)).toBe(1);
    const held = await new HeldStarts(h().db, h().workspace).ofCampaign(id);
    expect(held?.state).toBe("sent");
    // Its run is in the audit, as the person who asked.
    expect(h().audits.some((e) => e.operation === "sendCampaign" && e.actor === "U0ANA")).toBe(true);
    expect(h().audits.some((e) => e.operation === "campaign.hold")).toBe(true);
  });

  /** Two runners (the second on `db`), each passing `rounds` times at once when the start is due: one start. */
  async function bothFiring(name: string, db = h().db, rounds = 1) {
    const clock = testClock("2026-11-27T10:00:00Z");
    const a = instance(clock);
    const b = instance(clock, {}, db);
    const { id } = await newDraft(name, "2026-11-27T10:30:00Z", a.core);
    clock.set("2026-11-27T10:30:01Z");
    const passes = Array.from({ length: rounds }, () => [a.runner.pass(), b.runner.pass()]).flat();
    const outcomes = (await Promise.all(passes)).flat();
    expect(outcomes.filter((o) => o === "sent")).toHaveLength(1);
    expect(sends(id)).toBe(1);
  }

  it("two instances both firing at once: one start", () => bothFiring("Raced"));

  it.runIf(postgresUrl())(
    "two replicas on PostgreSQL (each its own pool on one database), both firing: one start",
    async () => {
      await onSecondPool(h().db, (other) => bothFiring("Replicas", other, 2));
    },
  );

  it("a start missed by more than an hour is held and its requester asked, not sent", async () => {
    const { clock, run, id, store } = await heldWithCard("Missed", "2026-11-27T10:10:00Z", "111.222");
    clock.set("2026-11-27T11:30:00Z");
    expect(await run.runner.pass()).toEqual(["asked"]);
    expect(sends(id)).toBe(0);
    expect((await store.ofCampaign(id))?.state).toBe("asked");
    const [user, dm] = run.told.dms.at(-1)!;
    expect(user).toBe("U0ANA");
    expect(dm.text).toMatch(/Start now\?/);
    expect(JSON.stringify(dm.blocks)).toContain(`campaign ${id} send now`);
    expect(run.told.cards.at(-1)?.slice(0, 2)).toEqual(["C0GENERAL", "111.222"]);
    expect(await run.runner.pass()).toEqual([]);

    // Start now: its own confirmation, then one send.
    const ask = await run.core.run(`campaign ${id} send now`, ANA);
    const done = await run.core.confirm(ask.confirmation!.id, ANA);
    expect(done.text).not.toMatch(/error|could not/i);
    expect(sends(id)).toBe(1);
    expect((await store.ofCampaign(id))?.state).toBe("cancelled");
  });

  it("a send asked for in the quiet hours is held until they end; Cancel start undoes it", async () => {
    // 23:00 in Paris.
    const clock = testClock("2026-11-27T22:00:00Z");
    const rules = startRulesOf("Europe/Paris", "21:00-08:00");
    const run = instance(clock, rules);
    const { id } = await newDraft("Quiet", undefined, run.core);
    const ask = await run.core.run(`campaign ${id} send`, ANA);
    expect(all(ask)).toMatch(/Quiet hours until 08:00/);
    expect(all(ask)).toContain("Start at 08:00");
    const held = await run.core.confirm(ask.confirmation!.id, ANA);
    expect(all(held)).toContain("Starts at 08:00 (quiet hours until then)");
    expect(all(held)).toContain("Send now anyway");
    expect(all(held)).toContain(`campaign ${id} cancel start`);
    expect(held.origin?.heldStart).toBeGreaterThan(0);
    expect(sends(id)).toBe(0);
    const store = new HeldStarts(h().db, h().workspace);
    expect((await store.ofCampaign(id))?.at).toEqual(new Date("2026-11-28T07:00:00Z"));

    const cancelled = await run.core.run(`campaign ${id} cancel start`, ANA);
    expect(all(cancelled)).toContain("Start cancelled by <@U0ANA>");
    expect(h().audits.some((e) => e.operation === "campaign.hold.cancel")).toBe(true);
    clock.set("2026-11-28T07:00:10Z");
    expect(await run.runner.pass()).toEqual([]);
    expect(sends(id)).toBe(0);
    // A second Cancel start: nothing to cancel, in words.
    expect((await run.core.run(`campaign ${id} cancel start`, ANA)).text).toMatch(/no held start/);
  });

  it("a held start of a campaign cancelled meanwhile is skipped, with a word on the card", async () => {
    const { clock, run, id } = await heldWithCard("Gone", "2026-11-27T10:05:00Z", "333.444");
    await h().client.cancelCampaign(id);
    clock.set("2026-11-27T10:05:01Z");
    expect(await run.runner.pass()).toEqual(["skipped"]);
    expect(sends(id)).toBe(0);
    expect(JSON.stringify(run.told.cards.at(-1)?.[2].blocks)).toMatch(
      /skipped: the campaign was cancelled meanwhile/,
    );
  });

  it("a workspace not connected: its start waits, and runs once it is", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const connected = instance(clock);
    const { id } = await newDraft("Waits", "2026-11-27T10:02:00Z", connected.core);
    const away = new HeldStartRunner({ db: h().db, forWorkspace: async () => undefined, now: clock.now });
    clock.set("2026-11-27T10:02:30Z");
    expect(await away.pass()).toEqual(["waiting"]);
    expect(sends(id)).toBe(0);
    expect((await new HeldStarts(h().db, h().workspace).ofCampaign(id))?.state).toBe("held");
    expect(await connected.runner.pass()).toEqual(["sent"]);
    expect(sends(id)).toBe(1);
  });

  it("a refused check holds the start and tells the requester", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const base = instance(clock);
    const ws = dmsOnly(base);
    const runner = new HeldStartRunner({
      db: h().db,
      forWorkspace: async () => ws,
      now: clock.now,
      check: async () => ({ ok: false, reason: "its approval has expired" }),
    });
    const { id } = await newDraft("Checked", "2026-11-27T10:01:00Z", base.core);
    clock.set("2026-11-27T10:01:30Z");
    expect(await runner.pass()).toEqual(["refused"]);
    expect(sends(id)).toBe(0);
    expect(base.told.dms.at(-1)?.[1].text).toMatch(/its approval has expired/);
  });

  it("a start its process left running: unknown once that process is not alive, never sent; a live one's is left", async () => {
    const clock = testClock("2026-11-27T10:00:00Z");
    const base = instance(clock);
    const ws = dmsOnly(base);
    const store = new HeldStarts(h().db, h().workspace);
    const { id: killed } = await newDraft("Left by a kill", "2026-11-27T10:01:00Z", base.core);
    const { id: sending } = await newDraft("Still sending", "2026-11-27T10:01:00Z", base.core);
    // Claimed (held → running) by two other processes at 10:01: one killed since, one alive and sending.
    clock.set("2026-11-27T10:01:00Z");
    for (const [id, by] of [
      [killed, "killed-replica"],
      [sending, "live-replica"],
    ] as const) {
      const start = await store.ofCampaign(id);
      expect(await store.move(start!.id, ["held"], "running", clock.now(), { claimedBy: by })).toBeDefined();
    }
    /** A replica's runner: its own id, and the replicas it sees alive. */
    const replica = (workerId: string, alive: string[]) =>
      new HeldStartRunner({
        db: h().db,
        forWorkspace: async () => ws,
        now: clock.now,
        workerId,
        liveWorkers: async () => new Set([workerId, ...alive]),
      });
    const runner = replica("this-replica", ["live-replica"]);
    // Within a send's longest (a late heartbeat, or a claimer that does not beat): left.
    clock.set("2026-11-27T10:01:30Z");
    expect(await runner.settleStale()).toBe(0);
    // 90 s after the claim, 8½ minutes before the old rule would have: the killed replica's start is unknown.
    clock.set("2026-11-27T10:02:30Z");
    expect(await runner.pass()).toEqual([]);
    expect((await store.ofCampaign(killed))?.state).toBe("unknown");
    expect((await store.ofCampaign(sending))?.state).toBe("running");
    expect(base.told.dms.some(([u, m]) => u === "U0ANA" && /Left by a kill/.test(m.text))).toBe(true);
    expect(sends(killed)).toBe(0);
    // Once the other stops beating too, its start is settled by the next pass: once, whoever runs it.
    const again = replica("another-replica", ["this-replica"]);
    const settled = await Promise.all([again.settleStale(), runner.settleStale()]);
    expect((await store.ofCampaign(sending))?.state).toBe("unknown");
    expect(settled.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(1);
    expect(base.told.dms.filter(([, m]) => /Still sending/.test(m.text))).toHaveLength(1);
    expect(sends(sending)).toBe(0);
  });

  describe("one road (issue 37 §1): a start runs only as the row it claimed, through the rails as they are now", () => {
    /** A runner whose workspace, once asked for (after the due start was read, before its claim), runs `between`. */
    function racing(
      clock: ReturnType<typeof testClock>,
      rules: object,
      between: () => Promise<void>,
      db = h().db,
    ) {
      const base = instance(clock, rules);
      let once = false;
      const runner = new HeldStartRunner({
        db,
        now: clock.now,
        forWorkspace: async () => {
          if (!once) {
            once = true;
            await between();
          }
          return { ...dmsOnly(base), rules };
        },
      });
      return { base, runner };
    }

    /**
     * Ana moves the start to 11:00 after the runner (on `db`) read it as due at 10:30, before its claim: it is
     * not run at its old time. Gives the runner, the clock and the campaign's id.
     */
    async function movedBetweenReadAndClaim(name: string, db = h().db) {
      const clock = testClock("2026-11-27T10:00:00Z");
      const { base, runner } = racing(
        clock,
        {},
        async () => {
          const moved = await base.core.run(`campaign ${id} send at=2026-11-27T11:00:00Z`, ANA);
          await base.core.confirm(moved.confirmation!.id, ANA);
        },
        db,
      );
      const { id } = await newDraft(name, "2026-11-27T10:30:00Z", base.core);
      clock.set("2026-11-27T10:30:05Z");
      expect(await runner.pass()).toEqual(["taken"]);
      expect(sends(id)).toBe(0);
      expect(await new HeldStarts(db, h().workspace).ofCampaign(id)).toMatchObject({
        state: "held",
        at: new Date("2026-11-27T11:00:00Z"),
      });
      return { clock, runner, id };
    }

    /** Ana cancels the start after the runner (on `db`) read it as due, before its claim: it is not run. */
    async function cancelledBetweenReadAndClaim(name: string, db = h().db) {
      const clock = testClock("2026-11-27T10:00:00Z");
      const { base, runner } = racing(
        clock,
        {},
        async () => {
          await base.core.run(`campaign ${id} cancel start`, ANA);
        },
        db,
      );
      const { id } = await newDraft(name, "2026-11-27T10:30:00Z", base.core);
      clock.set("2026-11-27T10:30:05Z");
      expect(await runner.pass()).toEqual(["taken"]);
      expect(sends(id)).toBe(0);
      expect((await new HeldStarts(db, h().workspace).ofCampaign(id))?.state).toBe("cancelled");
    }

    it("a start moved after the runner read it is not run at its old time; it runs at the new one, recorded when it ran", async () => {
      const { clock, runner, id } = await movedBetweenReadAndClaim("Moved");
      clock.set("2026-11-27T11:00:07Z");
      expect(await runner.pass()).toEqual(["sent"]);
      expect(sends(id)).toBe(1);
      const ran = await new HeldStarts(h().db, h().workspace).ofCampaign(id);
      expect(ran?.ranAt).toEqual(new Date("2026-11-27T11:00:07Z"));
    });

    it("a start cancelled after the runner read it is not run", () =>
      cancelledBetweenReadAndClaim("Cancelled late"));

    it("quiet hours set after a start was held: it waits to their end, told on its card, then runs", async () => {
      const { clock, id, store } = await heldWithCard(
        "Quiet later",
        "2026-11-27T22:30:00Z",
        "555.666",
        "2026-11-27T20:00:00Z",
      );
      // Quiet hours 21:00–08:00 in Paris are set afterwards; the start is due at 23:30 there.
      const rules = startRulesOf("Europe/Paris", "21:00-08:00");
      const after = instance(clock, rules);
      clock.set("2026-11-27T22:30:05Z");
      expect(await after.runner.pass()).toEqual(["quiet"]);
      expect(sends(id)).toBe(0);
      const held = await store.ofCampaign(id);
      expect(held).toMatchObject({ state: "held", reason: "quiet", at: new Date("2026-11-28T07:00:00Z") });
      expect(JSON.stringify(after.told.cards.at(-1)?.[2].blocks)).toContain(
        "Starts at 08:00 (quiet hours until then)",
      );
      clock.set("2026-11-28T07:00:03Z");
      expect(await after.runner.pass()).toEqual(["sent"]);
      expect(sends(id)).toBe(1);
    });

    it.runIf(postgresUrl())(
      "cancelled between two replicas on PostgreSQL: the start read before the cancel is not run",
      () => onSecondPool(h().db, (other) => cancelledBetweenReadAndClaim("Cancelled across", other)),
    );

    it.runIf(postgresUrl())(
      "quiet hours set after the start was held, run by the other replica on PostgreSQL: held to their end, then once",
      async () => {
        await onSecondPool(h().db, async (other) => {
          const clock = testClock("2026-11-27T20:00:00Z");
          // Replica 1 holds the start with no quiet hours; replica 2 runs it with the quiet hours set since.
          const { id } = await newDraft("Quiet across", "2026-11-27T22:30:00Z", instance(clock).core);
          const rules = startRulesOf("Europe/Paris", "21:00-08:00");
          const second = instance(clock, rules, other);
          clock.set("2026-11-27T22:30:05Z");
          expect(await second.runner.pass()).toEqual(["quiet"]);
          expect(sends(id)).toBe(0);
          expect(await new HeldStarts(h().db, h().workspace).ofCampaign(id)).toMatchObject({
            state: "held",
            reason: "quiet",
          });
          clock.set("2026-11-28T07:00:03Z");
          const [a, b] = await Promise.all([second.runner.pass(), instance(clock, rules).runner.pass()]);
          // Both fire at once: one sends, the other finds it taken (or not due any more).
          expect([...a, ...b].filter((o) => o === "sent")).toEqual(["sent"]);
          expect(sends(id)).toBe(1);
        });
      },
    );

    it.runIf(postgresUrl())(
      "moved between two replicas on PostgreSQL: the start read at its old time is not run",
      async () => {
        await onSecondPool(h().db, (other) => movedBetweenReadAndClaim("Moved across", other));
      },
    );

    it("a campaign Switchboard created with no audience is refused before any prompt and by the road, in words", async () => {
      const r = await h().core.run("campaign add Nobody template=2", ANA);
      const id = Number(/campaign #(\d+)/i.exec(r.text)?.[1]);
      // A real API's record may not show the audience: a record without its members, as such an API gives it.
      const hidden = new Proxy(h().client, {
        get(target, prop, receiver) {
          if (prop === "getCampaign")
            return async (...args: Parameters<typeof target.getCampaign>) => {
              const { groupIds: _g, contactIds: _c, ...rest } = await target.getCampaign(...args);
              return rest;
            };
          return Reflect.get(target, prop, receiver);
        },
      });
      const core = h().newCore({ api: hidden });
      const send = await core.run(`campaign ${id} send`, ANA);
      expect(send.confirmation).toBeUndefined();
      expect(all(send)).toMatch(/\*Nobody\* has no audience: .*Create it again with a group or contacts/);
      expect(all(send)).not.toMatch(/not known to Switchboard/i);
      // The road itself, as a held start would take it.
      const outcome = await core.startHeld(ANA, id);
      expect(outcome).toMatchObject({ kind: "refused", rail: "audience" });
      expect(sends(id)).toBe(0);
    });
  });

  it("a stale Send… on a campaign already sending is refused by state at once, saying where it is (issue 37 §4)", async () => {
    const { id } = await newDraft("Stale button");
    const ask = await h().core.run(`campaign ${id} send`, ANA);
    await h().core.confirm(ask.confirmation!.id, ANA);
    expect(sends(id)).toBe(1);
    const again = await h().core.run(`campaign ${id} send`, ANA);
    expect(again.confirmation).toBeUndefined();
    expect(all(again)).toMatch(/\*Stale button\* is already sending: it is not sent twice/);
    expect(all(again)).toContain(`report now ${id}`);
    expect(sends(id)).toBe(1);
  });
});

itLeavesBUntouched(h);
