import { randomBytes } from "node:crypto";
// Composition root shared by both front ends: the store (all of Switchboard's
// migrations, src/store/migrations.ts), the messaging API (the embedded sandbox when
// MESSAGING_API_URL is unset), the client and the command core.

import type { MessagingClient } from "../api/client.ts";
import type { SwitchboardCore } from "../commands/core.ts";
import type { InboxAccess } from "../commands/inbox.ts";
import { valuesOf } from "../commands/workspace-admin.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../domain/workspace.ts";
import { removeStaleUploads } from "../imports/temp.ts";
import type { Config } from "../platform/config.ts";
import { ConfigError } from "../platform/errors.ts";
import { startPhases } from "../platform/log.ts";
import type { ReportService } from "../reports/service.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { SlackHooks, WorkspaceSource } from "../slack/context.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import { oneWorkspace } from "../slack/tenancy/scope.ts";
import type { AuditEntry } from "../store/audit.ts";
import { ChannelNames } from "../store/channels.ts";
import { Confirmations } from "../store/confirmations.ts";
import { type Db, openDb } from "../store/db.ts";
import { migrateStore } from "../store/migrations.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import { attachSlack, buildWorkspace, type WorkspaceRuntime } from "../workspaces/runtime.ts";

export interface Switchboard {
  /** The environment's workspace's command core (a settings change makes a new one: read it each time). */
  readonly core: SwitchboardCore;
  /** Each Slack request's workspace (given the app's hooks): the one workspace, its core and steps setting now. */
  workspaces: (appHooks: SlackHooks) => WorkspaceSource;
  client: MessagingClient;
  db: Db;
  /** The environment's workspace's stores (its runtime's). */
  stores: WorkspaceStores;
  /** Set when the embedded sandbox serves the API. */
  sandbox?: Sandbox;
  /** The API key in use (never log it; maskSecret() it). */
  apiKey: string;
  /** Set when SLACK_BOT_TOKEN is: the Slack client shared by the core (group members, audit posts) and the Bolt app. */
  slack?: SlackBridge;
  /** Listeners of every audited write; more can be added after start. */
  auditListeners: Array<(entry: AuditEntry) => void | Promise<void>>;
  /** Report schedules and summaries (the Slack app attaches its scheduler: src/slack/features/reports/runtime.ts). */
  reports: ReportService;
  /** Channel names (`/sb channel name`, MESSAGING_CHANNEL_NAMES, the sandbox's). */
  channels: ChannelNames;
  /** The inboxes as the commands see them (the Slack app's poller sets `wake`: src/slack/features/inbox/runtime.ts). */
  inbox: InboxAccess;
  /** The workspace this switchboard serves ("env": the one of the environment). */
  workspace: WorkspaceId;
  /** Events out: each workspace's automations and the deliveries' worker (start() once the app answers). */
  automations: AutomationParts;
  /** This workspace's automations: its inboxes' events go to them (src/slack/features/inbox/runtime.ts). */
  eventsTo?: WorkspaceRuntime["automations"];
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
    // stores: the channel names are seeded before the workspace's runtime (and its stores) is built
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
    const keyring = config.SWITCHBOARD_SECRET_KEY
      ? Keyring.fromSettings(config.SWITCHBOARD_SECRET_KEY, config.SWITCHBOARD_SECRET_KEY_PREVIOUS)
      : undefined;
    const installations = await Installations.open(db, keyring ?? new Keyring(randomBytes(32)));
    // Hooks' URLs and secrets are kept sealed: only with the deployment's own key (none: adding one says so).
    const automations = automationParts(config, db, keyring, logger);
    closers.unshift(() => automations.stop());
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
      withoutSlack: !slack,
      ...(slack
        ? { mayAdminister: (await import("../slack/tenancy/admins.ts")).slackAdminCheck(slack.client) }
        : {}),
      onChange: async () => {
        env?.applySettings(valuesOf(await admin.settings()));
      },
      // A connect, disconnect or settings change: posted to the audit channel as a command's write is.
      onAudit: async (entry) => env?.audited(entry),
      logger: logger.child({ part: "settings" }),
    });
    // The one workspace of the environment: the same runtime many-workspace mode builds per workspace.
    const built = buildWorkspace(
      { config, logger, db, budget: (await replicaParts(db)).budget, automations: automations.of },
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
    // Several replicas (PostgreSQL): each request reads the workspace's version first (one primary-key read), and
    // settings older than it are applied again before the request runs, as many-workspace mode does: a missed or
    // late notice never lets a replica act on settings older than the last change. A notice, a reconnect and the
    // periodic compare (REPLICA_CHECK_SECONDS) apply them too, without a request.
    const { listenForChanges, WorkspaceVersions } = await import("../store/workspace-changes.ts");
    const versions = db.kind === "postgres" ? new WorkspaceVersions(db) : undefined;
    let applied = versions ? await versions.version(ENV_WORKSPACE) : 0;
    const current = async () => {
      if (versions) {
        const now = await versions.version(ENV_WORKSPACE);
        if (now !== applied) {
          built.applySettings(valuesOf(await admin.settings()));
          applied = now;
        }
      }
      return { core: built.core, stores: built.stores, workflowSteps: built.settings?.workflowSteps };
    };
    const told = (err: unknown) => logger.warn({ err: String(err) }, "could not apply the new settings");
    const feed = await listenForChanges(
      db,
      { changed: (id) => id === ENV_WORKSPACE && void current().catch(told), resync: current },
      logger,
      { checkEveryMs: config.REPLICA_CHECK_SECONDS * 1000 },
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
      workspaces: oneWorkspace(current),
      client,
      db,
      stores: built.stores,
      sandbox,
      slack,
      apiKey,
      auditListeners,
      reports,
      channels,
      inbox,
      workspace,
      automations,
      ...(built.automations ? { eventsTo: built.automations } : {}),
      ...closeOnce(closers, logger),
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}

export {
  createManyWorkspaceSwitchboard,
  type ManyWorkspaceSwitchboard,
  workspaceLifecycle,
} from "./many-workspaces.ts";

import {
  type AutomationParts,
  automationParts,
  closeOnce,
  replicaParts,
  type SwitchboardOptions,
  startEmbeddedSandbox,
} from "./parts.ts";

export type { SwitchboardOptions };
