// The one door to SQL. Embedded PGlite under DATA_DIR by default, a real
// PostgreSQL server when DATABASE_URL is set; both speak the same dialect, run
// the same migrations and hand back the same JavaScript types, so nothing
// above this file knows which it has.
//
// Rules both backends keep:
// - Statements run one after another on PGlite (one connection); concurrent
//   callers simply queue.
// - Inside `transaction(fn)` use the `tx` argument only. Calling `db.query`,
//   `db.exec` or `db.transaction` there would wait forever on PGlite (the one
//   connection is busy with the transaction), so it throws on both backends.
// - A failed `exec` never leaves a transaction open behind it.
// - int8 comes back as a number (a bigint beyond 2^53), numeric as a string,
//   timestamp/timestamptz/date as Date (timestamp without zone read as UTC),
//   json/jsonb parsed, bytea as Uint8Array, interval as Postgres text.

import { AsyncLocalStorage } from "node:async_hooks";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import { SwitchboardError } from "../platform/errors.ts";
import { giveWay } from "../platform/turns.ts";
import { LOCK_NAMES, lockDataDir } from "./lock.ts";
import { emptyDataDir, writeTemplate } from "./pglite-template.ts";

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

/** Resolves when the database answers a trivial query (readiness checks). */
export async function ping(db: Queryable): Promise<void> {
  await db.query("select 1");
}

/** What a transaction callback gets: its own connection. */
export interface Tx extends Queryable {
  /** Parameterless SQL, possibly several statements, inside the transaction. */
  exec(sql: string): Promise<QueryResult<Record<string, unknown>>[]>;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs parameterless SQL, possibly several statements; one result per statement. */
  exec(sql: string): Promise<QueryResult<Record<string, unknown>>[]>;
  /** Runs fn in one transaction on one connection; rolls back when it throws. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Waits for running work, then closes. Later calls fail with a clear error. */
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** postgres://… : a real server. Unset: embedded PGlite. */
  databaseUrl?: string;
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
  /** Pool size on PostgreSQL (default 10). */
  maxConnections?: number;
  /** PGlite only: start from this dump (`PGlite.dumpDataDir`) instead of an initdb; tests use it to start fast. */
  pgliteTemplate?: Blob;
  /** PGlite in a folder: after how long without a heartbeat its lock is taken over (src/store/lock.ts). */
  lockStaleMs?: number;
}

/** Thrown when the database cannot be opened; its message never holds a password. */
export class DatabaseUnavailableError extends SwitchboardError {
  readonly code = "database_unavailable";
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  return opts.databaseUrl
    ? openPostgres(opts.databaseUrl, opts.maxConnections ?? 10)
    : openPglite(opts.dataDir, opts.pgliteTemplate, opts.lockStaleMs);
}

/** postgres://user:secret@host/db → postgres://user:***@host/db, for messages and logs. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    for (const key of [...u.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) u.searchParams.set(key, "***");
    }
    return u.toString();
  } catch {
    return url.replace(/\/\/([^:/@]*):[^@]*@/, "//$1:***@");
  }
}

// Where each Db came from, for the pg-boss adapter (src/store/boss.ts) only:
// kept off the object so a logged Db never shows a connection string.
// state: owned: keyed by its Db.
const postgresUrls = new WeakMap<Db, string>();
// state: owned: keyed by its Db.
const pgliteInstances = new WeakMap<Db, PGlite>();
export const postgresUrlOf = (db: Db): string | undefined => postgresUrls.get(db);
export const pgliteOf = (db: Db): PGlite | undefined => pgliteInstances.get(db);

// Marks the async context of each running transaction, to refuse calls that
// would bypass it (and deadlock PGlite). `open` turns false when it ends, so
// timers started inside it are not refused later.
interface TxMarker {
  owner: object;
  tx: Tx;
  open: boolean;
}
const openTransactions = new AsyncLocalStorage<readonly TxMarker[]>();
const currentMarker = (owner: object) =>
  openTransactions.getStore()?.find((m) => m.owner === owner && m.open);

/** The transaction of `db` that the calling code runs inside, if any (for the pg-boss adapter). */
export const currentTx = (db: Db): Tx | undefined => currentMarker(db)?.tx;

function refuseInsideTransaction(owner: object, what: string) {
  if (currentMarker(owner)) {
    throw new Error(
      `db.${what}() called inside db.transaction(): use the tx argument (on PGlite this would wait forever)`,
    );
  }
}

async function runTransaction<T>(
  owner: object,
  begin: (fn: (tx: Tx) => Promise<T>) => Promise<T>,
  fn: (tx: Tx) => Promise<T>,
): Promise<T> {
  refuseInsideTransaction(owner, "transaction");
  let marker: TxMarker | undefined;
  try {
    return await begin((tx) => {
      marker = { owner, tx, open: true };
      return openTransactions.run([...(openTransactions.getStore() ?? []), marker], () => fn(tx));
    });
  } finally {
    if (marker) marker.open = false;
  }
}

