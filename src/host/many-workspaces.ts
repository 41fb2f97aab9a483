import type { webApi } from "@slack/bolt";
import type { CommandCore } from "../commands/types.ts";
import type { WorkspaceAdmin } from "../commands/workspace-admin.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { type Config, slackMode } from "../platform/config.ts";
import { ConfigError } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { InstallationsFront } from "../slack/app.ts";
import type { TokenSource } from "../slack/tenancy/tokens.ts";
import type { StoredInstallation } from "../store/installations.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import { storedInstallations } from "../workspaces/installations.ts";
import { composeWorkspaces, type Deployment, type SourceParts } from "./compose.ts";
import type { SwitchboardOptions } from "./parts.ts";

/** A many-workspace deployment: the one composition (compose.ts) with the store's installations. */
export interface ManyWorkspaceSwitchboard extends Deployment {
  tokens: TokenSource;
  /** A workspace's bot client, its token from the TokenSource at each call (no runtime built). */
  clientOf(workspace: WorkspaceId): webApi.WebClient;
  /** The core of a workspace without a messaging account: how to connect, and who can. */
  notConnected: (
    id: WorkspaceId,
    installation: StoredInstallation | undefined,
    stores: WorkspaceStores,
  ) => CommandCore;
}

/**
 * Many workspaces ("Add to Slack"): the one composition (compose.ts) whose installations are the store's
 * (tokens and API keys sealed with SWITCHBOARD_SECRET_KEY), through the token source. No workspace is built
 * until it makes a request.
 */
export async function createManyWorkspaceSwitchboard(
  config: Config,
  deps: SwitchboardOptions,
): Promise<ManyWorkspaceSwitchboard> {
  const { logger } = deps;
  if (slackMode(config) !== "many")
    throw new ConfigError("many-workspace mode needs SLACK_CLIENT_ID and SLACK_CLIENT_SECRET");
  let many: Pick<ManyWorkspaceSwitchboard, "tokens" | "clientOf" | "notConnected"> | undefined;
  const deployment = await composeWorkspaces(config, deps, {
    keyring: async () => {
      const { Keyring } = await import("../platform/secrets.ts");
      return Keyring.fromSettings(
        config.SWITCHBOARD_SECRET_KEY as string,
        config.SWITCHBOARD_SECRET_KEY_PREVIOUS,
      );
    },
    source: async (parts) => {
      const made = await storedSource(config, logger, parts);
      many = made.many;
      return made.source;
    },
  });
  if (!many) throw new Error("the installations' source was not made");
  return { ...deployment, ...many };
}

