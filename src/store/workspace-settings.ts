// Schema `workspaces`, table `settings` (migration 002_settings in
// installations.ts): the settings a workspace changed from Slack (`/sb
// settings`), one row per setting, with who changed it and when. A setting
// without a row takes the environment's value (single mode) or the default.
// Values are checked before they get here (src/commands/workspace-admin.ts).
import type { Db } from "./db.ts";

export interface StoredSetting {
  value: unknown;
  changedBy: string;
  changedAt: Date;
}

export class WorkspaceSettings {
  private readonly db: Db;

  constructor(db: Db) {
    this.db = db;
  }

  /** The workspace's changed settings, by name. */
  async all(teamId: string): Promise<Map<string, StoredSetting>> {
    const { rows } = await this.db.query<{
      name: string;
      value: unknown;
      changed_by: string;
      changed_at: Date;
    }>("select name, value, changed_by, changed_at from workspaces.settings where team_id = $1", [teamId]);
    return new Map(
      rows.map((r) => [
        r.name,
        { value: r.value, changedBy: r.changed_by, changedAt: new Date(r.changed_at) },
      ]),
    );
  }

  /**
   * Keeps the values (a JSON value each) and forgets those given as `undefined`
   * (back to the environment's or the default), all or none.
   */
  async save(teamId: string, values: Record<string, unknown>, by: string, at: Date): Promise<void> {
    await this.db.transaction(async (tx) => {
      for (const [name, value] of Object.entries(values)) {
        if (value === undefined) {
          await tx.query("delete from workspaces.settings where team_id = $1 and name = $2", [teamId, name]);
          continue;
        }
        await tx.query(
          `insert into workspaces.settings (team_id, name, value, changed_by, changed_at)
           values ($1, $2, $3::jsonb, $4, $5)
           on conflict (team_id, name) do update set
             value = excluded.value, changed_by = excluded.changed_by, changed_at = excluded.changed_at`,
          [teamId, name, JSON.stringify(value), by, at],
        );
      }
    });
  }

  /** Forgets every setting of a workspace (its records' purge). */
  async forget(teamId: string): Promise<number> {
    const r = await this.db.query("delete from workspaces.settings where team_id = $1", [teamId]);
    return r.rowCount;
  }
}
