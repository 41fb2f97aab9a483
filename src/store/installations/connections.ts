// A workspace's messaging API account: its key, kept sealed, and the
// organization it opens.
import { connectionContext, InstallationsTable } from "./rows.ts";
import type { Connection } from "./types.ts";

export class Connections extends InstallationsTable {
  /** Keeps a workspace's API key (sealed) and the organization it opens, replacing an earlier one. */
  async connect(c: Omit<Connection, "connectedAt">): Promise<Connection> {
    const connectedAt = this.now();
    await this.db.query(
      `insert into workspaces.connections
         (team_id, enterprise_id, api_key, organization_name, key_scopes, connected_by, connected_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (team_id) do update set
         enterprise_id = excluded.enterprise_id, api_key = excluded.api_key,
         organization_name = excluded.organization_name, key_scopes = excluded.key_scopes,
         connected_by = excluded.connected_by, connected_at = excluded.connected_at`,
      [
        c.teamId,
        c.enterpriseId ?? "",
        this.keyring.seal(c.apiKey, connectionContext(c.teamId)),
        c.organizationName,
        c.keyScopes ?? null,
        c.connectedBy,
        connectedAt,
      ],
    );
    return { ...c, connectedAt };
  }

  async connection(teamId: string): Promise<Connection | undefined> {
    const { rows } = await this.db.query<{
      team_id: string;
      enterprise_id: string;
      api_key: string;
      organization_name: string;
      key_scopes: string[] | null;
      connected_by: string;
      connected_at: Date;
    }>("select * from workspaces.connections where team_id = $1", [teamId]);
    const r = rows[0];
    if (!r) return undefined;
    const opened = this.keyring.open(r.api_key, connectionContext(r.team_id));
    if (opened.stale) {
      await this.db.query(
        "update workspaces.connections set api_key = $2 where team_id = $1 and api_key = $3",
        [r.team_id, this.keyring.seal(opened.value, connectionContext(r.team_id)), r.api_key],
      );
    }
    return {
      teamId: r.team_id,
      ...(r.enterprise_id ? { enterpriseId: r.enterprise_id } : {}),
      apiKey: opened.value,
      organizationName: r.organization_name,
      ...(r.key_scopes ? { keyScopes: r.key_scopes } : {}),
      connectedBy: r.connected_by,
      connectedAt: r.connected_at,
    };
  }

  /** The team ids of every workspace with a messaging account. */
  async connectedTeams(): Promise<string[]> {
    const { rows } = await this.db.query<{ team_id: string }>(
      "select team_id from workspaces.connections order by team_id",
    );
    return rows.map((r) => r.team_id);
  }

  /** The connected workspaces of an enterprise (an org-wide install's). */
  async connectedTeamsOf(enterpriseId: string): Promise<string[]> {
    const { rows } = await this.db.query<{ team_id: string }>(
      "select team_id from workspaces.connections where enterprise_id = $1 order by team_id",
      [enterpriseId],
    );
    return rows.map((r) => r.team_id);
  }

  /** Forgets a workspace's API key; true when there was one. */
  async disconnect(teamId: string): Promise<boolean> {
    const r = await this.db.query("delete from workspaces.connections where team_id = $1", [teamId]);
    return r.rowCount > 0;
  }

  /** resealAll's part: the API keys the previous key sealed; returns how many changed. */
  async resealAll(): Promise<number> {
    let changed = 0;
    const conns = await this.db.query<{ team_id: string; api_key: string }>(
      "select team_id, api_key from workspaces.connections",
    );
    for (const c of conns.rows) {
      if (!this.keyring.isStale(c.api_key)) continue;
      await this.connection(c.team_id);
      changed += 1;
    }
    return changed;
  }
}
