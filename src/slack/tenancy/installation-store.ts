// @slack/oauth's InstallationStore over Switchboard's own store
// (src/store/installations.ts), for the InstallProvider of src/slack/tenancy/oauth.ts.
// fetchInstallation hands out the bot token through the TokenSource (refreshed
// under the store's lock) and never the refresh token: the InstallProvider
// would otherwise refresh on its own, without a lock, and two replicas could
// spend one refresh token twice.
import type { InstallationQuery, InstallationStore, Installation as SlackInstallation } from "@slack/bolt";
import {
  type Installation,
  type InstallationKey,
  type Installations,
  installationKey,
  type StoredInstallation,
} from "../../store/installations.ts";
import { NotInstalledError, type TokenSource } from "./tokens.ts";

const toDate = (seconds: number | undefined) =>
  seconds === undefined ? undefined : new Date(seconds * 1000);
const toSeconds = (d: Date | undefined) => (d === undefined ? undefined : Math.floor(d.getTime() / 1000));

/** The store's key for an OAuth library query: org-wide by enterprise, else by team. */
export function keyOfQuery(query: InstallationQuery<boolean>): InstallationKey {
  if (query.isEnterpriseInstall) {
    if (!query.enterpriseId) throw new NotInstalledError("an org-wide installation needs its enterprise id");
    return { isEnterpriseInstall: true, enterpriseId: query.enterpriseId };
  }
  if (!query.teamId) throw new NotInstalledError("a workspace's installation needs its team id");
  return {
    isEnterpriseInstall: false,
    teamId: query.teamId,
    ...(query.enterpriseId ? { enterpriseId: query.enterpriseId } : {}),
  };
}

/** The OAuth library's installation as Switchboard keeps it. */
export function fromSlack(i: SlackInstallation<"v1" | "v2", boolean>): Installation {
  const org = i.isEnterpriseInstall === true;
  return {
    isEnterpriseInstall: org,
    ...(i.enterprise?.id ? { enterpriseId: i.enterprise.id } : {}),
    ...(i.enterprise?.name ? { enterpriseName: i.enterprise.name } : {}),
    ...(i.enterpriseUrl ? { enterpriseUrl: i.enterpriseUrl } : {}),
    ...(!org && i.team?.id ? { teamId: i.team.id } : {}),
    ...(!org && i.team?.name ? { teamName: i.team.name } : {}),
    ...(i.appId ? { appId: i.appId } : {}),
    installerUserId: i.user.id,
    ...(i.bot
      ? {
          bot: {
            token: i.bot.token,
            ...(i.bot.refreshToken ? { refreshToken: i.bot.refreshToken } : {}),
            ...(i.bot.expiresAt ? { expiresAt: toDate(i.bot.expiresAt) } : {}),
            id: i.bot.id,
            userId: i.bot.userId,
            scopes: i.bot.scopes,
          },
        }
      : {}),
    ...(i.user.token
      ? {
          user: {
            token: i.user.token,
            ...(i.user.refreshToken ? { refreshToken: i.user.refreshToken } : {}),
            ...(i.user.expiresAt ? { expiresAt: toDate(i.user.expiresAt) } : {}),
            scopes: i.user.scopes ?? [],
          },
        }
      : {}),
    ...(i.metadata ? { metadata: i.metadata } : {}),
  };
}

/** Switchboard's installation as the OAuth library reads it; the bot token given, never a refresh token. */
function toSlack(
  s: StoredInstallation,
  botToken: string | undefined,
  userId?: string,
): SlackInstallation<"v2", boolean> {
  // The installer's own token only for the installer.
  const user = s.user && (userId === undefined || userId === s.installerUserId) ? s.user : undefined;
  return {
    team:
      s.isEnterpriseInstall || !s.teamId
        ? undefined
        : { id: s.teamId, ...(s.teamName ? { name: s.teamName } : {}) },
    enterprise: s.enterpriseId
      ? { id: s.enterpriseId, ...(s.enterpriseName ? { name: s.enterpriseName } : {}) }
      : undefined,
    user: {
      id: s.installerUserId,
      token: user?.token,
      scopes: user?.scopes,
      ...(user?.expiresAt ? { expiresAt: toSeconds(user.expiresAt) } : {}),
    },
    ...(s.bot && botToken
      ? { bot: { token: botToken, scopes: s.bot.scopes, id: s.bot.id, userId: s.bot.userId } }
      : {}),
    ...(s.appId ? { appId: s.appId } : {}),
    ...(s.enterpriseUrl ? { enterpriseUrl: s.enterpriseUrl } : {}),
    tokenType: "bot",
    isEnterpriseInstall: s.isEnterpriseInstall,
    authVersion: "v2",
    ...(s.metadata ? { metadata: s.metadata } : {}),
  };
}

export function installationStore(installations: Installations, tokens: TokenSource): InstallationStore {
  return {
    async storeInstallation(installation) {
      await installations.save(fromSlack(installation));
    },
    async fetchInstallation(query) {
      const key = keyOfQuery(query);
      // A workspace of an enterprise that installed the app org-wide is served by the org's installation.
      const found = key.isEnterpriseInstall
        ? await installations.find(key)
        : await installations.forTeam(key.teamId, key.enterpriseId);
      if (!found) throw new NotInstalledError("Switchboard is not installed in this workspace");
      const botToken = found.bot ? await tokens.botToken(installationKey(found)) : undefined;
      return toSlack(found, botToken, query.userId);
    },
    async deleteInstallation(query) {
      await installations.remove(keyOfQuery(query));
    },
  };
}
