// The store's public face: open the database named by the settings, run the
// given migration sets, and start the job queue on it.
export { asBossDb, type BossDb, type BossOptions, createBoss } from "./boss.ts";
export {
  DatabaseUnavailableError,
  type Db,
  type OpenDbOptions,
  openDb,
  type Queryable,
  type QueryResult,
  redactUrl,
  type Tx,
} from "./db.ts";
export { type Migration, type MigrationSet, migrate } from "./migrate.ts";

import { type Db, openDb } from "./db.ts";
import { type MigrationSet, migrate } from "./migrate.ts";

/** Opens DATABASE_URL's server, else PGlite under DATA_DIR, and brings every set up to date. */
export async function openStore(
  settings: { DATABASE_URL?: string; DATA_DIR: string },
  sets: readonly MigrationSet[],
): Promise<Db> {
  const db = await openDb({ databaseUrl: settings.DATABASE_URL, dataDir: settings.DATA_DIR });
  try {
    for (const set of sets) await migrate(db, set);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}
