// The rows of schema `workspaces`: their keys, what each sealed value is bound
// to, and the base of the tables' classes (an installation's row locked,
// sealed again with the current key, opened).
import type { Keyring } from "../../platform/secrets.ts";
import type { Db, Queryable, Tx } from "../db.ts";
import type { Installation, InstallationKey, StoredInstallation } from "./types.ts";

export interface InstallationRow {
  enterprise_id: string;
  team_id: string;
  is_enterprise_install: boolean;
  enterprise_name: string | null;
  enterprise_url: string | null;
  team_name: string | null;
  app_id: string | null;
  installer_user_id: string;
  bot_id: string | null;
  bot_user_id: string | null;
  bot_scopes: string[] | null;
  bot_token: string | null;
  bot_refresh_token: string | null;
  bot_token_expires_at: Date | null;
  user_scopes: string[] | null;
  user_token: string | null;
  user_refresh_token: string | null;
  user_token_expires_at: Date | null;
  metadata: string | null;
  installed_at: Date;
}

export const SEALED = ["bot_token", "bot_refresh_token", "user_token", "user_refresh_token"] as const;
export type SealedColumn = (typeof SEALED)[number];

/** The row's primary key, as SQL and parameters starting at $1. */
export function rowKey(key: InstallationKey): { where: string; params: unknown[] } {
  return key.isEnterpriseInstall
    ? { where: "enterprise_id = $1 and team_id = '' and is_enterprise_install", params: [key.enterpriseId] }
    : { where: "team_id = $1 and not is_enterprise_install", params: [key.teamId] };
}

export const keyOfRow = (r: { enterprise_id: string; team_id: string; is_enterprise_install: boolean }) =>
  (r.is_enterprise_install
    ? { isEnterpriseInstall: true, enterpriseId: r.enterprise_id }
    : {
        isEnterpriseInstall: false,
        teamId: r.team_id,
        ...(r.enterprise_id ? { enterpriseId: r.enterprise_id } : {}),
      }) as InstallationKey;

/** The key of a stored installation: its org's when org-wide, else its workspace's. */
export const installationKey = (i: Pick<Installation, "isEnterpriseInstall" | "enterpriseId" | "teamId">) =>
  keyOfRow({
    enterprise_id: i.enterpriseId ?? "",
    team_id: i.teamId ?? "",
    is_enterprise_install: i.isEnterpriseInstall,
  });

/** What a sealed value is bound to: its column and its row. */
export const contextOf = (
  column: string,
  r: { enterprise_id: string; team_id: string; is_enterprise_install: boolean },
) =>
  `workspaces.installations.${column}:${r.enterprise_id}:${r.team_id}:${r.is_enterprise_install ? "org" : "team"}`;
export const connectionContext = (teamId: string) => `workspaces.connections.api_key:${teamId}`;

export const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

/** Slack's event_time is in whole seconds: an event from the second of the install, or later, counts. */
export const isLate = (eventTime: Date, installedAt: Date) =>
  eventTime.getTime() < Math.floor(installedAt.getTime() / 1000) * 1000;

export class InstallationsTable {
  protected readonly db: Db;
  protected readonly keyring: Keyring;
  protected readonly now: () => Date;

  constructor(db: Db, keyring: Keyring, now: () => Date) {
    this.db = db;
    this.keyring = keyring;
    this.now = now;
  }

  protected async lockRow(tx: Tx, key: InstallationKey): Promise<InstallationRow | undefined> {
    const k = rowKey(key);
    const { rows } = await tx.query<InstallationRow>(
      `select * from workspaces.installations where ${k.where} for update`,
      k.params,
    );
    return rows[0];
  }

  /** Rewrites the row's stale sealed values, each only if no one changed it since it was read. */
  protected async resealRow(db: Queryable, row: InstallationRow): Promise<boolean> {
    const stale = SEALED.filter((c) => row[c] !== null && this.keyring.isStale(row[c]!));
    for (const column of stale) {
      const value = this.keyring.open(row[column]!, contextOf(column, row)).value;
      const k = rowKey(keyOfRow(row));
      await db.query(
        `update workspaces.installations set ${column} = $${k.params.length + 1}
         where ${k.where} and ${column} = $${k.params.length + 2}`,
        [...k.params, this.keyring.seal(value, contextOf(column, row)), row[column]],
      );
    }
    return stale.length > 0;
  }

  protected fromRow(r: InstallationRow): StoredInstallation {
    const open = (column: SealedColumn) => {
      const v = r[column];
      return v === null ? undefined : this.keyring.open(v, contextOf(column, r)).value;
    };
    const botToken = open("bot_token");
    const userToken = open("user_token");
    return {
      isEnterpriseInstall: r.is_enterprise_install,
      ...(r.enterprise_id ? { enterpriseId: r.enterprise_id } : {}),
      ...(r.enterprise_name ? { enterpriseName: r.enterprise_name } : {}),
      ...(r.enterprise_url ? { enterpriseUrl: r.enterprise_url } : {}),
      ...(r.team_id ? { teamId: r.team_id } : {}),
      ...(r.team_name ? { teamName: r.team_name } : {}),
      ...(r.app_id ? { appId: r.app_id } : {}),
      installerUserId: r.installer_user_id,
      ...(botToken !== undefined && r.bot_id && r.bot_user_id
        ? {
            bot: {
              token: botToken,
              refreshToken: open("bot_refresh_token"),
              expiresAt: orUndefined(r.bot_token_expires_at),
              id: r.bot_id,
              userId: r.bot_user_id,
              scopes: r.bot_scopes ?? [],
            },
          }
        : {}),
      ...(userToken !== undefined
        ? {
            user: {
              token: userToken,
              refreshToken: open("user_refresh_token"),
              expiresAt: orUndefined(r.user_token_expires_at),
              scopes: r.user_scopes ?? [],
            },
          }
        : {}),
      ...(r.metadata !== null ? { metadata: r.metadata } : {}),
      installedAt: r.installed_at,
    };
  }
}
