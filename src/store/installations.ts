// Schema `workspaces`: the Slack installations of a distributed Switchboard
// (docs/workspaces.md), each workspace's API key and the workspaces that left.
//
// - An installation is keyed by enterprise id, team id and whether it is
//   org-wide: an org-wide install (Enterprise Grid) is the enterprise's row,
//   team id '' (keying by enterprise alone would let one workspace's install
//   answer for another's, bolt-js #1510); a workspace's own install is found by
//   its team id alone, team ids being unique across Slack.
// - Bot, refresh and user tokens and API keys are kept sealed (src/platform/secrets.ts),
//   each bound to its column and row; a value the previous key sealed is
//   sealed again with the current one when read (or by resealAll()).
// - installed_at: an `app_uninstalled` or `tokens_revoked` older than the
//   current installation is a late one about an earlier install and is ignored
//   (bolt-js #1203, #673, #1558).
// - withBotTokens() holds the row's lock (SELECT … FOR UPDATE) while a refresh
//   token is spent, so two processes never spend the same one.
import type { Keyring } from "../platform/secrets.ts";
import type { Db, Queryable, Tx } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const WORKSPACES_MIGRATIONS: MigrationSet = {
  schema: "workspaces",
  migrations: [
    {
      id: "001_installations",
      sql: `
        create table workspaces.installations (
          enterprise_id text not null default '',
          team_id text not null default '',
          is_enterprise_install boolean not null,
          enterprise_name text,
          enterprise_url text,
          team_name text,
          app_id text,
          installer_user_id text not null,
          bot_id text,
          bot_user_id text,
          bot_scopes text[],
          bot_token text,
          bot_refresh_token text,
          bot_token_expires_at timestamptz,
          user_scopes text[],
          user_token text,
          user_refresh_token text,
          user_token_expires_at timestamptz,
          metadata text,
          installed_at timestamptz not null,
          updated_at timestamptz not null default now(),
          primary key (enterprise_id, team_id, is_enterprise_install),
          check (is_enterprise_install = (team_id = '')),
          check (not is_enterprise_install or enterprise_id <> '')
        );
        create unique index installations_team on workspaces.installations (team_id) where not is_enterprise_install;
        create table workspaces.connections (
          team_id text primary key,
          enterprise_id text not null default '',
          api_key text not null,
          organization_name text not null,
          key_scopes text[],
          connected_by text not null,
          connected_at timestamptz not null
        );
        create index connections_enterprise on workspaces.connections (enterprise_id);
        create table workspaces.departures (
          enterprise_id text not null default '',
          team_id text not null default '',
          is_enterprise_install boolean not null,
          uninstalled_at timestamptz not null,
          primary key (enterprise_id, team_id, is_enterprise_install)
        );`,
    },
    {
      // Settings a workspace changed from Slack (src/store/workspace-settings.ts), one row per setting.
      id: "002_settings",
      sql: `
        create table workspaces.settings (
          team_id text not null,
          name text not null,
          value jsonb not null,
          changed_by text not null,
          changed_at timestamptz not null,
          primary key (team_id, name)
        );`,
    },
    {
      // An org-wide install's departure names the workspaces whose records go after the retention.
      id: "003_departure_teams",
      sql: "alter table workspaces.departures add column teams text[] not null default '{}'",
    },
  ],
};

/** Which installation: a workspace's own (team id), or an org-wide one (enterprise id). */
export type InstallationKey =
  | { isEnterpriseInstall: false; teamId: string; enterpriseId?: string }
  | { isEnterpriseInstall: true; enterpriseId: string };

export interface BotTokens {
  token: string;
  refreshToken?: string;
  /** Unset: the token does not expire (token rotation off). */
  expiresAt?: Date;
}

export interface Installation {
  isEnterpriseInstall: boolean;
  enterpriseId?: string;
  enterpriseName?: string;
  enterpriseUrl?: string;
  /** Unset for an org-wide install. */
  teamId?: string;
  teamName?: string;
  appId?: string;
  /** Who installed it. */
  installerUserId: string;
  bot?: BotTokens & { id: string; userId: string; scopes: string[] };
  /** The installer's own token, when the app asks for user scopes. */
  user?: { token: string; refreshToken?: string; expiresAt?: Date; scopes: string[] };
  metadata?: string;
}

export interface StoredInstallation extends Installation {
  installedAt: Date;
}

/** A workspace's messaging API account: its key (kept sealed) and the organization /me named. */
export interface Connection {
  teamId: string;
  enterpriseId?: string;
  apiKey: string;
  organizationName: string;
  keyScopes?: string[];
  connectedBy: string;
  connectedAt: Date;
}

export interface Departure {
  key: InstallationKey;
  uninstalledAt: Date;
  /** The workspaces whose records go after the retention (an org-wide install's: its connected ones). */
  teams: string[];
}

/** What a late-proof removal did: `stale` when the event is older than the current installation. */
export type RemovalOutcome = "removed" | "absent" | "stale";

