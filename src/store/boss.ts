// pg-boss, the job queue (cron schedules with time zones, retries, exactly-once
// delivery), on whichever database the store has. On PostgreSQL pg-boss keeps
// its own small pool on the same server (and LISTEN/NOTIFY). On PGlite it goes
// through the store's Db: parameterless SQL, which pg-boss sends as
// multi-statement blocks (its schema, migrations, advisory-locked sections),
// goes to exec, the rest to query; the Db's queue keeps them in line with the
// application's own queries on the one connection.
//
// Inside `db.transaction`, pass `{ db: asBossDb(tx) }` to pg-boss calls: the
// job then commits or rolls back with the transaction, on both backends. (On
// PGlite every pg-boss call made there joins the transaction anyway: the one
// connection is in it.)
import { type ConstructorOptions, PgBoss } from "pg-boss";
import { createLogger } from "../platform/log.ts";
import { currentTx, type Db, pgliteOf, postgresUrlOf, type Tx } from "./db.ts";

/** pg-boss's IDatabase: what `new PgBoss({ db })` and `send(…, { db })` take. */
export interface BossDb {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  listen?(
    channel: string,
    onNotification: (payload: string) => void,
    onReconnect: () => void,
  ): Promise<{ close(): Promise<void> }>;
}

/**
 * pg-boss over a Db or a transaction's Tx. With a Tx, `boss.send(name, data,
 * { db: asBossDb(tx) })` enqueues in that transaction: the job exists only if
 * it commits.
 */
export function asBossDb(q: Db | Tx): BossDb {
  const isDb = "kind" in q;
  const adapter: BossDb = {
    async executeSql(text, values) {
      // pg-boss reaches for its main connection even in `send(…, { db: tx })`
      // (its queue cache): inside a transaction of this Db that would wait
      // forever on PGlite, so such calls join the transaction instead.
      const conn = (isDb && currentTx(q)) || q;
      if (values?.length) return conn.query(text, values);
      // A RETURNING in the middle of a block must not be lost behind its COMMIT.
      const results = await conn.exec(text);
      return { rows: results.flatMap((r) => r.rows) };
    },
  };
  const lite = isDb ? pgliteOf(q) : undefined;
  if (lite) {
    // One in-process connection: NOTIFY and LISTEN meet there, nothing to reconnect.
    adapter.listen = async (channel, onNotification, onReconnect) => {
      const unsubscribe = await lite.listen(channel, onNotification);
      onReconnect();
      return { close: () => unsubscribe() };
    };
  }
  return adapter;
}

export type BossOptions = Omit<ConstructorOptions, "db" | "connectionString" | "backend"> & {
  /** Where pg-boss's errors go (default: the log, as warnings). */
  onError?: (err: Error) => void;
};

/**
 * A started PgBoss on the store's database. Stop it before closing the Db:
 * `await boss.stop(); await db.close()`.
 */
export async function createBoss(db: Db, opts: BossOptions = {}): Promise<PgBoss> {
  const { onError, ...config } = opts;
  const url = postgresUrlOf(db);
  const boss =
    db.kind === "postgres"
      ? new PgBoss({ max: 4, ...config, connectionString: requireUrl(url) })
      : new PgBoss({ ...config, db: asBossDb(db), backend: "pglite" });
  // Without a listener an 'error' event would throw and end the process.
  const report = onError ?? defaultErrorReporter();
  boss.on("error", (err) => report(err instanceof Error ? err : new Error(String(err))));
  await boss.start();
  return boss;
}

function requireUrl(url: string | undefined): string {
  if (!url) throw new Error("createBoss: this PostgreSQL Db was not opened by openDb()");
  return url;
}

function defaultErrorReporter() {
  const log = createLogger().child({ component: "pg-boss" });
  return (err: Error) => log.warn({ err: err.message }, "job queue error");
}
