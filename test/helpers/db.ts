// A fresh, isolated database for a test file:
//   const db = await openTestDb();   ...   await db.close();
// PGlite in memory by default; when DATABASE_URL is set (CI sets it), a new
// database `test_<random>` on that server, dropped again by close().
// `storeBackends()` lists the backends this run can test, for describe.each;
// `useStoreDb(backend)` gives a describe block its own migrated database:
//   describe.each(storeBackends())("… on %s", (backend) => { const db = useStoreDb(backend); … db() … });
// `useRecordingStoreDb(backend, into)` is the same with every statement after the migrations pushed to `into`.
import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { type Db, openDb } from "../../src/store/db.ts";
import { migrateStore } from "../../src/store/migrations.ts";

export type StoreBackend = "pglite" | "postgres";

export const postgresUrl = (): string | undefined => process.env.DATABASE_URL?.trim() || undefined;

/** ["pglite"], plus "postgres" when DATABASE_URL is set. */
export function storeBackends(): StoreBackend[] {
  return postgresUrl() ? ["pglite", "postgres"] : ["pglite"];
}

export interface TestDb extends Db {
  /** The test database's own URL (postgres only), for a second process or pool on it. */
  readonly url?: string;
}

/**
 * Opens a fresh empty database. `backend` defaults to postgres when
 * DATABASE_URL is set, else PGlite in memory; `dataDir` (PGlite only) keeps it
 * in a folder instead, for tests of reopening.
 */
export async function openTestDb(
  backend: StoreBackend = postgresUrl() ? "postgres" : "pglite",
  opts: { dataDir?: string } = {},
): Promise<TestDb> {
  if (backend === "pglite") {
    if (opts.dataDir) return openDb({ dataDir: opts.dataDir });
    return openDb({ pgliteTemplate: await pgliteTemplate() });
  }
  const url = await createTestDatabase();
  const db = await openDb({ databaseUrl: url.toString(), maxConnections: 5 });
  const close = db.close;
  return Object.assign(db, {
    url: url.toString(),
    async close() {
      await close();
      await dropTestDatabase(url);
    },
  });
}

// An empty PGlite's files, made once per test worker: starting from them
// skips PGlite's initdb, which costs seconds on a busy machine.
let template: Promise<Blob> | undefined;
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const lite = await PGlite.create();
    try {
      return await lite.dumpDataDir("none");
    } finally {
      await lite.close();
    }
  })();
  return template;
}

/** Creates `test_<random>` on DATABASE_URL's server; returns its URL. Drop it with dropTestDatabase. */
export async function createTestDatabase(): Promise<URL> {
  const admin = postgresUrl();
  if (!admin) throw new Error("DATABASE_URL is not set: no PostgreSQL server to test on");
  const name = `test_${randomBytes(6).toString("hex")}`;
  await withAdmin(admin, (c) => c.query(`create database ${name}`));
  const url = new URL(admin);
  url.pathname = `/${name}`;
  return url;
}

export async function dropTestDatabase(url: URL): Promise<void> {
  const name = url.pathname.slice(1);
  if (!/^test_[0-9a-f]+$/.test(name)) throw new Error(`refusing to drop ${name}: not a test database`);
  // FORCE ends connections a test left open (a pg-boss pool, say).
  await withAdmin(postgresUrl()!, (c) => c.query(`drop database if exists ${name} with (force)`));
}

async function withAdmin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** The test database on PostgreSQL and a second pool on it, as two replicas hold one database; close() closes the second pool, then the database. */
export async function openTwoPools(
  maxConnections = 5,
): Promise<{ first: TestDb; second: Db; close(): Promise<void> }> {
  const first = await openTestDb("postgres");
  const second = await openDb({ databaseUrl: first.url, maxConnections });
  return {
    first,
    second,
    async close() {
      await second.close();
      await first.close();
    },
  };
}

/** `db` with every statement's text pushed to `into` first (tests that count what reaches the database). */
export function recordingQueries<T extends Db>(db: T, into: string[], only: RegExp = /./): T {
  const query = db.query.bind(db);
  return Object.assign(db, {
    query: ((text: string, params?: unknown[]) => {
      if (only.test(text)) into.push(text);
      return query(text, params);
    }) as Db["query"],
  });
}

/**
 * A fresh database for the enclosing describe block (or file): opened on `backend` and migrated
 * (the store's migrations, or `migrate`) before its tests, closed after them; returns a getter.
 */
export function useStoreDb(
  backend?: StoreBackend,
  migrate: (db: Db) => Promise<unknown> = migrateStore,
  timeoutMs = 60_000,
): () => TestDb {
  let db: TestDb | undefined;
  beforeAll(async () => {
    db = await openTestDb(backend);
    await migrate(db);
  }, timeoutMs);
  afterAll(() => db?.close());
  return () => {
    if (!db) throw new Error("the test database is not open yet: use the getter inside a test or hook");
    return db;
  };
}

/**
 * useStoreDb whose statements after the migrations (those `only` matches) are pushed to `into`,
 * for a describe block that counts what reaches the database.
 */
export function useRecordingStoreDb(
  backend: StoreBackend | undefined,
  into: string[],
  only?: RegExp,
): () => TestDb {
  return useStoreDb(backend, async (db) => {
    await migrateStore(db);
    recordingQueries(db, into, only);
  });
}
