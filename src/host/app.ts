// Single mode's composition: the one composition of a deployment (compose.ts)
// whose installations are one, the environment's (src/workspaces/installations.ts,
// envInstallation), and the Switchboard the front ends (the shell, the Slack app)
// and the tests take: that workspace's runtime, as the registry built it.

import type { MessagingClient } from "../api/client.ts";
import type { SwitchboardCore } from "../commands/core.ts";
import type { InboxDeps } from "../commands/inbox.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../domain/workspace.ts";
import { type Config, slackMode } from "../platform/config.ts";
import { ConfigError } from "../platform/errors.ts";
import type { ReportService } from "../reports/service.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { SlackHooks, WorkspaceSource } from "../slack/context.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { AuditEntry } from "../store/audit.ts";
import { ChannelNames } from "../store/channels.ts";
import type { Db } from "../store/db.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import { envInstallation } from "../workspaces/installations.ts";
import type { WorkspaceRuntime } from "../workspaces/runtime.ts";
import { composeWorkspaces, type Deployment, type SourceParts } from "./compose.ts";
import { createManyWorkspaceSwitchboard, type ManyWorkspaceSwitchboard } from "./many-workspaces.ts";

export interface Switchboard {
  /** The environment's workspace's command core (one for its life, each call with the settings now). */
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
  inbox: InboxDeps;
  /** The workspace this switchboard serves ("env": the one of the environment). */
  workspace: WorkspaceId;
  /** Events out: each workspace's automations and the deliveries' worker (start() once the app answers). */
  automations: AutomationParts;
  /** This workspace's automations: its inboxes' events go to them (src/slack/features/inbox/runtime.ts). */
  eventsTo?: WorkspaceRuntime["automations"];
  /** The deployment it is composed in: its registry and background work (main.ts starts them). */
  deployment: Deployment;
  /** Runs `fn` first when closing (before the database closes): for parts started later, like pg-boss. */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/**
 * Single mode: the one composition (compose.ts) with one installation, the environment's: workspace `env`, its
 * key MESSAGING_API_KEY (or the embedded sandbox's), its bot SLACK_BOT_TOKEN's (none: the shell), its settings
 * the environment's values under any it changed. Its runtime is the registry's, built now and kept.
 */
export async function createSwitchboard(config: Config, deps: SwitchboardOptions): Promise<Switchboard> {
  const deployment = await composeWorkspaces(config, deps, {
    keyring: async () => {
      if (!config.SWITCHBOARD_SECRET_KEY) return undefined;
      const { Keyring } = await import("../platform/secrets.ts");
      return Keyring.fromSettings(config.SWITCHBOARD_SECRET_KEY, config.SWITCHBOARD_SECRET_KEY_PREVIOUS);
    },
    source: (parts) => environmentSource(config, deps, parts),
  });
  try {
    const rt = await deployment.workspaces.runtime(ENV_WORKSPACE);
    if (!rt) throw new ConfigError("the environment's workspace could not be built");
    return {
      // One core for the runtime's life, each call with the settings as they are now.
      core: rt.core,
      // Each Slack request's workspace: the registry's one, the app's hooks (its Home tab) given to it.
      workspaces: (appHooks) => deployment.workspaces.withAppHooks(appHooks),
      client: rt.client,
      db: deployment.db,
      stores: rt.stores,
      sandbox: deployment.sandbox,
      slack: rt.slack,
      apiKey: rt.apiKey,
      auditListeners: rt.auditListeners,
      reports: rt.reports,
      channels: rt.channels,
      inbox: rt.inbox,
      workspace: ENV_WORKSPACE,
      automations: deployment.automations,
      ...(rt.automations ? { eventsTo: rt.automations } : {}),
      deployment,
      onClose: deployment.onClose,
      close: deployment.close,
    };
  } catch (err) {
    await deployment.close();
    throw err;
  }
}

/** The environment's one installation (single mode): its key, its bot, its admin (settings over the environment's). */
async function environmentSource(config: Config, deps: SwitchboardOptions, parts: SourceParts) {
  const { logger } = deps;
  const { db, sandbox, installations } = parts;
  // stores: the channel names are seeded before the workspace's runtime (and its stores) is built
  const names = new ChannelNames(db, ENV_WORKSPACE);
  await names.seed(config.MESSAGING_CHANNEL_NAMES, "settings");
  const apiKey = sandbox ? sandbox.apiKey : config.MESSAGING_API_KEY;
  if (sandbox)
    // The sandbox's own test keys (documented in .env.example) are printed on
    // purpose, so a developer can call it with curl; a real key never is.
    logger.info(
      { url: sandbox.url, readWriteKey: sandbox.apiKey, readOnlyKey: sandbox.readKey },
      "embedded sandbox API started (MESSAGING_API_URL is unset)",
    );
  if (!apiKey) throw new ConfigError("MESSAGING_API_KEY is required when MESSAGING_API_URL is set");
  let slack: SlackBridge | undefined;
  if (config.SLACK_BOT_TOKEN) {
    // Loaded only for Slack, so the shell starts without Bolt.
    const { createSlackBridge } = await import("../slack/io/bridge.ts");
    slack = createSlackBridge(config, logger);
  }
  // Its settings (`/sb settings`): the environment's are the defaults, read each time; a value changed from
  // Slack or the shell is kept in the store and applied to the runtime at once.
  const { createWorkspaceAdmin, envSettings } = await import("../workspaces/admin.ts");
  const admin = createWorkspaceAdmin({
    db,
    installations,
    workspace: ENV_WORKSPACE,
    apiUrl: parts.baseUrl,
    timeoutMs: config.API_TIMEOUT_MS,
    mode: "single",
    env: envSettings(config),
    withoutSlack: !slack,
    ...(slack
      ? { mayAdminister: (await import("../slack/tenancy/admins.ts")).slackAdminCheck(slack.client) }
      : {}),
    onChange: () => parts.workspaces().refresh(ENV_WORKSPACE),
    // A connect, disconnect or settings change: posted to the audit channel as a command's write is, by the
    // runtime as it stands before the change applies.
    onAudit: async (entry) =>
      (
        await parts
          .workspaces()
          .kept(ENV_WORKSPACE)
          ?.catch(() => undefined)
      )?.audited(entry),
    logger: logger.child({ part: "settings" }),
  });
  const source = envInstallation({
    apiKey,
    admin,
    ...(slack ? { slack } : {}),
    ...(deps.resolveGroupMembers ? { resolveGroupMembers: deps.resolveGroupMembers } : {}),
    ...(deps.onAudit ? { onAudit: deps.onAudit } : {}),
  });
  return {
    ...source,
    clientOf: () => slack?.client,
    // The Slack app (with SLACK_BOT_TOKEN): each request is the environment's bot's, its client and post queue
    // shared with the workspace's runtime; /readyz asks the messaging API with the workspace's key.
    ...(slack
      ? {
          slackFront: async () => ({
            bridge: slack,
            readiness: {
              api: async () => {
                await (await parts.workspaces().runtime(ENV_WORKSPACE))?.client.getMe({ lane: "background" });
              },
            },
          }),
        }
      : {}),
  };
}

/** A deployment composed in its mode: many workspaces ("Add to Slack") or the environment's one. */
export type Composed =
  | { mode: "many"; deployment: ManyWorkspaceSwitchboard }
  | { mode: "single"; deployment: Deployment; switchboard: Switchboard };

/**
 * The one call that composes a deployment, in the mode its settings say (SLACK_CLIENT_ID: many workspaces; else
 * the environment's one): the same composition (compose.ts), the source of installations alone differing.
 */
export async function composeSwitchboard(config: Config, deps: SwitchboardOptions): Promise<Composed> {
  if (slackMode(config) === "many")
    return { mode: "many", deployment: await createManyWorkspaceSwitchboard(config, deps) };
  const switchboard = await createSwitchboard(config, deps);
  return { mode: "single", deployment: switchboard.deployment, switchboard };
}

export {
  createManyWorkspaceSwitchboard,
  type ManyWorkspaceSwitchboard,
  workspaceLifecycle,
} from "./many-workspaces.ts";

import type { AutomationParts, SwitchboardOptions } from "./parts.ts";

export type { SwitchboardOptions };
