// Workspaces that left (`app_uninstalled`): the installation and its API keys
// go at once, the departure is kept until the workspace's records are removed.
import { InstallationsTable, isLate, keyOfRow, rowKey } from "./rows.ts";
import type { Departure, InstallationKey, RemovalOutcome } from "./types.ts";

export class Departures extends InstallationsTable {
  /**
   * `app_uninstalled`: the installation, its tokens and the API keys of its
   * workspaces go; the departure is kept for UNINSTALL_RETENTION_DAYS. An event
   * older than the current installation (Slack's event_time, whole seconds) is
   * about an earlier install: nothing is removed.
   */
  async uninstall(key: InstallationKey, eventTime: Date): Promise<RemovalOutcome> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, key);
      if (!row) return "absent";
      if (isLate(eventTime, row.installed_at)) return "stale";
      const k = rowKey(key);
      await tx.query(`delete from workspaces.installations where ${k.where}`, k.params);
      // The workspaces whose records go after the retention: the team, or the org's connected ones.
      let teams = [row.team_id];
      if (row.is_enterprise_install) {
        const gone = await tx.query<{ team_id: string }>(
          "delete from workspaces.connections where enterprise_id = $1 returning team_id",
          [row.enterprise_id],
        );
        teams = gone.rows.map((r) => r.team_id);
      } else await tx.query("delete from workspaces.connections where team_id = $1", [row.team_id]);
      await tx.query(
        `insert into workspaces.departures (enterprise_id, team_id, is_enterprise_install, uninstalled_at, teams)
         values ($1, $2, $3, $4, $5)
         on conflict (enterprise_id, team_id, is_enterprise_install)
         do update set uninstalled_at = excluded.uninstalled_at,
                       teams = (select array_agg(distinct t) from unnest(workspaces.departures.teams || excluded.teams) t)`,
        [row.enterprise_id, row.team_id, row.is_enterprise_install, this.now(), teams],
      );
      return "removed";
    });
  }

  /** Workspaces that left before `cutoff`: their records are due for removal. */
  async departedBefore(cutoff: Date): Promise<Departure[]> {
    const { rows } = await this.db.query<{
      enterprise_id: string;
      team_id: string;
      is_enterprise_install: boolean;
      uninstalled_at: Date;
      teams: string[];
    }>("select * from workspaces.departures where uninstalled_at < $1 order by uninstalled_at", [cutoff]);
    return rows.map((r) => ({
      key: keyOfRow(r),
      uninstalledAt: r.uninstalled_at,
      teams: r.teams.filter(Boolean),
    }));
  }

  /** Once a departed workspace's records are removed. */
  async forgetDeparture(key: InstallationKey): Promise<void> {
    const k = rowKey(key);
    await this.db.query(`delete from workspaces.departures where ${k.where}`, k.params);
  }
}
