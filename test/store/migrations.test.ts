// One migration registry (issue 18 §3): every schema of Switchboard's store
// modules is migrated once, when the store opens (createSwitchboard), and no
// runtime migrates afterwards: not the Slack app, the report scheduler, live
// progress nor the inbox poller. The sandbox migrates its own list and pg-boss
// its own schema. The database is real; its query methods are only watched.
import { readdirSync, readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSwitchboard, type Switchboard } from "../../src/host/app.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { startSlackApp } from "../../src/slack/app.ts";
import { startInbox } from "../../src/slack/features/inbox/runtime.ts";
import { startReports } from "../../src/slack/features/reports/runtime.ts";
import type { Db, Tx } from "../../src/store/db.ts";
import type { MigrationSet } from "../../src/store/migrate.ts";
import { sourceFiles } from "../architecture/rules.ts";
import { FakeSlack } from "../fakes/slack.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { SIGNING_SECRET } from "../helpers/fake-slack.ts";
import { captureLogger } from "../helpers/log.ts";

const SRC = resolve(import.meta.dirname, "../../src");
const STORE = resolve(SRC, "store");

/** Every migration set a module at the top of src/store exports (the sandbox's folder keeps its own). */
async function storeSchemas(): Promise<string[]> {
  const schemas: string[] = [];
  for (const name of readdirSync(STORE)
    .filter((n) => n.endsWith(".ts"))
    .sort()) {
    const mod = (await import(resolve(STORE, name))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const set = value as Partial<MigrationSet> | null;
      if (set && typeof set === "object" && typeof set.schema === "string" && Array.isArray(set.migrations))
        schemas.push(set.schema);
    }
  }
  return schemas.sort();
}

/** Records the SQL the database is given, its transactions' included; the database itself is unchanged. */
function watch(db: Db): string[] {
  const seen: string[] = [];
  const query = db.query.bind(db);
  const exec = db.exec.bind(db);
  const transaction = db.transaction.bind(db);
  const watched = (tx: Tx): Tx => ({
    query: (sql, params) => {
      seen.push(sql);
      return tx.query(sql, params);
    },
    exec: (sql) => {
      seen.push(sql);
      return tx.exec(sql);
    },
  });
  Object.assign(db, {
    query: (sql: string, params?: unknown[]) => {
      seen.push(sql);
      return query(sql, params);
    },
    exec: (sql: string) => {
      seen.push(sql);
      return exec(sql);
    },
    transaction: <T>(fn: (tx: Tx) => Promise<T>) => transaction((tx) => fn(watched(tx))),
  });
  return seen;
}

/** Schemas whose migrations table a statement touches (`<schema>.migrations`). */
const migrationTables = (sql: string) =>
  [...sql.matchAll(/\b([a-z_][a-z0-9_]*)\.migrations\b/g)].map((m) => m[1]);
/** Each migration that went to work on a new database creates its schema's table of applied ids once. */
const created = (sql: string) => /create table if not exists ([a-z_][a-z0-9_]*)\.migrations/.exec(sql)?.[1];

let db: TestDb;
let fake: FakeSlack;
let sb: Switchboard | undefined;
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  db = await openTestDb();
  fake = await FakeSlack.start();
  fake.addChannel({ id: "C0GENERAL", name: "general" });
  fake.addUser({ id: "U0ALICE", name: "alice" });
}, 120_000);

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  await sb?.close();
  await fake?.close();
  await db?.close();
});

describe("one migration registry", () => {
  it("migrates every schema once when the store opens, and no runtime migrates after", async () => {
    const seen = watch(db);
    const config = loadConfig({
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.apiUrl,
      SANDBOX_CAMPAIGN_TICK_MS: "3600000",
      LOG_LEVEL: "silent",
    });
    const { logger } = captureLogger();
    sb = await createSwitchboard(config, { logger, db });

    // Opened: each schema of the store modules, and the embedded sandbox's own, migrated once.
    const atOpen = seen.splice(0);
    const once = atOpen.map(created).filter((s): s is string => s !== undefined);
    const schemas = await storeSchemas();
    expect(schemas.length).toBeGreaterThanOrEqual(8);
    expect(once.sort()).toEqual([...schemas, "sandbox"].sort());

    // Every part of the Slack app and its runtimes, started and stopped: not one look at a migrations table.
    const slack = await startSlackApp(sb.deployment, config, logger, {
      listen: { port: 0, host: "127.0.0.1" },
    });
    stops.push(() => slack.stop());
    const reports = await startReports(sb, config, logger, { progressTimer: false });
    stops.push(() => reports.stop());
    const inbox = await startInbox(sb, config, logger, { timer: false });
    stops.push(() => inbox.stop());
    await reports.progress.step();
    await inbox.poller.step();
    for (const stop of stops.splice(0).reverse()) await stop();
    expect(seen.length).toBeGreaterThan(0); // the watch still sees the runtimes' own queries
    expect(seen.flatMap(migrationTables)).toEqual([]);
  }, 120_000);

  it("only the registry and the sandbox's start call migrate()", () => {
    const callers = sourceFiles(SRC)
      .filter((file) => /\bmigrate\(/.test(readFileSync(file, "utf8").replace(/function migrate\(/g, "")))
      .map((file) => relative(SRC, file));
    expect(callers).toEqual(["sandbox/index.ts", "store/migrations.ts"]);
  });
});
