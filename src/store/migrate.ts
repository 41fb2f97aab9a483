// Forward-only migrations, the same SQL on PGlite and PostgreSQL. Each owner
// (Switchboard itself, the sandbox) keeps its own ordered list in its own
// schema; applied ids are recorded in <schema>.migrations. An advisory lock
// keeps two processes starting together on one server from racing, and the
// whole set runs in one transaction: all of it lands, or none.
import type { Db } from "./db.ts";

export interface Migration {
  /** Unique, sortable id, for example `001_audit`. Never renumber an applied one. */
  id: string;
  /** One or more statements; they run as one block inside the transaction. */
  sql: string;
}

export interface MigrationSet {
  schema: string;
  migrations: readonly Migration[];
}

// First key of the two-key advisory lock: Switchboard's own namespace, so the
// lock cannot meet pg-boss's (one-key) locks or another application's.
const LOCK_NAMESPACE = 0x5342_4d47; // "SBMG"

const lockKey = (schema: string) => {
  let h = 0;
  for (const ch of schema) h = (h * 31 + ch.charCodeAt(0)) | 0;
  return h;
};

/** Applies the set's migrations not yet applied, in id order; returns their ids. */
export async function migrate(db: Db, set: MigrationSet): Promise<string[]> {
  if (!/^[a-z_][a-z0-9_]*$/.test(set.schema)) {
    throw new Error(`bad schema name "${set.schema}": lower-case letters, digits and _ only`);
  }
  const ordered = [...set.migrations].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const seen = new Set<string>();
  for (const m of ordered) {
    if (!m.id.trim()) throw new Error(`a migration of schema ${set.schema} has no id`);
    if (seen.has(m.id)) throw new Error(`migration id ${m.id} appears twice in schema ${set.schema}`);
    seen.add(m.id);
  }

  // Every start after the first: all applied already, seen in one read, without
  // the transaction, the lock and the DDL below (docs/memory.md, "Start-up").
  const applied = await db
    .query<{ id: string }>(`select id from ${set.schema}.migrations`)
    .then((r) => r.rows.map((row) => row.id))
    .catch(() => undefined); // no such table yet: the full path creates it
  if (applied && applied.length === seen.size && applied.every((id) => seen.has(id))) return [];

  return db.transaction(async (tx) => {
    // Held until commit: a second process waits here, then finds the work done.
    await tx.query("select pg_advisory_xact_lock($1, $2)", [LOCK_NAMESPACE, lockKey(set.schema)]);
    await tx.exec(
      `create schema if not exists ${set.schema};
       create table if not exists ${set.schema}.migrations (
         id text primary key,
         applied_at timestamptz not null default now()
       );`,
    );
    const done = new Set(
      (await tx.query<{ id: string }>(`select id from ${set.schema}.migrations`)).rows.map((r) => r.id),
    );
    const unknown = [...done].filter((id) => !seen.has(id));
    if (unknown.length) {
      throw new Error(
        `schema ${set.schema} has migrations this version does not know (${unknown.join(", ")}): ` +
          "the database was made by a newer Switchboard, or a migration was renamed",
      );
    }
    const applied: string[] = [];
    for (const m of ordered) {
      if (done.has(m.id)) continue;
      try {
        await tx.exec(m.sql);
      } catch (err) {
        throw new Error(`migration ${set.schema}/${m.id} failed: ${(err as Error).message}`, { cause: err });
      }
      await tx.query(`insert into ${set.schema}.migrations (id) values ($1)`, [m.id]);
      applied.push(m.id);
    }
    return applied;
  });
}
