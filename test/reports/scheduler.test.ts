// The scheduler on pg-boss with a hand-moved clock, the real sandbox over
// HTTP (through a proxy that can play "API down"), and an injected post that
// records what would reach Slack. PGlite by default; the real PostgreSQL when
// DATABASE_URL is set.

import { execFile, spawnSync } from "node:child_process";
import { hostname } from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import type { ReportMessage } from "../../src/reports/render.ts";
import { parseScheduleArgs, type ScheduleSpec } from "../../src/reports/schedule.ts";
import { type PostFn, PostRefusedError, ReportScheduler } from "../../src/reports/scheduler.ts";
import { ReportService } from "../../src/reports/service.ts";
import { createBoss } from "../../src/store/boss.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { ReportStore } from "../../src/store/reports.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { eventually } from "../helpers/eventually.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";
import { manualClock, withSandbox } from "../helpers/sandbox.ts";
import { seedCampaign } from "./helpers.ts";

const execFileAsync = promisify(execFile);
const sandbox = withSandbox({ campaignTickMs: 0, readLimit: 100_000, writeLimit: 10_000 });
let proxy: CountingProxy;
let campaignId: number;

beforeAll(async () => {
  proxy = await startProxy(sandbox().url);
  campaignId = await seedCampaign(sandbox().db, {
    name: "Scheduled one",
    status: "running",
    counts: { pending: 50, sent: 20, delivered: 20, read: 5, failed: 5 },
  });
});
afterAll(async () => {
  await proxy.close();
});

interface Posted {
  channel: string;
  message: ReportMessage;
}

/** One "process": the store migrated as a start does it, its own pg-boss and scheduler on the given database. */
async function startProcess(
  db: Db,
  clock: { now(): Date },
  post: PostFn,
  name: string,
): Promise<{ scheduler: ReportScheduler; stop(): Promise<void> }> {
  await migrateStore(db);
  const boss = await createBoss(db, { onError: () => {} });
  const client = new MessagingClient({
    baseUrl: proxy.url,
    apiKey: sandbox().apiKey,
    maxRetries: 0,
    limiter: new RateLimiter({ readPerMinute: 100_000, writePerMinute: 10_000, backgroundReadShare: 1 }),
  });
  const scheduler = new ReportScheduler({
    workspace: ENV_WORKSPACE,
    db,
    boss,
    client,
    post,
    clock,
    workerId: name,
    failureAlert: 0.05,
    retry: { limit: 4, delaySeconds: 1, backoff: false },
    pollingIntervalSeconds: 0.5,
    chart: false,
  });
  await scheduler.start();
  return {
    scheduler,
    async stop() {
      await scheduler.stop();
      await boss.stop({ graceful: false });
    },
  };
}

function spec(args: string): ScheduleSpec {
  const r = parseScheduleArgs(args);
  if (!r.ok) throw new Error(r.message);
  return r.spec;
}

/** A report of the seeded campaign every day at `time` (UTC). */
const daily = (time: string) => spec(`${campaignId} every day at ${time}`);

const recorder = () => {
  const posted: Posted[] = [];
  const post: PostFn = async (channel, message) => {
    posted.push({ channel, message });
    return { ref: `ts.${posted.length}` };
  };
  return { posted, post };
};

/** Until the assertions in `check` hold (background work: pg-boss, the scheduler's marks). */
const waitFor = (check: () => unknown) =>
  eventually(
    async () => {
      await check();
      return true;
    },
    "the scheduler",
    { intervalMs: 100 },
  );

