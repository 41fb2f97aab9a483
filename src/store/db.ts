// The one door to SQL. Embedded PGlite under DATA_DIR by default, a real
// PostgreSQL server when DATABASE_URL is set; both speak the same dialect and
// run the same migrations, so nothing above this file knows which it has.
import { mkdirSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import pg from "pg";

export interface QueryResult<T> {
  rows: T[];
  rowCount: number;
}

export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<QueryResult<T>>;
}

export interface Db extends Queryable {
  readonly kind: "pglite" | "postgres";
  /** Runs parameterless SQL, possibly several statements. */
  exec(sql: string): Promise<void>;
  /** Runs fn in one transaction on one connection; rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface OpenDbOptions {
  /** postgres://… : a real server. Unset: embedded PGlite. */
  databaseUrl?: string;
  /** Folder of the embedded database; undefined keeps it in memory (tests). */
  dataDir?: string;
}

export async function openDb(opts: OpenDbOptions): Promise<Db> {
  return opts.databaseUrl ? openPostgres(opts.databaseUrl) : openPglite(opts.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<Db> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // pg_trgm backs substring search (the sandbox's contact search); a real server ships it in contrib.
  const extensions = { pg_trgm };
  const lite = dataDir ? await PGlite.create(dataDir, { extensions }) : await PGlite.create({ extensions });
  const wrap = (q: { query: PGlite["query"] }): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query<T>(sql, params as unknown[] | undefined);
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length };
    },
  });
  return {
    kind: "pglite",
    ...wrap(lite),
    async exec(sql) {
      await lite.exec(sql);
    },
    transaction: (fn) => lite.transaction((tx) => fn(wrap(tx))),
    close: () => lite.close(),
  };
}

async function openPostgres(url: string): Promise<Db> {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // Fail fast with a clear error when the server is not there.
  await pool.query("select 1");
  const wrap = (q: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await q.query(sql, params);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length };
    },
  });
  return {
    kind: "postgres",
    ...wrap(pool),
    async exec(sql) {
      await pool.query(sql);
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query("begin");
        const result = await fn(wrap(client));
        await client.query("commit");
        return result;
      } catch (err) {
        await client.query("rollback").catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
