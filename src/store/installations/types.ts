// What schema `workspaces` keeps, as the rest of Switchboard reads it: an
// installation and its key, a workspace's connection, a departure.
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