// Opening a database and starting pg-boss takes seconds on a loaded machine: generous time limits.
describe("scheduled reports", { timeout: 180_000 }, () => {
  let db: TestDb;
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const s of stops.splice(0).reverse()) await s();
    proxy.failWith = undefined;
    await db?.close();
  });

  /** A fresh database and one scheduler process "p" on it, its clock at `start` (stopped after the test). */
  async function oneProcess(start: string, post: PostFn) {
    db = await openTestDb();
    const clock = manualClock(new Date(start));
    const p = await startProcess(db, clock, post, "p");
    stops.push(p.stop);
    return { clock, p };
  }

  it("registers a pg-boss cron with its zone, and posts a due report once", async () => {
    db = await openTestDb();
    const clock = manualClock(new Date("2026-03-02T07:00:00Z")); // Monday 08:00 in Paris
    const { posted, post } = recorder();
    const p = await startProcess(db, clock, post, "p1");
    stops.push(p.stop);
    const row = await p.scheduler.addSchedule(spec(`${campaignId} every weekday at 09:00 tz=Europe/Paris`), {
      createdBy: "U1",
      channel: "C1",
    });
    const boss = p.scheduler.boss;
    const [cron] = await boss.getSchedules(p.scheduler.queue, String(row.id));
    expect(cron).toMatchObject({
      cron: "0 9 * * 1-5",
      timezone: "Europe/Paris",
      data: { scheduleId: row.id },
    });

    // Not due yet: nothing to catch up.
    expect(await p.scheduler.catchUp()).toBe(0);

    // 09:00:10 in Paris: pg-boss's cron sends the schedule's data; the worker works out the slot.
    clock.advance(60 * 60_000 + 10_000);
    await boss.send(p.scheduler.queue, cron?.data ?? {});
    await waitFor(() => expect(posted).toHaveLength(1));
    const slot = new Date("2026-03-02T08:00:00Z");
    // The run is marked posted just after the post returns: wait for it (a loaded machine sees the gap).
    await waitFor(async () => expect((await p.scheduler.store.getRun(row.id, slot))?.state).toBe("posted"));
    const run = await p.scheduler.store.getRun(row.id, slot);
    expect(run).toMatchObject({ state: "posted", late: false, partsPosted: 1, messageRefs: ["ts.1"] });
    expect(posted[0]?.channel).toBe("C1");
    expect(posted[0]?.message.text).toMatch(/Scheduled one/);
    expect(JSON.stringify(posted[0]?.message.blocks)).not.toMatch(/Late/);

    // The same slot again, from cron and from the start-up check: no second post.
    const again = await boss.send(p.scheduler.queue, cron?.data ?? {});
    expect(await p.scheduler.catchUp()).toBe(0);
    expect(await p.scheduler.runSlot(row.id, slot)).toEqual({
      kind: "skipped",
      reason: "slot already taken",
    });
    await waitFor(async () =>
      expect((await boss.findJobs(p.scheduler.queue, { id: again ?? "" }))[0]?.state).toBe("completed"),
    );
    expect(posted).toHaveLength(1);
    expect((await p.scheduler.store.getSchedule(row.id))?.lastRunAt?.toISOString()).toBe(slot.toISOString());

    // Next day: the change since the previous report shows.
    await sandbox().db.query(
      "update sandbox.campaign_recipients set status = 'failed' where id in (select id from sandbox.campaign_recipients where campaign_id = $1 and status = 'pending' limit 10)",
      [campaignId],
    );
    clock.advance(24 * 60 * 60_000);
    await p.scheduler.runSlot(row.id, new Date("2026-03-03T08:00:00Z"));
    expect(posted).toHaveLength(2);
    const bars = JSON.stringify(posted[1]?.message.blocks);
    expect(bars).toMatch(/failed .*▲10/);
    expect(bars).toMatch(/▼10 pending/);
  });

  it("after a restart posts the missed report once, marked late", async () => {
    db = await openTestDb();
    const clock = manualClock(new Date("2026-03-02T06:00:00Z"));
    const { posted, post } = recorder();
    const first = await startProcess(db, clock, post, "before");
    const row = await first.scheduler.addSchedule(spec(`${campaignId} every day at 09:00 tz=UTC`), {
      createdBy: "U1",
      channel: "C2",
    });
    await first.stop();

    // Down over 09:00; back at 11:30, then again at 11:40.
    clock.advance(5.5 * 60 * 60_000);
    const second = await startProcess(db, clock, post, "after");
    stops.push(second.stop);
    await waitFor(() => expect(posted).toHaveLength(1));
    const slot = new Date("2026-03-02T09:00:00Z");
    await waitFor(async () =>
      expect(await second.scheduler.store.getRun(row.id, slot)).toMatchObject({
        state: "posted",
        late: true,
      }),
    );
    expect(JSON.stringify(posted[0]?.message.blocks)).toMatch(
      /Late:\*? this report was due Mon 2 Mar 2026, 09:00/,
    );
    expect(posted[0]?.message.text).toMatch(/\(late\)/);

    clock.advance(10 * 60_000);
    const third = await startProcess(db, clock, post, "again");
    stops.push(third.stop);
    expect(await third.scheduler.catchUp()).toBe(0);
    expect(posted).toHaveLength(1);
  });

  it("a post left 'posting' by a stopped process is uncertain at the next start, and the next report says so once", async () => {
    db = await openTestDb();
    const clock = manualClock(new Date("2026-03-02T06:00:00Z"));
    const { posted, post } = recorder();
    // The process that was posting the 09:00 report was killed (kill -9): a pid of this host that has ended.
    const deadPid = spawnSync(process.execPath, ["-e", ""]).pid;
    const killed = `${hostname()}:${deadPid}:dead01`;
    const first = await startProcess(db, clock, post, "first");
    const row = await first.scheduler.addSchedule(spec(`${campaignId} every day at 09:00 tz=UTC`), {
      createdBy: "U1",
      channel: "C9",
    });
    await first.stop();
    const slot = new Date("2026-03-02T09:00:00Z");
    clock.advance(3 * 60 * 60_000);
    const store = new ReportStore(db, ENV_WORKSPACE);
    await store.claimRun(row.id, slot, {
      worker: killed,
      now: clock.now(),
      leaseMs: 10 * 60_000,
      late: false,
    });
    expect(await store.markPosting(row.id, slot, killed, clock.now())).toBe(true);
    // Another host's post, in the middle of its lease: left alone.
    const other = new Date("2026-03-01T09:00:00Z");
    await store.claimRun(row.id, other, {
      worker: "elsewhere:1:x",
      now: clock.now(),
      leaseMs: 10 * 60_000,
      late: false,
    });
    await store.markPosting(row.id, other, "elsewhere:1:x", clock.now());

    // Restarted a minute later, within the dead post's lease.
    clock.advance(60_000);
    const second = await startProcess(db, clock, post, "second");
    stops.push(second.stop);
    expect(await store.getRun(row.id, slot)).toMatchObject({ state: "uncertain" });
    expect(await store.getRun(row.id, other)).toMatchObject({ state: "posting" });
    expect(await second.scheduler.catchUp()).toBe(0);
    expect(posted).toHaveLength(0);

    // The next day's report says it, once; the other host's post, past its lease by then, too.
    clock.advance(24 * 60 * 60_000);
    await second.scheduler.runSlot(row.id, new Date("2026-03-03T09:00:00Z"));
    expect(posted).toHaveLength(1);
    const said = JSON.stringify(posted[0]?.message.blocks);
    expect(said).toMatch(
      /The report of Mon 2 Mar 2026, 09:00 [^.]*may not have been posted \(the bot restarted\)/,
    );
    expect(said).toMatch(
      /The report of Sun 1 Mar 2026, 09:00 [^.]*may not have been posted \(the bot restarted\)/,
    );
    clock.advance(24 * 60 * 60_000);
    await second.scheduler.runSlot(row.id, new Date("2026-03-04T09:00:00Z"));
    expect(posted).toHaveLength(2);
    expect(JSON.stringify(posted[1]?.message.blocks)).not.toMatch(/may not have been posted/);
  });

  it("with two processes on one database posts exactly once", async () => {
    db = await openTestDb();
    // A second connection (pool) when on PostgreSQL, as a second process would have; PGlite hosts both in one.
    const db2 = db.url ? await openDb({ databaseUrl: db.url }) : db;
    const clock = manualClock(new Date("2026-03-02T08:59:00Z"));
    const { posted, post } = recorder();
    const a = await startProcess(db, clock, post, "A");
    stops.push(a.stop);
    const b = await startProcess(db2, clock, post, "B");
    stops.push(async () => {
      await b.stop();
      if (db2 !== db) await db2.close();
    });
    const row = await a.scheduler.addSchedule(spec(`${campaignId} every 6h at 09:00`), {
      createdBy: "U1",
      channel: "C3",
    });
    expect(row.cron).toBe("0 3,9,15,21 * * *");
    clock.advance(90_000);
    const slot = new Date("2026-03-02T09:00:00Z");
    // Both see the slot due and both run it at the same moment, besides the queued jobs.
    const [qa, qb] = await Promise.all([a.scheduler.catchUp(), b.scheduler.catchUp()]);
    expect(qa + qb).toBeGreaterThanOrEqual(1);
    const outcomes = await Promise.all([
      a.scheduler.runSlot(row.id, slot),
      b.scheduler.runSlot(row.id, slot),
    ]);
    await waitFor(async () => expect((await a.scheduler.store.getRun(row.id, slot))?.state).toBe("posted"));
    expect(outcomes.filter((o) => o.kind === "posted").length).toBeLessThanOrEqual(1);
    // Every job either process queued has run to its end.
    await waitFor(async () => {
      const jobs = await a.scheduler.boss.findJobs(a.scheduler.queue);
      expect(jobs.length).toBeGreaterThanOrEqual(1);
      expect(jobs.every((j) => j.state === "completed")).toBe(true);
    });
    expect(posted).toHaveLength(1);
    expect((await a.scheduler.store.listRuns(row.id)).map((r) => r.state)).toEqual(["posted"]);
  });

  it.skipIf(!process.env.DATABASE_URL)(
    "with two OS processes on one PostgreSQL posts exactly once",
    async () => {
      db = await openTestDb("postgres");
      await migrateStore(db);
      const store = new ReportStore(db, ENV_WORKSPACE);
      const row = await store.createSchedule(
        {
          channel: "C9",
          target: String(campaignId),
          cron: "0 9 * * *",
          tz: "UTC",
          description: "d",
          createdBy: "U1",
        },
        new Date("2026-03-02T08:00:00Z"),
      );
      const script = fileURLToPath(new URL("./scheduler-process.ts", import.meta.url));
      const args = [
        script,
        db.url!,
        proxy.url,
        sandbox().apiKey,
        "2026-03-02T09:00:20Z",
        String(row.id),
        "2026-03-02T09:00:00Z",
      ];
      // A process that exits non-zero rejects, its stderr in the message.
      const runProcess = async (name: string) =>
        (await execFileAsync(process.execPath, ["--import", "tsx", ...args, name])).stdout;
      const outputs = await Promise.all([runProcess("first"), runProcess("second")]);
      const posts = outputs
        .join("")
        .split("\n")
        .filter((l) => l.startsWith("POSTED"));
      expect(posts).toHaveLength(1);
      expect(posts[0]).toMatch(/^POSTED C9 by (first|second)$/);
      expect((await store.listRuns(row.id)).map((r) => r.state)).toEqual(["posted"]);
    },
  );

  it("retries a report while the API is down, and posts it once when it is back", async () => {
    const { posted, post } = recorder();
    const { clock, p } = await oneProcess("2026-03-02T08:59:00Z", post);
    const row = await p.scheduler.addSchedule(daily("09:00"), { createdBy: "U1", channel: "C4" });
    clock.advance(90_000);
    const slot = new Date("2026-03-02T09:00:00Z");
    proxy.failWith = 503;
    expect(await p.scheduler.catchUp()).toBe(1);
    await waitFor(async () => {
      const run = await p.scheduler.store.getRun(row.id, slot);
      expect(run?.state).toBe("failed");
      expect(run?.error).toMatch(/503|unavailable/i);
    });
    expect(posted).toHaveLength(0);
    proxy.failWith = undefined;
    await waitFor(() => expect(posted).toHaveLength(1));
    // The run is marked posted just after the post returns: wait for it (a loaded machine sees the gap).
    await waitFor(async () => expect((await p.scheduler.store.getRun(row.id, slot))?.state).toBe("posted"));
    const run = await p.scheduler.store.getRun(row.id, slot);
    expect(run?.attempts).toBeGreaterThanOrEqual(2);
    expect(posted).toHaveLength(1);
  });

  it("retries when Slack refuses, and never posts again when a post may have gone out", async () => {
    let calls = 0;
    const posted: Posted[] = [];
    let mode: "refuse-once" | "timeout" = "refuse-once";
    const post: PostFn = async (channel, message) => {
      calls++;
      if (mode === "refuse-once" && calls === 1) {
        throw new PostRefusedError("not_in_channel");
      }
      if (mode === "timeout")
        throw Object.assign(new Error("socket hang up"), { code: "slack_webapi_request_error" });
      posted.push({ channel, message });
      return { ref: `ts.${posted.length}` };
    };
    const { clock, p } = await oneProcess("2026-03-02T08:59:00Z", post);
    const refused = await p.scheduler.addSchedule(daily("09:00"), { createdBy: "U1", channel: "C5" });
    clock.advance(90_000);
    const slot = new Date("2026-03-02T09:00:00Z");
    await p.scheduler.catchUp();
    await waitFor(async () =>
      expect((await p.scheduler.store.getRun(refused.id, slot))?.state).toBe("posted"),
    );
    expect(calls).toBe(2);
    expect(posted).toHaveLength(1);

    // A post whose outcome is unknown: marked uncertain, not retried, not posted again.
    mode = "timeout";
    const unsure = await p.scheduler.addSchedule(daily("10:00"), { createdBy: "U1", channel: "C6" });
    clock.advance(60 * 60_000);
    const slot2 = new Date("2026-03-02T10:00:00Z");
    const outcome = await p.scheduler.runSlot(unsure.id, slot2);
    expect(outcome).toEqual({ kind: "uncertain", error: "socket hang up" });
    const callsAfter = calls;
    expect(await p.scheduler.catchUp()).toBe(0);
    expect(await p.scheduler.runSlot(unsure.id, slot2)).toMatchObject({ kind: "skipped" });
    expect(calls).toBe(callsAfter);
    expect(await p.scheduler.store.getRun(unsure.id, slot2)).toMatchObject({
      state: "uncertain",
      partsPosted: 0,
    });
  });

  it("a deleted schedule leaves pg-boss and posts nothing", async () => {
    const { posted, post } = recorder();
    const { clock, p } = await oneProcess("2026-03-02T08:00:00Z", post);
    const row = await p.scheduler.addSchedule(daily("09:00"), { createdBy: "U1", channel: "C7" });
    expect((await p.scheduler.removeSchedule(row.id))?.id).toBe(row.id);
    expect(await p.scheduler.removeSchedule(row.id)).toBeUndefined();
    const boss = p.scheduler.boss;
    expect(await boss.getSchedules(p.scheduler.queue)).toEqual([]);
    clock.advance(2 * 60 * 60_000);
    expect(await p.scheduler.catchUp()).toBe(0);
    expect(await p.scheduler.runSlot(row.id, new Date("2026-03-02T09:00:00Z"))).toEqual({ kind: "gone" });
    expect(posted).toHaveLength(0);
  });

  it("a schedule changed while the Slack app's scheduler still starts waits for it, then reaches pg-boss", async () => {
    db = await openTestDb();
    await migrateStore(db);
    const clock = manualClock(new Date("2026-03-02T08:00:00Z"));
    const { post } = recorder();
    const client = new MessagingClient({ baseUrl: proxy.url, apiKey: sandbox().apiKey, maxRetries: 0 });
    const service = new ReportService({
      store: new ReportStore(db, ENV_WORKSPACE),
      client,
      failureAlert: 0.05,
      clock,
    });
    // src/host/main.ts hands the scheduler over once the app answers.
    let handOver: (s: ReportScheduler) => void = () => {};
    service.attachWhenStarted(new Promise<ReportScheduler>((resolve) => (handOver = resolve)));
    expect(service.live).toBe(true);
    const adding = service.addSchedule(daily("09:00"), { createdBy: "U1", channel: "C8" });
    const p = await startProcess(db, clock, post, "p");
    stops.push(p.stop);
    // Started and mirrored, not yet handed over: the new schedule is not stored behind its back.
    expect(await p.scheduler.store.listSchedules()).toEqual([]);
    handOver(p.scheduler);
    const row = await adding;
    expect(await p.scheduler.boss.getSchedules(p.scheduler.queue, String(row.id))).toHaveLength(1);
    expect((await service.removeSchedule(row.number))?.id).toBe(row.id);
    expect(await p.scheduler.boss.getSchedules(p.scheduler.queue)).toEqual([]);

    // A scheduler that never starts: schedules are stored only (the next start mirrors them).
    const alone = new ReportService({
      store: new ReportStore(db, ENV_WORKSPACE),
      client,
      failureAlert: 0.05,
      clock,
    });
    alone.attachWhenStarted(Promise.reject(new Error("pg-boss could not start")));
    const stored = await alone.addSchedule(daily("10:00"), { createdBy: "U1", channel: "C8" });
    expect((await alone.getSchedule(stored.number))?.channel).toBe("C8");
    expect(alone.live).toBe(false);
  });
});
