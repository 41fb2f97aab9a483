import { randomBytes } from "node:crypto";
// Composition root shared by both front ends: the store (all of Switchboard's
// migrations, src/store/migrations.ts), the messaging API (the embedded sandbox when
// MESSAGING_API_URL is unset), the client and the command core.

import type { webApi } from "@slack/bolt";
import type { MessagingClient } from "../api/client.ts";
import type { SwitchboardCore } from "../commands/core.ts";
import type { InboxAccess } from "../commands/inbox.ts";
import type { ResolveGroupMembers } from "../commands/permissions.ts";
import { valuesOf, type WorkspaceAdmin } from "../commands/workspace-admin.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../domain/workspace.ts";
import { removeStaleUploads } from "../imports/temp.ts";
import { type Config, slackMode } from "../platform/config.ts";
import { ConfigError } from "../platform/errors.ts";
import { type Logger, startPhases } from "../platform/log.ts";
import type { ReportService } from "../reports/service.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { SlackHooks, WorkspaceSource } from "../slack/context.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { ChannelPostQueue } from "../slack/io/post-queue.ts";
import { oneWorkspace } from "../slack/tenancy/scope.ts";
import type { TokenSource } from "../slack/tenancy/tokens.ts";
import type { AuditEntry } from "../store/audit.ts";
import { ChannelNames } from "../store/channels.ts";
import { Confirmations } from "../store/confirmations.ts";
import { type Db, openDb } from "../store/db.ts";
import type { Installations, StoredInstallation } from "../store/installations.ts";
import { migrateStore } from "../store/migrations.ts";
import { purgeWorkspace } from "../store/purge.ts";
import { WorkspaceBackground } from "../workspaces/background.ts";
import {
  attachSlack,
  buildWorkspace,
  type RegistryOptions,
  WorkspaceRegistry,
  type WorkspaceRuntime,
} from "../workspaces/runtime.ts";

export interface SwitchboardOptions {
  logger: Logger;
  /** Members of a Slack user group (S…), for SWITCHBOARD_WRITERS/BROADCASTERS. */
  resolveGroupMembers?: ResolveGroupMembers;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  /** An open database to use instead of opening one from the config (tests). */
  db?: Db;
  /**
   * The database of the config, being opened by the caller (src/host/main.ts starts
   * it before loading the rest); the switchboard owns and closes it like one it opened.
   */
  opening?: Promise<Db>;
  /** Logs each phase of the start at debug level (default: a timer of its own). */
  phase?: (name: string) => void;
}

