// Report schedules are numbered within their workspace: what people see and
// type (`Report #2`, `/sb report delete 2`) tells no customer how many
// schedules the others made. Numbers are distinct under concurrent creation,
// never reused after a delete, and the migration that brought them keeps the
// single mode's numbers (its ids) as they were.

import { afterEach, describe, expect, it } from "vitest";
import type { NewSchedule } from "../../src/domain/reports.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../../src/domain/workspace.ts";
import { migrate } from "../../src/store/migrate.ts";
import { REPORTS_MIGRATIONS, ReportStore } from "../../src/store/reports.ts";
import { openTestDb, storeBackends, type TestDb } from "../helpers/db.ts";

const A: WorkspaceId = "T0AAAAAAA";
const B: WorkspaceId = "T0BBBBBBB";
const t0 = new Date("2026-03-02T09:00:00Z");

const schedule = (channel = "C1"): NewSchedule => ({
  channel,
  target: "running",
  cron: "0 9 * * *",
  tz: "UTC",
  description: "every day at 09:00 (UTC)",
  createdBy: "U1",
});

describe.each(storeBackends())("report schedule numbers on %s", { timeout: 120_000 }, (backend) => {
  const open: TestDb[] = [];
  const fresh = async (migrations = REPORTS_MIGRATIONS) => {
    const db = await openTestDb(backend);
    open.push(db);
    await migrate(db, migrations);
    return db;
  };
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });

  it("each workspace counts its own: two workspaces making schedules in turn each see #1, #2, #3", async () => {
    const db = await fresh();
    const a = new ReportStore(db, A);
    const b = new ReportStore(db, B);
    const made = [];
    for (let i = 0; i < 3; i++) {
      made.push(await a.createSchedule(schedule("CA"), t0));
      made.push(await b.createSchedule(schedule("CB"), t0));
    }
    expect((await a.listSchedules()).map((s) => s.number)).toEqual([1, 2, 3]);
    expect((await b.listSchedules()).map((s) => s.number)).toEqual([1, 2, 3]);
    // The ids stay the store's own (counted across workspaces); only numbers are shown.
    expect(new Set(made.map((s) => s.id)).size).toBe(6);
    // A number names the workspace's own schedule, never the other's.
    expect((await b.scheduleNumbered(2))?.channel).toBe("CB");
    expect((await a.scheduleNumbered(2))?.channel).toBe("CA");
    expect(await b.scheduleNumbered(4)).toBeUndefined();
  });

  it("a deleted schedule's number is not given again", async () => {
    const db = await fresh();
    const a = new ReportStore(db, A);
    await a.createSchedule(schedule(), t0);
    const second = await a.createSchedule(schedule(), t0);
    expect(await a.deleteSchedule(second.id, t0)).toMatchObject({ number: 2 });
    expect(await a.scheduleNumbered(2)).toBeUndefined();
    expect((await a.createSchedule(schedule(), t0)).number).toBe(3);
  });

  it("schedules made at once in one workspace get distinct numbers, 1 to n", async () => {
    const db = await fresh();
    const a = new ReportStore(db, A);
    const b = new ReportStore(db, B);
    const made = await Promise.all(
      Array.from({ length: 12 }, (_, i) => (i % 3 === 2 ? b : a).createSchedule(schedule(), t0)),
    );
    const numbers = (w: WorkspaceId) =>
      made
        .filter((s) => s.workspace === w)
        .map((s) => s.number)
        .sort((x, y) => x - y);
    expect(numbers(A)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(numbers(B)).toEqual([1, 2, 3, 4]);
  });

  it("the migration numbers the rows kept before it: the single mode keeps its numbers, others count from 1", async () => {
    const before = {
      ...REPORTS_MIGRATIONS,
      migrations: REPORTS_MIGRATIONS.migrations.filter((m) => m.id < "004"),
    };
    const db = await fresh(before);
    const insert = (workspace: WorkspaceId, channel: string) =>
      db.query<{ id: number }>(
        `insert into reports.schedules (channel, target, cron, tz, description, created_by, created_at, workspace)
         values ($1, 'running', '0 9 * * *', 'UTC', 'every day', 'U1', now(), $2) returning id`,
        [channel, workspace],
      );
    // Single mode: ids 1, 2, then a gap (a failed insert spends an id), then 5; one deleted.
    await insert(ENV_WORKSPACE, "E1");
    await insert(ENV_WORKSPACE, "E2");
    await db.query("select setval('reports.schedules_id_seq', 4)");
    await insert(ENV_WORKSPACE, "E5");
    await db.query("update reports.schedules set deleted_at = now() where channel = 'E2'");
    // Workspaces of the many-workspace mode, made in turn.
    await insert(A, "A1");
    await insert(B, "B1");
    await insert(A, "A2");

    await migrate(db, REPORTS_MIGRATIONS);
    const env = new ReportStore(db, ENV_WORKSPACE);
    expect((await env.listSchedules()).map((s) => [s.number, s.channel])).toEqual([
      [1, "E1"],
      [5, "E5"],
    ]);
    // `/sb report delete 5` still names the same schedule; the next one is #6.
    expect((await env.scheduleNumbered(5))?.channel).toBe("E5");
    expect((await env.createSchedule(schedule("E6"), t0)).number).toBe(6);
    expect((await new ReportStore(db, A).listSchedules()).map((s) => [s.number, s.channel])).toEqual([
      [1, "A1"],
      [2, "A2"],
    ]);
    const b = new ReportStore(db, B);
    expect((await b.listSchedules()).map((s) => [s.number, s.channel])).toEqual([[1, "B1"]]);
    expect((await b.createSchedule(schedule("B2"), t0)).number).toBe(2);
  });
});
