// What the automations worker's tests start with: a fresh store (PGlite, or
// PostgreSQL when DATABASE_URL is set), pg-boss on it, and a started
// AutomationWorker with the test's options; close() stops them in order.
import type { PgBoss } from "pg-boss";
import { AutomationWorker, type WorkerOptions } from "../../src/automations/index.ts";
import { type BossOptions, createBoss } from "../../src/store/boss.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";

export interface WorkerStack {
  db: TestDb;
  boss: PgBoss;
  worker: AutomationWorker;
  close(): Promise<void>;
}

export async function startWorkerStack(
  options: Omit<WorkerOptions, "db" | "boss">,
  bossOptions: BossOptions = {},
): Promise<WorkerStack> {
  const db = await openTestDb();
  await migrateStore(db);
  const boss = await createBoss(db, bossOptions);
  const worker = new AutomationWorker({ db, boss, ...options });
  await worker.start();
  return {
    db,
    boss,
    worker,
    async close() {
      await worker.stop();
      await boss.stop({ graceful: false });
      await db.close();
    },
  };
}
