// Report schedules are numbered within their workspace: what people see and
// type (`Report #2`, `/sb report delete 2`) tells no customer how many
// schedules the others made. Numbers are distinct under concurrent creation,
// never reused after a delete, and the migration that brought them keeps the
// single mode's numbers (its ids) as they were.

import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { blocksToText } from "../../src/blocks/text.ts";
import { createCommandCore, type SwitchboardCore } from "../../src/commands/core.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import type { NewSchedule } from "../../src/domain/reports.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../../src/domain/workspace.ts";
import { ReportService } from "../../src/reports/service.ts";
import { migrate } from "../../src/store/migrate.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { REPORTS_MIGRATIONS, ReportStore } from "../../src/store/reports.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { openTestDb, storeBackends, type TestDb } from "../helpers/db.ts";
import { withSandbox } from "../helpers/sandbox.ts";

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

// The same through the commands: two workspaces' cores on one store, each
// answering, listing, and deleting by its own numbers.
describe("report schedule numbers in the commands", { timeout: 120_000 }, () => {
  const sandbox = withSandbox();
  let db: TestDb;
  let client: MessagingClient;
  const cores = new Map<WorkspaceId, SwitchboardCore>();
  const actor = (channelId: string): Actor => ({ userId: "U0ALICE", channelId, via: "slack" });
  const text = (r: Reply) => `${r.text}\n${blocksToText(r.blocks)}`;
  const run = (w: WorkspaceId, line: string) => cores.get(w)!.run(line, actor(w === A ? "C0AAA" : "C0BBB"));

  beforeAll(async () => {
    db = await openTestDb();
    await migrateStore(db);
    client = new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
    for (const workspace of [A, B]) {
      const stores = new WorkspaceStores(db, workspace);
      const reports = new ReportService({ store: stores.reports, client, failureAlert: 0.05 });
      cores.set(workspace, createCommandCore({ api: client, stores, reports }));
    }
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await db?.close();
  });

  it("each workspace is answered, listed and deleted by its own numbers", async () => {
    expect(text(await run(A, "report running every day at 09:00"))).toContain("Report #1 scheduled");
    expect(text(await run(A, "report all every weekday at 08:00"))).toContain("Report #2 scheduled");
    // The second workspace's first schedule is its #1, not #3.
    const first = text(await run(B, "report running every day at 10:00"));
    expect(first).toContain("Report #1 scheduled");
    expect(first).toContain("`/sb report delete 1`");
    expect(text(await run(A, "report running every 6h"))).toContain("Report #3 scheduled");

    const listA = await run(A, "reports");
    expect(text(listA)).toMatch(/#1 .*#2 .*#3 /s);
    const buttons = (r: Reply) =>
      JSON.stringify(r.blocks)
        .match(/"value":"report delete \d+"/g)
        ?.map((v) => v.slice(9, -1));
    expect(buttons(listA)).toEqual(["report delete 1", "report delete 2", "report delete 3"]);
    const listB = await run(B, "reports");
    expect(text(listB)).toContain("#1 ");
    expect(text(listB)).not.toMatch(/#[23]\b/);
    expect(buttons(listB)).toEqual(["report delete 1"]);

    // B has no #2 (A's is not B's to see or delete).
    expect(text(await run(B, "report delete 2"))).toContain("There is no report schedule #2");
    const asked = await run(B, "report delete 1");
    expect(text(asked)).toContain("Delete report schedule #1?");
    expect(text(asked)).toContain("every day at 10:00");
    const done = await cores.get(B)!.confirm(asked.confirmation!.id, actor("C0BBB"));
    expect(text(done)).toContain("Report schedule #1");
    expect(await new ReportStore(db, B).listSchedules()).toEqual([]);
    expect((await new ReportStore(db, A).listSchedules()).map((s) => s.number)).toEqual([1, 2, 3]);
  });
});