/** The store's installations as the registry's source: each workspace's admin, bot and not-connected core. */
async function storedSource(config: Config, logger: Logger, parts: SourceParts) {
  const { db, installations, sandbox, posts } = parts;
  const baseUrl = parts.baseUrl;
  if (sandbox)
    logger.info({ url: sandbox.url }, "embedded sandbox API started: workspaces may use a demo account");
  const { installationKey } = await import("../store/installations.ts");
  const { TokenSource } = await import("../slack/tenancy/tokens.ts");
  const tokens = new TokenSource({
    installations,
    clientId: config.SLACK_CLIENT_ID as string,
    clientSecret: config.SLACK_CLIENT_SECRET as string,
    slackApiUrl: config.SLACK_API_URL,
  });
  const { workspaceClient } = await import("../slack/tenancy/workspace-client.ts");
  const clientOf = (id: WorkspaceId) =>
    workspaceClient(() => source.botToken(id), { slackApiUrl: config.SLACK_API_URL, teamId: id });
  // Each workspace's connect, disconnect and settings (src/workspaces/admin.ts): its admins and owners
  // (users.info with its own bot) and its installer may; a change rebuilds its runtime.
  const { createWorkspaceAdmin } = await import("../workspaces/admin.ts");
  const { createNotConnectedCore } = await import("../commands/not-connected.ts");
  const { slackAdminCheck } = await import("../slack/tenancy/admins.ts");
  const { postAudit } = await import("../slack/io/bridge.ts");
  const { valuesOf } = await import("../commands/workspace-admin.ts");
  const adminOf = (id: WorkspaceId, inst?: StoredInstallation): WorkspaceAdmin => {
    // The request's installation's bot when known: a team of an org-wide install has no connection yet
    // (so clientOf, which finds the enterprise through the connection, cannot) until it is connected.
    const bot = inst
      ? workspaceClient(() => tokens.botToken(installationKey(inst)), {
          slackApiUrl: config.SLACK_API_URL,
          teamId: id,
        })
      : clientOf(id);
    const admin: WorkspaceAdmin = createWorkspaceAdmin({
      db,
      installations,
      workspace: id,
      ...(inst?.enterpriseId ? { enterpriseId: inst.enterpriseId } : {}),
      apiUrl: baseUrl,
      timeoutMs: config.API_TIMEOUT_MS,
      ...(sandbox ? { demo: demoOrganization(sandbox, id, inst) } : {}),
      mode: "many",
      mayAdminister: slackAdminCheck(bot, inst?.installerUserId),
      ...(inst?.installerUserId ? { installerUserId: inst.installerUserId } : {}),
      onChange: async (): Promise<void> => {
        await parts.workspaces().refresh(id);
      },
      // Posted to the workspace's audit channel by the runtime this replica keeps; else (a change's notice
      // dropped it, PostgreSQL; a disconnect leaves none to build) with its bot to its audit channel as set now,
      // through the same post queue, without building a runtime for one post.
      onAudit: async (entry) => {
        const kept = await parts
          .workspaces()
          .kept(id)
          ?.catch(() => undefined);
        if (kept) return kept.audited(entry);
        const channel = valuesOf(await admin.settings()).auditChannel;
        if (channel)
          postAudit({ client: bot, posts, channel, logger: logger.child({ workspace: id }) }, entry);
      },
      logger: logger.child({ workspace: id }),
    });
    return admin;
  };
  const notConnected = (id: WorkspaceId, inst: StoredInstallation | undefined, stores: WorkspaceStores) =>
    createNotConnectedCore({ stores, admin: adminOf(id, inst) });
  const source = storedInstallations({
    installations,
    tokens,
    posts,
    ...(config.SLACK_API_URL ? { slackApiUrl: config.SLACK_API_URL } : {}),
    adminOf,
    notConnected,
    logger,
  });
  // The Slack app: "Add to Slack" (GET /slack/install, /slack/oauth_redirect), each request's installation
  // found by its authorize; an uninstall or a revoked token drops the workspace's runtime.
  const slackFront = async (): Promise<InstallationsFront> => {
    const { createOAuth, manifestScopes, REDIRECT_PATH } = await import("../slack/tenancy/oauth.ts");
    const { boltLogger } = await import("../slack/io/bolt-logger.ts");
    const oauth = createOAuth({
      clientId: config.SLACK_CLIENT_ID as string,
      clientSecret: config.SLACK_CLIENT_SECRET as string,
      db,
      installations,
      tokens,
      scopes: manifestScopes(),
      slackApiUrl: config.SLACK_API_URL,
      // Slack's consent page beside its Web API (slack.com/api/ → slack.com/oauth/v2/authorize): SLACK_API_URL moves both.
      ...(config.SLACK_API_URL
        ? {
            authorizationUrl: new URL("../oauth/v2/authorize", config.SLACK_API_URL.replace(/\/?$/, "/"))
              .href,
          }
        : {}),
      // Where Slack sends people back: PUBLIC_URL's, else the one set in the app's settings.
      ...(config.PUBLIC_URL ? { redirectUri: new URL(REDIRECT_PATH, config.PUBLIC_URL).href } : {}),
      logger: boltLogger(logger.child({ component: "oauth" })),
    });
    return {
      many: {
        routes: oauth.routes,
        authorize: oauth.authorize,
        posts,
        counts: () => installations.counts(),
      },
      lifecycle: workspaceLifecycle({ installations, workspaces: parts.workspaces() }, logger),
    };
  };
  return { source: { ...source, clientOf, slackFront }, many: { tokens, clientOf, notConnected } };
}

/**
 * What leaving does (many workspaces): the store removes the installation (and
 * the API keys of its workspaces) or the named tokens, ignoring a late event;
 * the workspace's runtime is dropped, so nothing more runs for it.
 */
export function workspaceLifecycle(
  sb: Pick<ManyWorkspaceSwitchboard, "installations" | "workspaces">,
  logger: Logger,
) {
  const keyOf = (team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean }) =>
    team.isEnterpriseInstall && team.enterpriseId
      ? ({ isEnterpriseInstall: true, enterpriseId: team.enterpriseId } as const)
      : team.teamId
        ? ({
            isEnterpriseInstall: false,
            teamId: team.teamId,
            ...(team.enterpriseId ? { enterpriseId: team.enterpriseId } : {}),
          } as const)
        : undefined;
  return {
    async uninstalled(
      team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
      eventTime: Date,
    ) {
      const key = keyOf(team);
      if (!key) return "absent";
      // The teams whose runtimes go: the workspace, or every connected workspace of the org.
      const gone = key.isEnterpriseInstall
        ? await sb.installations.connectedTeamsOf(key.enterpriseId)
        : [key.teamId];
      const outcome = await sb.installations.uninstall(key, eventTime);
      if (outcome === "removed") {
        for (const id of gone) await sb.workspaces.forget(id);
        logger.info(
          { teams: gone.length },
          "a workspace uninstalled Switchboard: its tokens and API key removed",
        );
      }
      return outcome;
    },
    async tokensRevoked(
      team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
      revoked: { botUserIds: string[]; userIds: string[] },
      eventTime: Date,
    ) {
      const key = keyOf(team);
      if (!key) return "absent";
      const outcome = await sb.installations.revokeTokens(key, revoked, eventTime);
      if (outcome === "removed" && !key.isEnterpriseInstall) await sb.workspaces.forget(key.teamId);
      return outcome;
    },
  };
}

/** "Use a demo account": a sandbox organization of the workspace's own (the embedded sandbox only). */
function demoOrganization(
  sandbox: Sandbox,
  id: WorkspaceId,
  inst: StoredInstallation | undefined,
): () => Promise<{ apiKey: string; organizationName: string }> {
  return async () => {
    const org = await sandbox.createOrganization({ name: `${inst?.teamName ?? id} (demo)` });
    return { apiKey: org.apiKey, organizationName: org.name };
  };
}
