import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asBossDb, createBoss } from "../../src/store/boss.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { openTestDb, storeBackends } from "../helpers/db.ts";

const errors: Error[] = [];
const onError = (err: Error) => errors.push(err);

describe.each(storeBackends())("pg-boss on %s", (backend) => {
  let db: Db;
  let boss: PgBoss;
  beforeAll(async () => {
    db = await openTestDb(backend);
    boss = await createBoss(db, { onError });
  });
  afterAll(async () => {
    await boss?.stop({ graceful: false });
    await db?.close();
  });

  it("creates its schema in the store's database", async () => {
    const { rows } = await db.query("select 1 from information_schema.tables where table_schema = 'pgboss'");
    expect(rows.length).toBeGreaterThan(0);
  });

  it("sends a job and a worker gets it", async () => {
    await boss.createQueue("greet");
    const seen = new Promise<unknown>((resolve) => {
      void boss.work<{ who: string }>("greet", { pollingIntervalSeconds: 0.5 }, async ([job]) => {
        resolve(job!.data);
      });
    });
    const id = await boss.send("greet", { who: "world" });
    expect(id).toEqual(expect.any(String));
    expect(await seen).toEqual({ who: "world" });
  });

  it("registers a cron schedule with a time zone", async () => {
    await boss.createQueue("daily-report");
    await boss.schedule("daily-report", "0 9 * * 1-5", { campaign: 7 }, { tz: "Europe/Paris" });
    const schedules = await boss.getSchedules("daily-report");
    expect(schedules).toEqual([
      expect.objectContaining({
        name: "daily-report",
        cron: "0 9 * * 1-5",
        timezone: "Europe/Paris",
        data: { campaign: 7 },
      }),
    ]);
  });

  it("enqueues inside a store transaction only when it commits", async () => {
    await boss.createQueue("tx-jobs");
    const kept = await db.transaction((tx) => boss.send("tx-jobs", { n: 1 }, { db: asBossDb(tx) }));
    let dropped: string | null = null;
    await db
      .transaction(async (tx) => {
        dropped = await boss.send("tx-jobs", { n: 2 }, { db: asBossDb(tx) });
        throw new Error("abandon");
      })
      .catch(() => {});
    expect(dropped).toEqual(expect.any(String));
    expect(await boss.getJobById("tx-jobs", kept!)).toMatchObject({ data: { n: 1 } });
    expect(await boss.getJobById("tx-jobs", dropped!)).toBeNull();
  });

  it("shares the database with the application's own queries", async () => {
    await boss.createQueue("busy");
    await db.exec("create table app_rows (n int)");
    const work: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      work.push(boss.send("busy", { i }));
      work.push(db.query("insert into app_rows values ($1)", [i]));
    }
    await Promise.all(work);
    const jobs = await boss.fetch("busy", { batchSize: 50 });
    expect(jobs).toHaveLength(20);
    expect((await db.query("select count(*) as n from app_rows")).rows).toEqual([{ n: 20 }]);
  });

  it("reported no error along the way", () => {
    expect(errors).toEqual([]);
  });
});

describe("pg-boss on an embedded database in a folder", () => {
  const dir = mkdtempSync(join(tmpdir(), "switchboard-boss-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps schedules and waiting jobs across a restart", async () => {
    const dataDir = join(dir, "data");
    let db = await openDb({ dataDir });
    let boss = await createBoss(db, { onError });
    await boss.createQueue("later");
    await boss.schedule("later", "30 8 * * *", null, { tz: "America/New_York" });
    const id = await boss.send("later", { keep: true });
    await boss.stop({ graceful: false });
    await db.close();

    db = await openDb({ dataDir });
    boss = await createBoss(db, { onError });
    try {
      expect((await boss.getSchedules("later")).map((s) => s.timezone)).toEqual(["America/New_York"]);
      const [job] = await boss.fetch<{ keep: boolean }>("later");
      expect(job).toMatchObject({ id, data: { keep: true } });
    } finally {
      await boss.stop({ graceful: false });
      await db.close();
    }
  });
});