export interface Switchboard {
  /** The environment's workspace's command core (a settings change makes a new one: read it each time). */
  readonly core: SwitchboardCore;
  /** Each Slack request's workspace (given the app's hooks): the one workspace, its core and steps setting now. */
  workspaces: (appHooks: SlackHooks) => WorkspaceSource;
  client: MessagingClient;
  db: Db;
  /** Set when the embedded sandbox serves the API. */
  sandbox?: Sandbox;
  /** The API key in use (never log it; maskSecret() it). */
  apiKey: string;
  /** Set when SLACK_BOT_TOKEN is: the Slack client shared by the core (group members, audit posts) and the Bolt app. */
  slack?: SlackBridge;
  /** Listeners of every audited write; more can be added after start. */
  auditListeners: Array<(entry: AuditEntry) => void | Promise<void>>;
  /** Report schedules and summaries (the Slack app attaches its scheduler: src/slack/reports/runtime.ts). */
  reports: ReportService;
  /** Channel names (`/sb channel name`, MESSAGING_CHANNEL_NAMES, the sandbox's). */
  channels: ChannelNames;
  /** The inboxes as the commands see them (the Slack app's poller sets `wake`: src/slack/inbox/runtime.ts). */
  inbox: InboxAccess;
  /** The workspace this switchboard serves ("env": the one of the environment). */
  workspace: WorkspaceId;
  /** Runs `fn` first when closing (before the database closes): for parts started later, like pg-boss. */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function createSwitchboard(config: Config, deps: SwitchboardOptions): Promise<Switchboard> {
  const { logger } = deps;
  const phase = deps.phase ?? startPhases(logger);
  const db =
    deps.db ??
    (await (deps.opening ?? openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR })));
  phase(deps.db ? "store given" : `store opened (${db.kind})`);
  const closers: Array<() => Promise<void>> = deps.db ? [] : [() => db.close()];
  try {
    // Every schema, once, from the one list (src/store/migrations.ts): no part migrates on its own.
    await migrateStore(db);
    phase("migrations");
    const workspace = ENV_WORKSPACE;
    const names = new ChannelNames(db, workspace);
    await names.seed(config.MESSAGING_CHANNEL_NAMES, "settings");
    // Confirmed commands an earlier process was carrying out when it stopped:
    // their outcome is unknown, said so on the next click, never run again.
    const interrupted = (await Confirmations.settleInterruptedAll(db)).length;
    if (interrupted)
      logger.warn({ interrupted }, "confirmed commands left running by an earlier process: outcome unknown");
    // Upload files a crashed process left behind (Slack downloads, xlsx scratch).
    const stale = await removeStaleUploads();
    if (stale.length)
      logger.info({ removed: stale.length }, "removed temporary upload files left by an earlier process");
    phase("interrupted confirmations and stale uploads");

    let sandbox: Sandbox | undefined;
    let sandboxChannels: Array<{ id: number; name: string }> = [];
    let baseUrl = config.MESSAGING_API_URL;
    let apiKey = config.MESSAGING_API_KEY;
    if (!baseUrl) {
      sandbox = await startEmbeddedSandbox(config, db, logger);
      closers.unshift(() => sandbox!.close());
      baseUrl = sandbox.url;
      apiKey = sandbox.apiKey;
      // The sandbox knows its channels: they come named, and its first is the default.
      sandboxChannels = await sandbox.channels();
      await names.seed(new Map(sandboxChannels.map((c) => [c.id, c.name])), "sandbox");
      // The sandbox's own test keys (documented in .env.example) are printed on
      // purpose, so a developer can call it with curl; a real key never is.
      logger.info(
        { url: sandbox.url, readWriteKey: sandbox.apiKey, readOnlyKey: sandbox.readKey },
        "embedded sandbox API started (MESSAGING_API_URL is unset)",
      );
      phase("embedded sandbox");
    }
    if (!apiKey) throw new ConfigError("MESSAGING_API_KEY is required when MESSAGING_API_URL is set");

    let slack: SlackBridge | undefined;
    if (config.SLACK_BOT_TOKEN) {
      // Loaded only for Slack, so the shell starts without Bolt.
      const { createSlackBridge } = await import("../slack/io/bridge.ts");
      slack = createSlackBridge(config, logger);
    }
    // Its settings (`/sb settings`): the environment's first, a value changed from Slack or the shell
    // kept in the store and applied at once. Single mode keeps no token or key of its own (the
    // environment's), so without SWITCHBOARD_SECRET_KEY the seal is this process's, never used.
    const { Keyring } = await import("../platform/secrets.ts");
    const { Installations } = await import("../store/installations.ts");
    const installations = await Installations.open(
      db,
      config.SWITCHBOARD_SECRET_KEY
        ? Keyring.fromSettings(config.SWITCHBOARD_SECRET_KEY, config.SWITCHBOARD_SECRET_KEY_PREVIOUS)
        : new Keyring(randomBytes(32)),
    );
    const { createWorkspaceAdmin, envSettings } = await import("../workspaces/admin.ts");
    let env: WorkspaceRuntime | undefined;
    const admin = createWorkspaceAdmin({
      db,
      installations,
      workspace: ENV_WORKSPACE,
      apiUrl: baseUrl,
      timeoutMs: config.API_TIMEOUT_MS,
      mode: "single",
      env: envSettings(config),
      ...(slack
        ? { mayAdminister: (await import("../slack/tenancy/admins.ts")).slackAdminCheck(slack.client) }
        : {}),
      onChange: async () => {
        env?.applySettings(valuesOf(await admin.settings()));
      },
      logger: logger.child({ part: "settings" }),
    });
    // The one workspace of the environment: the same runtime many-workspace mode builds per workspace.
    const built = buildWorkspace(
      { config, logger, db, budget: (await replicaParts(db)).budget },
      {
        id: ENV_WORKSPACE,
        baseUrl,
        apiKey,
        settings: valuesOf(await admin.settings()),
        admin,
        // Out of the box (no settings, the embedded sandbox): its main channel.
        defaultChannelId: config.MESSAGING_CHANNEL_ID ?? sandboxChannels[0]?.id,
        slack,
        resolveGroupMembers: deps.resolveGroupMembers,
        onAudit: deps.onAudit,
      },
    );
    env = built;
    if (built.settings) built.applySettings(built.settings); // the audit channel from the settings
    closers.unshift(() => built.close());
    // Several replicas: a settings change made on another is applied here at its notice.
    const { listenForChanges } = await import("../store/workspace-changes.ts");
    const reapply = () =>
      void admin
        .settings()
        .then((s) => built.applySettings(valuesOf(s)))
        .catch((err) => logger.warn({ err: String(err) }, "could not apply the new settings"));
    const feed = await listenForChanges(
      db,
      { changed: (id) => id === ENV_WORKSPACE && reapply(), resync: reapply },
      logger,
    );
    if (feed) closers.unshift(() => feed.stop());
    await attachSlack(built, logger);
    const { client, reports, channels, inbox, auditListeners } = built;
    phase("API client and command core");

    return {
      // The workspace's core now (settings changed make a new one).
      get core() {
        return built.core;
      },
      // Each Slack request's workspace: the one of the environment, its core and steps setting now.
      workspaces: oneWorkspace(() => ({ core: built.core, workflowSteps: built.settings?.workflowSteps })),
      client,
      db,
      sandbox,
      slack,
      apiKey,
      auditListeners,
      reports,
      channels,
      inbox,
      workspace,
      ...closeOnce(closers, logger),
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}

/** A many-workspace deployment's shared parts: each workspace's runtime comes from `workspaces`. */
export interface DistributedSwitchboard {
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
export async function createDistributedSwitchboard(
  config: Config,
  deps: Pick<SwitchboardOptions, "logger" | "db" | "opening" | "phase">,
): Promise<DistributedSwitchboard> {
  const { logger } = deps;
  if (slackMode(config) !== "distributed")
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
    closers.unshift(() => background.stop());
    const { workspaceClient } = await import("../slack/tenancy/workspace-client.ts");
    const clientOf = (id: WorkspaceId) =>
      workspaceClient(() => workspaces.botToken(id), { slackApiUrl: config.SLACK_API_URL, teamId: id });
    // Each workspace's connect, disconnect and settings (src/workspaces/admin.ts): its admins and owners
    // (users.info with its own bot) and its installer may; a change rebuilds its runtime.
    const { createWorkspaceAdmin } = await import("../workspaces/admin.ts");
    const { createNotConnectedCore } = await import("../commands/not-connected.ts");
    const { slackAdminCheck } = await import("../slack/tenancy/admins.ts");
    const adminOf = (id: WorkspaceId, inst?: StoredInstallation): WorkspaceAdmin =>
      createWorkspaceAdmin({
        db,
        installations,
        workspace: id,
        ...(inst?.enterpriseId ? { enterpriseId: inst.enterpriseId } : {}),
        apiUrl: baseUrl as string,
        timeoutMs: config.API_TIMEOUT_MS,
        ...(sandbox ? { demo: demoOrganization(sandbox, id, inst) } : {}),
        mode: "distributed",
        // The request's installation's bot when known: a team of an org-wide install has no connection yet
        // (so clientOf, which finds the enterprise through the connection, cannot) until it is connected.
        mayAdminister: slackAdminCheck(
          inst
            ? workspaceClient(() => tokens.botToken(installationKey(inst)), {
                slackApiUrl: config.SLACK_API_URL,
                teamId: id,
              })
            : clientOf(id),
          inst?.installerUserId,
        ),
        ...(inst?.installerUserId ? { installerUserId: inst.installerUserId } : {}),
        onChange: async (): Promise<void> => {
          await workspaces.refresh(id);
        },
        logger: logger.child({ workspace: id }),
      });
    const notConnected: RegistryOptions["notConnected"] = (id, inst) =>
      createNotConnectedCore({ db, workspace: id, admin: adminOf(id, inst) });
    const replicas = await replicaParts(db);
    const workspaces: WorkspaceRegistry = new WorkspaceRegistry({
      shared: { config, logger, db, ...(replicas.budget ? { budget: replicas.budget } : {}) },
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
            workspace: rt.id,
            client: rt.client,
            db,
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
    // Several replicas: a change made on another reaches this one at once (docs/workspaces.md).
    const { listenForChanges } = await import("../store/workspace-changes.ts");
    const told = (what: string) => (err: unknown) => logger.warn({ err: String(err) }, what);
    const feed = await listenForChanges(
      db,
      {
        changed: (id) => void workspaces.changed(id).catch(told("could not apply a workspace's change")),
        resync: () => void workspaces.resync().catch(told("could not check the workspaces kept")),
      },
      logger,
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
  sb: Pick<DistributedSwitchboard, "installations" | "workspaces">,
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

/**
 * What several replicas on one PostgreSQL share beyond the tables: each workspace's version (read on use) and
 * each key's API budget. PGlite is one process: neither (the in-memory limiter, changes told in-process).
 */
async function replicaParts(db: Db) {
  if (db.kind !== "postgres") return {};
  const { WorkspaceVersions } = await import("../store/workspace-changes.ts");
  const { RateBudgetStore } = await import("../store/rate-budget.ts");
  return { versions: new WorkspaceVersions(db), budget: new RateBudgetStore(db) };
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

/** The embedded sandbox (no MESSAGING_API_URL), on Switchboard's database, from the SANDBOX_* settings. */
async function startEmbeddedSandbox(config: Config, db: Db, logger: Logger): Promise<Sandbox> {
  const { sandboxSettings, startSandbox } = await import("../sandbox/index.ts");
  return startSandbox({ db, ...sandboxSettings(config), logger: logger.child({ part: "sandbox" }) });
}

/** `onClose` and a `close` that runs the closers once, the last added first, each failure logged. */
function closeOnce(
  closers: Array<() => Promise<void>>,
  logger: Logger,
): { onClose(fn: () => Promise<void>): void; close(): Promise<void> } {
  let closed = false;
  return {
    onClose(fn) {
      closers.unshift(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const close of closers)
        await close().catch((err) => logger.warn({ err: String(err) }, "close failed"));
    },
  };
}
