import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";

export const CHANNEL_MIGRATIONS: MigrationSet = {
  schema: "channels",
  migrations: [
    {
      id: "001_names",
      sql: `
create table channels.names (
  id integer primary key,
  name text not null,
  named_by text,
  named_at timestamptz not null default now()
)
`,
    },
    {
      // A channel id is a number of one API account: names are per workspace.
      id: "002_workspace",
      sql: `
alter table channels.names add column workspace text not null default 'env'
;
alter table channels.names alter column workspace drop default
;
alter table channels.names drop constraint names_pkey, add primary key (workspace, id)
`,
    },
  ],
};

export class ChannelNames extends PerWorkspace {
  /** Every named channel, by id (a local read: no cache, so another process's rename shows at once). */
  async all(): Promise<Map<number, string>> {
    const r = await dbOf(this).query<{ id: number; name: string }>(
      "select id, name from channels.names where workspace = $1 order by id",
      [this.workspace],
    );
    return new Map(r.rows.map((row) => [Number(row.id), String(row.name)]));
  }

  async name(id: number): Promise<string | undefined> {
    return (await this.all()).get(id);
  }

  /** Names (or renames) one channel; returns the name it had. */
  async set(id: number, name: string, by: string): Promise<string | undefined> {
    const before = await this.name(id);
    await dbOf(this).query(
      `insert into channels.names (workspace, id, name, named_by, named_at) values ($4, $1, $2, $3, now())
       on conflict (workspace, id) do update set name = excluded.name, named_by = excluded.named_by, named_at = now()`,
      [id, name, by, this.workspace],
    );
    return before;
  }

  /** Names channels that have no name yet (settings, the sandbox); a person's name is kept. */
  async seed(names: ReadonlyMap<number, string>, by: string): Promise<void> {
    for (const [id, name] of names) {
      await dbOf(this).query(
        `insert into channels.names (workspace, id, name, named_by) values ($4, $1, $2, $3)
         on conflict (workspace, id) do nothing`,
        [id, name, by, this.workspace],
      );
    }
  }
}