const closedError = () => new Error("the database is closed");

// ---------------------------------------------------------------- PGlite

/**
 * One at a time: PGlite has a single connection; this also keeps a failed exec and its rollback together.
 * PGlite runs each statement on this process's own thread: each waits a turn of the event loop first, so
 * requests that arrived meanwhile are acknowledged between statements rather than after all of them.
 */
class Queue {
  #tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#tail.then(giveWay).then(task);
    this.#tail = result.catch(() => {});
    return result;
  }
}

/**
 * PostgreSQL settings of the embedded database, for memory (docs/memory.md):
 * PGlite's shared_buffers of 128 MB sit in its WebAssembly heap and, once
 * touched, stay resident; Switchboard's tables and the sandbox's fit a far
 * smaller cache, the operating system caching the files behind it.
 */
export const PGLITE_SETTINGS = ["shared_buffers=16MB", "maintenance_work_mem=16MB", "temp_buffers=2MB"];

async function openPglite(
  dataDir: string | undefined,
  template: Blob | undefined,
  lockStaleMs: number | undefined,
): Promise<Db> {
  let unlock = async () => {};
  let fromTemplate = false;
  if (dataDir) {
    mkdirSync(dataDir, { recursive: true });
    unlock = await lockDataDir(dataDir, (message) => new DatabaseUnavailableError(message), lockStaleMs);
    // A first start: the shipped empty database instead of initdb (src/store/pglite-template.ts).
    if (!template && !existsSync(join(dataDir, "PG_VERSION"))) {
      try {
        fromTemplate = writeTemplate(dataDir);
      } catch {
        emptyDataDir(dataDir, [...LOCK_NAMES]);
      }
    }
  }
  let lite: PGlite;
  try {
    // Loaded here, not at start: with DATABASE_URL the process never needs it.
    const [{ PGlite }, { pg_trgm }] = await Promise.all([
      import("@electric-sql/pglite"),
      import("@electric-sql/pglite/contrib/pg_trgm"),
    ]);
    // pg_trgm backs substring search (the sandbox's contacts); a real server ships it in contrib.
    const create = () =>
      PGlite.create({
        dataDir,
        loadDataDir: template,
        extensions: { pg_trgm },
        startParams: [...PGlite.defaultStartParams, ...PGLITE_SETTINGS.flatMap((s) => ["-c", s])],
      });
    try {
      lite = await create();
    } catch (err) {
      if (!fromTemplate || !dataDir) throw err;
      // The shipped files do not suit this PGlite (another PostgreSQL major): initdb as PGlite does.
      emptyDataDir(dataDir, [...LOCK_NAMES]);
      lite = await create();
    }
  } catch (err) {
    await unlock();
    throw new DatabaseUnavailableError(
      `cannot open the embedded database in ${dataDir ?? "memory"}: ${(err as Error).message}`,
    );
  }
  const queue = new Queue();
  let closed = false;
  const guard = (what: string) => {
    if (closed) throw closedError();
    refuseInsideTransaction(db, what);
  };
  const toResult = <T>(r: { rows: T[]; affectedRows?: number }): QueryResult<T> => ({
    rows: r.rows,
    rowCount: r.affectedRows || r.rows.length,
  });
  const execResults = (rs: { rows: unknown[]; affectedRows?: number }[]) =>
    rs.map((r) => toResult(r as { rows: Record<string, unknown>[]; affectedRows?: number }));

  const db: Db = {
    kind: "pglite",
    async query<T>(sql: string, params?: unknown[]) {
      guard("query");
      return queue.run(async () => toResult(await lite.query<T>(sql, params)));
    },
    async exec(sql) {
      guard("exec");
      return queue.run(async () => {
        try {
          return execResults(await lite.exec(sql));
        } catch (err) {
          // A multi-statement block that failed after its BEGIN leaves the one
          // connection in an aborted transaction; end it before anyone else runs.
          if (await lite.isInTransaction()) await lite.exec("rollback");
          throw err;
        }
      });
    },
    transaction<T>(fn: (tx: Tx) => Promise<T>) {
      if (closed) return Promise.reject(closedError());
      return runTransaction<T>(
        db,
        (inner) =>
          queue.run(() =>
            lite.transaction((t) =>
              inner({
                async query<R>(sql: string, params?: unknown[]) {
                  return toResult(await t.query<R>(sql, params));
                },
                async exec(sql: string) {
                  return execResults(await t.exec(sql));
                },
              }),
            ),
          ),
        fn,
      );
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await queue.run(() => lite.close());
      } finally {
        await unlock();
      }
    },
  };
  pgliteInstances.set(db, lite);
  return db;
}

// ---------------------------------------------------------------- PostgreSQL

