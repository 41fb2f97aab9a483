// The run states of src/store/reports.ts that make posting happen at most once.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { migrate } from "../../src/store/migrate.ts";
import { REPORTS_MIGRATIONS, ReportStore } from "../../src/store/reports.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { counts } from "./fixtures.ts";

let db: TestDb;
let store: ReportStore;
const t0 = new Date("2026-03-02T09:00:00Z");
const at = (ms: number) => new Date(t0.getTime() + ms);

beforeAll(async () => {
  db = await openTestDb();
  expect(await migrate(db, REPORTS_MIGRATIONS)).toEqual(REPORTS_MIGRATIONS.migrations.map((m) => m.id));
  expect(await migrate(db, REPORTS_MIGRATIONS)).toEqual([]);
  store = new ReportStore(db, ENV_WORKSPACE);
});
afterAll(async () => {
  await db?.close();
});

const newSchedule = (channel = "C1") =>
  store.createSchedule(
    {
      channel,
      target: "42",
      cron: "0 9 * * *",
      tz: "UTC",
      description: "every day at 09:00 (UTC)",
      createdBy: "U1",
    },
    t0,
  );

describe("report store", { timeout: 60_000 }, () => {
  it("keeps schedules per channel and deletes them softly", async () => {
    const a = await newSchedule("CA");
    const b = await newSchedule("CB");
    expect((await store.listSchedules({ channel: "CA" })).map((s) => s.id)).toEqual([a.id]);
    expect(await store.deleteSchedule(b.id, at(1))).toMatchObject({ id: b.id });
    expect(await store.getSchedule(b.id)).toBeUndefined();
    expect(await store.deleteSchedule(b.id, at(2))).toBeUndefined();
  });

  it("gives a slot to one claim at a time; a failed attempt can be claimed again, an uncertain one never", async () => {
    const s = await newSchedule();
    const opts = (worker: string, ms = 0) => ({ worker, now: at(ms), leaseMs: 60_000, late: false });
    const first = await store.claimRun(s.id, t0, opts("A"));
    expect(first).toMatchObject({ state: "claimed", attempts: 1, claimedBy: "A" });
    expect(await store.claimRun(s.id, t0, opts("B"))).toBeUndefined();

    await store.markFailed(s.id, t0, "A", at(1), "API down", true);
    const retry = await store.claimRun(s.id, t0, opts("B", 2));
    expect(retry).toMatchObject({ state: "claimed", attempts: 2, claimedBy: "B", error: null });
    // A: no longer the holder, can move nothing.
    expect(await store.markPosting(s.id, t0, "A", at(3))).toBe(false);
    expect(await store.markPosting(s.id, t0, "B", at(3))).toBe(true);
    // Posting: nobody can claim it, even after the lease.
    expect(await store.claimRun(s.id, t0, opts("C", 10 * 60_000))).toBeUndefined();
    await store.markFailed(s.id, t0, "B", at(4), "socket hang up", false);
    expect(await store.getRun(s.id, t0)).toMatchObject({ state: "uncertain", error: "socket hang up" });
    expect(await store.claimRun(s.id, t0, opts("C", 20 * 60_000))).toBeUndefined();
  });

  it("lets another worker take a claim whose lease ran out before posting began", async () => {
    const s = await newSchedule();
    expect(
      await store.claimRun(s.id, t0, { worker: "A", now: t0, leaseMs: 1000, late: false }),
    ).toBeDefined();
    expect(
      await store.claimRun(s.id, t0, { worker: "B", now: at(500), leaseMs: 1000, late: true }),
    ).toBeUndefined();
    const taken = await store.claimRun(s.id, t0, { worker: "B", now: at(2000), leaseMs: 1000, late: true });
    expect(taken).toMatchObject({ claimedBy: "B", attempts: 2, late: true });
  });

  it("marks posted with the snapshot and the schedule's last run, once", async () => {
    const s = await newSchedule();
    await store.claimRun(s.id, t0, { worker: "A", now: t0, leaseMs: 60_000, late: false });
    expect(await store.markPosting(s.id, t0, "A", at(1))).toBe(true);
    await store.markPartPosted(s.id, t0, "A", "1700000000.000100", at(2));
    expect(
      await store.markPosted(s.id, t0, "A", at(3), [{ campaignId: 42, counts: counts({ read: 5 }) }]),
    ).toBe(true);
    expect(await store.markPosted(s.id, t0, "A", at(4), [])).toBe(false);
    expect(await store.getRun(s.id, t0)).toMatchObject({
      state: "posted",
      partsPosted: 1,
      messageRefs: ["1700000000.000100"],
    });
    expect((await store.getSchedule(s.id))?.lastRunAt?.toISOString()).toBe(t0.toISOString());
    const snap = (await store.getSnapshots(s.id)).get(42);
    expect(snap?.counts.read).toBe(5);
    expect(snap?.slotAt.toISOString()).toBe(t0.toISOString());
  });
});
