import type { webApi } from "@slack/bolt";
import type { WorkspaceAdmin } from "../commands/workspace-admin.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { type Config, slackMode } from "../platform/config.ts";
import { ConfigError } from "../platform/errors.ts";
import { type Logger, startPhases } from "../platform/log.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { ChannelPostQueue } from "../slack/io/post-queue.ts";
import type { TokenSource } from "../slack/tenancy/tokens.ts";
import { type Db, openDb } from "../store/db.ts";
import type { Installations, StoredInstallation } from "../store/installations.ts";
import { migrateStore } from "../store/migrations.ts";
import { purgeWorkspace } from "../store/purge.ts";
import { WorkspaceBackground } from "../workspaces/background.ts";
import { type RegistryOptions, WorkspaceRegistry } from "../workspaces/registry.ts";
import {
  type AutomationParts,
  automationParts,
  closeOnce,
  replicaParts,
  type SwitchboardOptions,
  startEmbeddedSandbox,
} from "./parts.ts";

/** A many-workspace deployment's shared parts: each workspace's runtime comes from `workspaces`. */
export interface ManyWorkspaceSwitchboard {
  db: Db;
  /** The embedded sandbox (no MESSAGING_API_URL): each workspace may get a demo organization in it. */
  sandbox?: Sandbox;
  installations: Installations;
  tokens: TokenSource;
  workspaces: WorkspaceRegistry;
  /** The post queue every workspace shares (one message a second per channel). */
  posts: ChannelPostQueue;
  /** Per-workspace background work and the purge of departed workspaces (start() once the app answers). */
  background: WorkspaceBackground;
  /** The report scheduler of every workspace (start() once the app answers). */
  scheduler: { start(): Promise<unknown>; stop(): Promise<void> };
  /** Held starts of every workspace (start() once the app answers; docs/campaigns.md). */
  heldStarts: { start(): Promise<void>; stop(): Promise<void>; wake(): void };
  /** Messages sent later of every workspace (start() once the app answers; docs/automations.md). */
  laterSends: { start(): Promise<void>; stop(): Promise<void>; wake(): void };
  /** Events out: each workspace's automations and the deliveries' worker (start() once the app answers). */
  automations: AutomationParts;
  /** The connected workspaces. */
  connectedIds(): Promise<WorkspaceId[]>;
  /** A workspace's bot client, its token from the TokenSource at each call (no runtime built). */
  clientOf(workspace: WorkspaceId): webApi.WebClient;
  /** The core of a workspace without a messaging account: how to connect, and who can. */
  notConnected: RegistryOptions["notConnected"];
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/**
 * Many workspaces ("Add to Slack"): the store, the installations (tokens and
 * API keys sealed with SWITCHBOARD_SECRET_KEY), the token source and the
 * registry of workspaces. No workspace is built until it makes a request.
 */
export async function createManyWorkspaceSwitchboard(
  config: Config,
  deps: Pick<SwitchboardOptions, "logger" | "db" | "opening" | "phase">,
): Promise<ManyWorkspaceSwitchboard> {
  const { logger } = deps;
  if (slackMode(config) !== "many")
    throw new ConfigError("many-workspace mode needs SLACK_CLIENT_ID and SLACK_CLIENT_SECRET");
  const phase = deps.phase ?? startPhases(logger);
  const db =
    deps.db ??
    (await (deps.opening ?? openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR })));
  const closers: Array<() => Promise<void>> = deps.db ? [] : [() => db.close()];
  try {
    await migrateStore(db);
    phase("migrations");
    const { Keyring } = await import("../platform/secrets.ts");
    const keyring = Keyring.fromSettings(
      config.SWITCHBOARD_SECRET_KEY as string,
      config.SWITCHBOARD_SECRET_KEY_PREVIOUS,
    );
    const { Installations, installationKey } = await import("../store/installations.ts");
    const installations = await Installations.open(db, keyring);
    const automations = automationParts(config, db, keyring, logger);
    closers.unshift(() => automations.stop());
    // Rotating SWITCHBOARD_SECRET_KEY: every value the previous key sealed is sealed again now.
    if (config.SWITCHBOARD_SECRET_KEY_PREVIOUS) {
      const resealed = await installations.resealAll();
      logger.info({ resealed }, "secrets sealed again with the new SWITCHBOARD_SECRET_KEY");
    }
    const { TokenSource } = await import("../slack/tenancy/tokens.ts");
    const tokens = new TokenSource({
      installations,
      clientId: config.SLACK_CLIENT_ID as string,
      clientSecret: config.SLACK_CLIENT_SECRET as string,
      slackApiUrl: config.SLACK_API_URL,
    });
    let sandbox: Sandbox | undefined;
    let baseUrl = config.MESSAGING_API_URL;
    if (!baseUrl) {
      sandbox = await startEmbeddedSandbox(config, db, logger);
      closers.unshift(() => sandbox!.close());
      baseUrl = sandbox.url;
      logger.info({ url: sandbox.url }, "embedded sandbox API started: workspaces may use a demo account");
    }
    const { ChannelPostQueue } = await import("../slack/io/post-queue.ts");
    const posts = new ChannelPostQueue();
    const { createHomeView } = await import("../slack/features/home/view.ts");
    // Inbox pollers and live progress per workspace, and the purge of departed ones (workspace-background.ts).
    const background = new WorkspaceBackground({
      db,
      config,
      logger,
      installations,
      purge: purgeWorkspace,
    });
    // Report schedules: one scheduler for every workspace, each job with its workspace's client and bot.
    const { createSharedScheduler } = await import("../slack/features/reports/runtime.ts");
    const scheduler = createSharedScheduler({
      db,
      config,
      logger,
      forWorkspace: async (id) => {
        const rt = await workspaces.runtime(id);
        return rt?.slack && { client: rt.client, bridge: rt.slack };
      },
    });
    closers.unshift(() => scheduler.stop());
    // Held starts (docs/campaigns.md): one runner for every workspace, each start once across replicas.
    const { createHeldStarts } = await import("../slack/features/held-starts/runtime.ts");
    const heldStarts = createHeldStarts({
      db,
      config,
      logger,
      forWorkspace: async (id) => {
        const rt = await workspaces.runtime(id);
        if (!rt?.slack) return undefined;
        // Its hooks (live progress): a start that ran is followed as a launch is.
        const scope = await workspaces.scopeOf(id).catch(() => undefined);
        return {
          core: rt.core,
          bridge: rt.slack,
          stores: rt.stores,
          ...(scope ? { hooks: scope.hooks } : {}),
        };
      },
    });
    closers.unshift(() => heldStarts.stop());
    // Messages sent later (docs/automations.md): one runner for every workspace, each message once across replicas.
    const { createLaterSends } = await import("../slack/features/later-sends/runtime.ts");
    const laterSends = createLaterSends({
      db,
      config,
      logger,
      forWorkspace: async (id) => {
        const rt = await workspaces.runtime(id);
        return rt?.slack ? { core: rt.core, bridge: rt.slack } : undefined;
      },
    });
    closers.unshift(() => laterSends.stop());
    closers.unshift(() => background.stop());
    const { workspaceClient } = await import("../slack/tenancy/workspace-client.ts");
    const clientOf = (id: WorkspaceId) =>
      workspaceClient(() => workspaces.botToken(id), { slackApiUrl: config.SLACK_API_URL, teamId: id });
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
        apiUrl: baseUrl as string,
        timeoutMs: config.API_TIMEOUT_MS,
        ...(sandbox ? { demo: demoOrganization(sandbox, id, inst) } : {}),
        mode: "many",
        mayAdminister: slackAdminCheck(bot, inst?.installerUserId),
        ...(inst?.installerUserId ? { installerUserId: inst.installerUserId } : {}),
        onChange: async (): Promise<void> => {
          await workspaces.refresh(id);
        },
        // Posted to the workspace's audit channel by the runtime this replica keeps; else (a change's notice
        // dropped it, PostgreSQL; a disconnect leaves none to build) with its bot to its audit channel as set now,
        // through the same post queue, without building a runtime for one post.
        onAudit: async (entry) => {
          const kept = await workspaces.kept(id)?.catch(() => undefined);
          if (kept) return kept.audited(entry);
          const channel = valuesOf(await admin.settings()).auditChannel;
          if (channel)
            postAudit({ client: bot, posts, channel, logger: logger.child({ workspace: id }) }, entry);
        },
        logger: logger.child({ workspace: id }),
      });
      return admin;
    };
    const notConnected: RegistryOptions["notConnected"] = (id, inst, stores) =>
      createNotConnectedCore({ stores, admin: adminOf(id, inst) });
    const replicas = await replicaParts(db);
    const workspaces: WorkspaceRegistry = new WorkspaceRegistry({
      shared: {
        config,
        logger,
        db,
        automations: automations.of,
        ...(replicas.budget ? { budget: replicas.budget } : {}),
      },
      ...(replicas.versions ? { versions: replicas.versions } : {}),
      installations,
      tokens,
      baseUrl,
      posts,
      notConnected,
      adminOf,
      ...(sandbox ? { channelsOf: (apiKey: string) => sandbox!.channels({ apiKey }) } : {}),
      busy: (id) => background.busy(id),
      slackHooks: async (rt) => {
        rt.reports.attachWhenStarted(scheduler.started);
        return {
          ...(await background.attach(rt)),
          homeView: createHomeView({
            mayAdminister: async (userId) =>
              (await rt.core.admin?.mayAdminister({ userId, via: "slack" })) ?? false,
            may: (userId, scope) => rt.core.may({ userId, via: "slack" }, scope),
            client: rt.client,
            stores: rt.stores,
            apiKey: rt.apiKey,
            reports: rt.reports,
            republish: async (userId, view) => {
              await rt.slack?.client.views.publish({ user_id: userId, view }).catch((err) => {
                logger.warn({ err: (err as Error).message }, "could not publish the Home tab again");
              });
            },
          }),
        };
      },
    });
    closers.unshift(() => workspaces.close());
    // Several replicas: a change made on another reaches this one at once (its notice), and within
    // REPLICA_CHECK_SECONDS if the notice was lost (docs/workspaces.md).
    const { listenForChanges } = await import("../store/workspace-changes.ts");
    const told = (what: string) => (err: unknown) => logger.warn({ err: String(err) }, what);
    const feed = await listenForChanges(
      db,
      {
        changed: (id) => void workspaces.changed(id).catch(told("could not apply a workspace's change")),
        resync: () => workspaces.resync(),
      },
      logger,
      { checkEveryMs: config.REPLICA_CHECK_SECONDS * 1000 },
    );
    if (feed) closers.unshift(() => feed.stop());
    phase("installations and workspaces");
    return {
      connectedIds: () => workspaces.connectedIds(),
      clientOf,
      notConnected,
      db,
      sandbox,
      installations,
      tokens,
      workspaces,
      posts,
      background,
      scheduler,
      heldStarts,
      laterSends,
      automations,
      ...closeOnce(closers, logger),
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
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