interface InstallationRow {
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

const SEALED = ["bot_token", "bot_refresh_token", "user_token", "user_refresh_token"] as const;
type SealedColumn = (typeof SEALED)[number];

/** The row's primary key, as SQL and parameters starting at $1. */
function rowKey(key: InstallationKey): { where: string; params: unknown[] } {
  return key.isEnterpriseInstall
    ? { where: "enterprise_id = $1 and team_id = '' and is_enterprise_install", params: [key.enterpriseId] }
    : { where: "team_id = $1 and not is_enterprise_install", params: [key.teamId] };
}

const keyOfRow = (r: { enterprise_id: string; team_id: string; is_enterprise_install: boolean }) =>
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
const contextOf = (
  column: string,
  r: { enterprise_id: string; team_id: string; is_enterprise_install: boolean },
) =>
  `workspaces.installations.${column}:${r.enterprise_id}:${r.team_id}:${r.is_enterprise_install ? "org" : "team"}`;
const connectionContext = (teamId: string) => `workspaces.connections.api_key:${teamId}`;

const orUndefined = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

export class Installations {
  private readonly db: Db;
  private readonly keyring: Keyring;
  private readonly now: () => Date;

  private constructor(db: Db, keyring: Keyring, now: () => Date) {
    this.db = db;
    this.keyring = keyring;
    this.now = now;
  }

  /** The store over a database the registry migrated (src/store/migrations.ts). */
  static async open(db: Db, keyring: Keyring, opts: { now?: () => Date } = {}): Promise<Installations> {
    return new Installations(db, keyring, opts.now ?? (() => new Date()));
  }

  // ------------------------------------------------------------ installations

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

  /**
   * `tokens_revoked`: forgets the bot token when its bot user is named, the
   * installer's user token when the installer is; the installation stays. A
   * late event (older than the installation) removes nothing.
   */
  async revokeTokens(
    key: InstallationKey,
    revoked: { botUserIds?: readonly string[]; userIds?: readonly string[] },
    eventTime: Date,
  ): Promise<RemovalOutcome> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, key);
      if (!row) return "absent";
      if (isLate(eventTime, row.installed_at)) return "stale";
      const bot = !!row.bot_user_id && (revoked.botUserIds ?? []).includes(row.bot_user_id);
      const user = (revoked.userIds ?? []).includes(row.installer_user_id);
      const sets = [
        ...(bot ? ["bot_token = null, bot_refresh_token = null, bot_token_expires_at = null"] : []),
        ...(user ? ["user_token = null, user_refresh_token = null, user_token_expires_at = null"] : []),
      ];
      if (!sets.length) return "absent";
      const k = rowKey(key);
      await tx.query(
        `update workspaces.installations set ${sets.join(", ")}, updated_at = now() where ${k.where}`,
        k.params,
      );
      return "removed";
    });
  }

  /**
   * Runs `fn` with the installation's bot tokens while holding its row lock
   * (SELECT … FOR UPDATE: a second process waits, then sees what the first
   * wrote). When `fn` returns new tokens they are sealed and kept before the
   * lock goes. `fn` must not use the store: the lock's transaction is open.
   */
  async withBotTokens<T>(
    key: InstallationKey,
    fn: (bot: BotTokens | undefined) => Promise<{ replace?: BotTokens; result: T }>,
  ): Promise<T> {
    return this.db.transaction(async (tx) => {
      const row = await this.lockRow(tx, key);
      const bot = row ? this.fromRow(row).bot : undefined;
      const { replace, result } = await fn(
        bot && { token: bot.token, refreshToken: bot.refreshToken, expiresAt: bot.expiresAt },
      );
      if (replace && row) {
        const k = rowKey(key);
        const n = k.params.length;
        await tx.query(
          `update workspaces.installations
             set bot_token = $${n + 1}, bot_refresh_token = $${n + 2}, bot_token_expires_at = $${n + 3}, updated_at = now()
           where ${k.where}`,
          [
            ...k.params,
            this.keyring.seal(replace.token, contextOf("bot_token", row)),
            replace.refreshToken === undefined
              ? null
              : this.keyring.seal(replace.refreshToken, contextOf("bot_refresh_token", row)),
            replace.expiresAt ?? null,
          ],
        );
      }
      return result;
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

  // ------------------------------------------------------------ API keys

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

  /** Readiness: installations, connected workspaces, and installations without a usable bot token. */
  async counts(): Promise<{ installed: number; connected: number; failing: number }> {
    const { rows } = await this.db.query<{ installed: number; connected: number; failing: number }>(
      `select (select count(*)::int from workspaces.installations) as installed,
              (select count(*)::int from workspaces.connections) as connected,
              (select count(*)::int from workspaces.installations
                where bot_token is null
                   or (bot_token_expires_at is not null and bot_token_expires_at < now())) as failing`,
    );
    return rows[0] ?? { installed: 0, connected: 0, failing: 0 };
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

  // ------------------------------------------------------------ key rotation

  /** Seals again, with the current key, every value the previous key sealed; returns how many rows changed. */
  async resealAll(): Promise<number> {
    let changed = 0;
    const { rows } = await this.db.query<InstallationRow>("select * from workspaces.installations");
    for (const row of rows) if (await this.resealRow(this.db, row)) changed += 1;
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

  // ------------------------------------------------------------ rows

  private async lockRow(tx: Tx, key: InstallationKey): Promise<InstallationRow | undefined> {
    const k = rowKey(key);
    const { rows } = await tx.query<InstallationRow>(
      `select * from workspaces.installations where ${k.where} for update`,
      k.params,
    );
    return rows[0];
  }

  /** Rewrites the row's stale sealed values, each only if no one changed it since it was read. */
  private async resealRow(db: Queryable, row: InstallationRow): Promise<boolean> {
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

  private fromRow(r: InstallationRow): StoredInstallation {
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

/** Slack's event_time is in whole seconds: an event from the second of the install, or later, counts. */
const isLate = (eventTime: Date, installedAt: Date) =>
  eventTime.getTime() < Math.floor(installedAt.getTime() / 1000) * 1000;