// Read results as PGlite does, so code and tests see the same values on both.
const PG_OIDS = { INT8: 20, INT8_ARRAY: 1016, DATE: 1082, TIMESTAMP: 1114, INTERVAL: 1186 };
const parseInt8 = (text: string): number | bigint => {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : BigInt(text);
};
const parseUtcTimestamp = (text: string): Date | string => {
  const m = /^(\d{4}-\d\d-\d\d)(?: (\d\d:\d\d:\d\d(?:\.\d+)?))?$/.exec(text);
  return m ? new Date(`${m[1]}T${m[2] ?? "00:00:00"}Z`) : text; // infinity and BC stay text
};
const pgTypesOf = (pg: typeof import("pg").default) =>
  ({
    getTypeParser(oid: number, format?: "text" | "binary") {
      switch (oid) {
        case PG_OIDS.INT8:
          return parseInt8;
        case PG_OIDS.INT8_ARRAY:
          return (text: string) =>
            (pg.types.getTypeParser(oid as never)(text) as (string | null)[]).map((v) =>
              v === null ? null : parseInt8(v),
            );
        case PG_OIDS.DATE:
        case PG_OIDS.TIMESTAMP:
          return parseUtcTimestamp;
        case PG_OIDS.INTERVAL:
          return (text: string) => text;
        default:
          return pg.types.getTypeParser(oid, format);
      }
    },
  }) as pg.CustomTypesConfig;

async function openPostgres(url: string, max: number): Promise<Db> {
  const where = redactUrl(url);
  // Loaded here, not at start: the embedded database does not need it.
  const { default: pg } = await import("pg");
  let pool: pg.Pool;
  try {
    // TCP keepalive: a NAT keeps an idle connection's mapping, and one whose peer is gone is found out by the kernel.
    pool = new pg.Pool({
      connectionString: url,
      max,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      types: pgTypesOf(pg),
    });
  } catch (err) {
    throw new DatabaseUnavailableError(
      `DATABASE_URL is not a usable PostgreSQL URL (${where}): ${clean(err, url)}`,
    );
  }
  // An idle connection that the server drops must not crash the process: the
  // pool discards it and the next query opens a new one (or fails on its own).
  pool.on("error", () => {});
  try {
    await pool.query("select 1");
  } catch (err) {
    await pool.end().catch(() => {});
    throw new DatabaseUnavailableError(`cannot connect to PostgreSQL at ${where}: ${clean(err, url)}`);
  }

  let closed = false;
  const guard = (what: string) => {
    if (closed) throw closedError();
    refuseInsideTransaction(db, what);
  };
  // pool.end() does not wait for callers still queued for a connection: track
  // what runs so close() can let it finish first.
  const running = new Set<Promise<unknown>>();
  const track = <T>(work: Promise<T>): Promise<T> => {
    running.add(work);
    work.then(
      () => running.delete(work),
      () => running.delete(work),
    );
    return work;
  };
  const toResult = <T>(r: pg.QueryResult): QueryResult<T> => ({
    rows: r.rows as T[],
    rowCount: r.rowCount ?? r.rows.length,
  });
  // pg answers a multi-statement string with an array, a single one with one result.
  const execResults = (r: pg.QueryResult | pg.QueryResult[]) =>
    (Array.isArray(r) ? r : [r]).map((x) => toResult<Record<string, unknown>>(x));

  const db: Db = {
    kind: "postgres",
    async query<T>(sql: string, params?: unknown[]) {
      guard("query");
      return toResult<T>(await track(pool.query(sql, params)));
    },
    async exec(sql) {
      guard("exec");
      return track(
        (async () => {
          const client = await pool.connect();
          try {
            return execResults(
              await (client.query(sql) as unknown as Promise<pg.QueryResult | pg.QueryResult[]>),
            );
          } catch (err) {
            await client.query("rollback").catch(() => {});
            throw err;
          } finally {
            client.release();
          }
        })(),
      );
    },
    transaction<T>(fn: (tx: Tx) => Promise<T>) {
      if (closed) return Promise.reject(closedError());
      return runTransaction<T>(db, async (inner) => track(openTransaction(inner)), fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      while (running.size) await Promise.allSettled([...running]);
      await pool.end();
    },
  };
  async function openTransaction<T>(inner: (tx: Tx) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken = false;
    try {
      await client.query("begin");
      const result = await inner({
        async query<R>(sql: string, params?: unknown[]) {
          return toResult<R>(await client.query(sql, params));
        },
        async exec(sql: string) {
          return execResults(
            await (client.query(sql) as unknown as Promise<pg.QueryResult | pg.QueryResult[]>),
          );
        },
      });
      await client.query("commit");
      return result;
    } catch (err) {
      await client.query("rollback").catch(() => {
        broken = true;
      });
      throw err;
    } finally {
      client.release(broken);
    }
  }
  postgresUrls.set(db, url);
  return db;
}

/** An error's message with any trace of the URL's password removed. */
function clean(err: unknown, url: string): string {
  let message = err instanceof Error ? err.message : String(err);
  try {
    const password = decodeURIComponent(new URL(url).password);
    if (password) message = message.split(password).join("***");
  } catch {
    // not a URL: nothing more to hide than redactUrl already does
  }
  return message.split(url).join(redactUrl(url)) || "unknown error";
}
