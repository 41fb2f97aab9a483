// Installations: one per workspace, or per enterprise when org-wide; a
// reinstall replaces the earlier one.
import {
  contextOf,
  type InstallationRow,
  InstallationsTable,
  keyOfRow,
  rowKey,
  type SealedColumn,
} from "./rows.ts";
import type { Installation, InstallationKey, StoredInstallation } from "./types.ts";

export class Installs extends InstallationsTable {
  /**
   * Keeps an installation, replacing the workspace's (or org's) earlier one;
   * installed_at is now. A reinstall forgets that the workspace had left.
   */
  async save(inst: Installation): Promise<StoredInstallation> {
    const row = {
      enterprise_id: inst.enterpriseId ?? "",
      team_id: inst.isEnterpriseInstall ? "" : (inst.teamId ?? ""),
      is_enterprise_install: inst.isEnterpriseInstall,
    };
    if (row.is_enterprise_install ? !row.enterprise_id : !row.team_id) {
      throw new Error("an installation needs its team id, or its enterprise id when org-wide");
    }
    const key = keyOfRow(row);
    const seal = (column: SealedColumn, value: string | undefined) =>
      value === undefined ? null : this.keyring.seal(value, contextOf(column, row));
    const installedAt = this.now();
    await this.db.transaction(async (tx) => {
      const k = rowKey(key);
      await tx.query(`delete from workspaces.installations where ${k.where}`, k.params);
      await tx.query(`delete from workspaces.departures where ${k.where}`, k.params);
      await tx.query(
        `insert into workspaces.installations (
           enterprise_id, team_id, is_enterprise_install, enterprise_name, enterprise_url, team_name, app_id,
           installer_user_id, bot_id, bot_user_id, bot_scopes, bot_token, bot_refresh_token, bot_token_expires_at,
           user_scopes, user_token, user_refresh_token, user_token_expires_at, metadata, installed_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
        [
          row.enterprise_id,
          row.team_id,
          row.is_enterprise_install,
          inst.enterpriseName ?? null,
          inst.enterpriseUrl ?? null,
          inst.isEnterpriseInstall ? null : (inst.teamName ?? null),
          inst.appId ?? null,
          inst.installerUserId,
          inst.bot?.id ?? null,
          inst.bot?.userId ?? null,
          inst.bot?.scopes ?? null,
          seal("bot_token", inst.bot?.token),
          seal("bot_refresh_token", inst.bot?.refreshToken),
          inst.bot?.expiresAt ?? null,
          inst.user?.scopes ?? null,
          seal("user_token", inst.user?.token),
          seal("user_refresh_token", inst.user?.refreshToken),
          inst.user?.expiresAt ?? null,
          inst.metadata ?? null,
          installedAt,
        ],
      );
    });
    return { ...inst, installedAt };
  }

  /** The installation, tokens opened; values the previous key sealed are sealed again with the current one. */
  async find(key: InstallationKey): Promise<StoredInstallation | undefined> {
    const k = rowKey(key);
    const { rows } = await this.db.query<InstallationRow>(
      `select * from workspaces.installations where ${k.where}`,
      k.params,
    );
    const row = rows[0];
    if (!row) return undefined;
    await this.resealRow(this.db, row);
    return this.fromRow(row);
  }

  /** The installation that serves a workspace: its own, else its enterprise's org-wide one. */
  async forTeam(teamId: string, enterpriseId?: string): Promise<StoredInstallation | undefined> {
    const own = await this.find({ isEnterpriseInstall: false, teamId });
    if (own || !enterpriseId) return own;
    return this.find({ isEnterpriseInstall: true, enterpriseId });
  }

  /** Forgets the installation at once (the OAuth library's deleteInstallation). */
  async remove(key: InstallationKey): Promise<boolean> {
    const k = rowKey(key);
    const r = await this.db.query(`delete from workspaces.installations where ${k.where}`, k.params);
    return r.rowCount > 0;
  }

  /** resealAll's part: the installations' sealed values; returns how many rows changed. */
  async resealAll(): Promise<number> {
    let changed = 0;
    const { rows } = await this.db.query<InstallationRow>("select * from workspaces.installations");
    for (const row of rows) if (await this.resealRow(this.db, row)) changed += 1;
    return changed;
  }
}
