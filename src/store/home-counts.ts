// Schema `home`: the Home tab's last count of the running campaigns, per
// workspace (issue 39 §2). Counting takes a while (1 list + 7 reads a
// campaign, in the background lane: seconds, more in a provider's workspace),
// so the tab shows the last figures at once, with their time, and is
// published again when the new count arrives. Kept in the store, not in
// memory, so another replica or a restarted process shows them at once too.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const HOME_MIGRATIONS: MigrationSet = {
  schema: "home",
  migrations: [
    {
      id: "001_last_counts",
      sql: `
create table home.last_counts (
  workspace text primary key,
  figures jsonb not null,
  counted_at timestamptz not null
)
`,
    },
  ],
};

export interface LastCount<T> {
  figures: T;
  countedAt: Date;
}

export class HomeCounts<T> {
  readonly #db: Queryable;
  readonly workspace: WorkspaceId;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.#db = db;
    this.workspace = workspace;
  }

  /** The last count kept for the workspace, or undefined. */
  async last(): Promise<LastCount<T> | undefined> {
    const r = await this.#db.query<{ figures: unknown; counted_at: Date | string }>(
      "select figures, counted_at from home.last_counts where workspace = $1",
      [this.workspace],
    );
    const row = r.rows[0];
    if (!row) return undefined;
    const figures = (typeof row.figures === "string" ? JSON.parse(row.figures) : row.figures) as T;
    return { figures, countedAt: row.counted_at instanceof Date ? row.counted_at : new Date(row.counted_at) };
  }

  /** Keeps a count; an older one (a slower replica's) never replaces a newer. */
  async keep(figures: T, countedAt: Date): Promise<void> {
    await this.#db.query(
      `insert into home.last_counts (workspace, figures, counted_at) values ($1, $2::jsonb, $3)
       on conflict (workspace) do update set figures = excluded.figures, counted_at = excluded.counted_at
       where home.last_counts.counted_at <= excluded.counted_at`,
      [this.workspace, JSON.stringify(figures), countedAt],
    );
  }
}
