// Forward-only migrations, the same SQL on PGlite and PostgreSQL. Each owner
// (Switchboard itself, the sandbox) keeps its own ordered list in its own
// schema; applied ids are recorded in <schema>.migrations. An advisory lock
// keeps two processes starting together on one server from racing.
import type { Db } from "./db.ts";

export interface Migration {
  /** Unique, sortable id, for example `001_audit`. Never renumber an applied one. */
  id: string;
  sql: string;
}

export interface MigrationSet {
  schema: string;
  migrations: readonly Migration[];
}

const lockKey = (schema: string) => {
  let h = 0;
  for (const ch of `switchboard:${schema}`) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return h;
};

export async function migrate(db: Db, set: MigrationSet): Promise<string[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(set.schema)) throw new Error(`bad schema name ${set.schema}`);
  return db.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [lockKey(set.schema)]);
    await tx.query(`create schema if not exists ${set.schema}`);
    await tx.query(
      `create table if not exists ${set.schema}.migrations (id text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set(
      (await tx.query<{ id: string }>(`select id from ${set.schema}.migrations`)).rows.map((r) => r.id),
    );
    const applied: string[] = [];
    for (const m of [...set.migrations].sort((a, b) => a.id.localeCompare(b.id))) {
      if (done.has(m.id)) continue;
      // Statements are split on a line holding only `;` -- kept simple on purpose:
      // PGlite's query() takes one statement at a time inside a transaction.
      for (const statement of m.sql.split(/^\s*;\s*$/m)) {
        if (statement.trim()) await tx.query(statement);
      }
      await tx.query(`insert into ${set.schema}.migrations (id) values ($1)`, [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}
