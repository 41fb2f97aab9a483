// What a request and a workspace's work reach. The deployment's services
// (SlackServices, the same for every request) are given to the context
// middleware (listeners/middleware.ts) alone; per request it puts on Bolt's
// `context` nothing of ours but the request's Reach, under a key private to
// this module (`putReach`, `reachIn`): the request's workspace (made only by a
// WorkspaceSource), who acts, and the deployment's services by name, bound to
// that workspace. Bolt's `context` has no database and no source of
// workspaces, so a listener cannot reach them even by a cast
// (test/slack/reach-runtime.test.ts). Work outside a request gets the same
// kind of argument, a WorkspaceWork (`workFor`).
import type { App, webApi } from "@slack/bolt";
import type { HomeView, ModalView } from "@slack/types";
import type { FormRequest } from "../commands/form-kinds.ts";
import type { Actor, CommandCore, Reply } from "../commands/types.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import type { Db } from "../store/db.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";
import type { InFlight } from "./in-flight.ts";
import type { ChannelPostQueue } from "./io/post-queue.ts";
import { type EventStore, eventsOf, type WorkspaceEvents } from "./io/workspace-events.ts";

/** What the app is given by its composer (the reports and the uploads plug in here). */
export interface SlackHooks {
  /** A file was shared where the bot is (CSV/xlsx imports). */
  onFileShared?: (args: {
    fileId: string;
    userId: string;
    channelId?: string;
    eventTs?: string;
    client: webApi.WebClient;
  }) => Promise<void>;
  /** The Home tab of one user. Default: a short welcome. */
  homeView?: (userId: string) => Promise<HomeView>;
  /** Called with a message posted in a channel for an in_channel reply (a launch's live progress). */
  onPosted?: (posted: { channel: string; ts: string; text: string; reply?: Reply }) => void;
}

/** Marks a workspace scope: only a WorkspaceSource makes one (tenancy/scope.ts, checked by the architecture rules). */
declare const SCOPE: unique symbol;

/**
 * One request's workspace: its id, its command core (its API key, settings
 * and records), its hooks. Only a `WorkspaceSource` makes one, from a
 * request's team (`resolve`) or, for background work, from a workspace's id
 * (`scopeOf`); nothing holds one with defaults. In single-workspace mode it is
 * the one workspace of the environment, as it is now (its settings included).
 */
export interface WorkspaceScope {
  readonly [SCOPE]: "workspace scope";
  /** The workspace's id: its Slack team id, or "env" in single-workspace mode. */
  readonly workspace: WorkspaceId;
  readonly core: CommandCore;
  /** The workspace's stores (its runtime's, made once); absent when the app has no database. */
  readonly stores?: WorkspaceStores;
  readonly hooks: SlackHooks;
  /** False when the workspace has no messaging account yet: its core then only says how to connect. */
  readonly connected: boolean;
  /** The workspace's Workflow steps setting (its effective settings); unset: a workspace not connected. */
  readonly workflowSteps?: "off" | "writers" | "all";
}

/** What a workspace source reads to make a scope (tenancy/scope.ts seals it). */
export type ScopeParts = Omit<WorkspaceScope, typeof SCOPE>;

/** Which workspace a request is from, as Bolt's authorize sees it. */
export interface RequestTeam {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

/**
 * The workspaces the app serves. `resolve` gives a request's workspace from
 * its team (and throws `UnknownWorkspaceError` when the team is none it
 * serves); `scopeOf` gives a workspace's scope by id, for work done outside a
 * request (start-up recovery, background work).
 */
export interface WorkspaceSource {
  /** A workspace's own bot client when it is built (many workspaces): Bolt's listeners share it. */
  slackClientOf?(teamId: string): webApi.WebClient | undefined;
  resolve(team: RequestTeam): Promise<WorkspaceScope>;
  scopeOf(workspace: WorkspaceId): Promise<WorkspaceScope>;
}

/** A workspace leaving (many-workspace mode); each answer says what the store did. */
export interface Lifecycle {
  uninstalled(
    team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
    eventTime: Date,
  ): Promise<string>;
  tokensRevoked(
    team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
    revoked: { botUserIds: string[]; userIds: string[] },
    eventTime: Date,
  ): Promise<string>;
}

/** A command as noted while it runs: who, the line (a secret in it masked), where its answer goes. */
export interface TypedCommand {
  userId: string;
  line: string;
  responseUrl?: string;
}

/**
 * The deployment's services: the same for every request, nothing of any workspace. Held by the context
 * middleware and the composer alone: a listener or a workspace's background work gets its Reach or its
 * WorkspaceWork, never these (the source of every workspace, the database, the unbound lifecycle).
 */
export interface SlackServices {
  /** Each request's workspace (the context middleware resolves it; background work asks it by id). */
  workspaces: WorkspaceSource;
  /** Many workspaces: what `app_uninstalled` and `tokens_revoked` do. */
  lifecycle?: Lifecycle;
  config: Config;
  logger: Logger;
  events: EventStore;
  posts: ChannelPostQueue;
  /** Confirmation ids being handled now: a second click waits for the first. */
  inFlight: Set<string>;
  /** Switchboard's database, when the app has one (uploads keep their pending imports there). */
  db?: Db;
  /** The listeners' work in flight, for a graceful stop (src/slack/shutdown.ts). */
  work: InFlight;
  /**
   * Notes a slash command or a form of a workspace until it is answered (the returned function): a process
   * killed meanwhile tells its person at the next start (recovery/interrupted-commands.ts, trackCommand).
   */
  noteCommand: (
    workspace: Pick<WorkspaceScope, "workspace" | "stores">,
    typed: TypedCommand,
  ) => Promise<() => Promise<void>>;
  /** Least time between two progress redraws of an import's message (default 3000 ms). */
  progressEveryMs?: number;
  /** The clock of that throttle (default Date.now): tests drive it instead of sleeping. */
  now?: () => number;
  /** The view of the core's form request (src/slack/forms/index.ts), for deliver() to open. */
  formView: (request: FormRequest, actor: Actor, client?: webApi.WebClient) => Promise<ModalView> | ModalView;
}

/**
 * The settings of the deployment that listeners and a workspace's work read: where it is served, Slack's
 * address, uploads' and media's limits. A workspace's own (default channel, writers, zone…) are its core's
 * and settings', and the deployment's secrets (MESSAGING_API_KEY, SLACK_BOT_TOKEN…) are no listener's.
 */
const DEPLOYMENT_KEYS = [
  "PUBLIC_URL",
  "SLACK_API_URL",
  "IMPORT_MAX_BYTES",
  "IMPORT_TIMEOUT_MS",
  "MEDIA_TTL_HOURS",
  "MEDIA_MAX_IMAGE_MB",
  "MEDIA_MAX_DOCUMENT_MB",
] as const satisfies readonly (keyof Config)[];

export type DeploymentConfig = Pick<Config, (typeof DEPLOYMENT_KEYS)[number]>;

/** The settings of `config` named by `keys` and set, as an object of their own (frozen): what a part may read. */
export function settingsOf<K extends keyof Config>(config: Config, keys: readonly K[]): Pick<Config, K> {
  return Object.freeze(
    Object.fromEntries(keys.flatMap((key) => (config[key] === undefined ? [] : [[key, config[key]]]))),
  ) as Pick<Config, K>;
}

const deployments = new WeakMap<Config, DeploymentConfig>();

/** The deployment's own settings of `config` (made once per config). */
export function deploymentConfig(config: Config): DeploymentConfig {
  let picked = deployments.get(config);
  if (!picked) {
    picked = settingsOf(config, DEPLOYMENT_KEYS);
    deployments.set(config, picked);
  }
  return picked;
}

/**
 * What work for one workspace uses of it and of the deployment, whoever does it: a listener (its Reach) or work
 * outside a request (WorkspaceWork). No source of other workspaces, no database, no unbound event store:
 * helpers that listeners call take this, or a part of it.
 */
export type OneWorkspaceWork = Pick<WorkspaceScope, "workspace" | "stores" | "core" | "hooks" | "connected"> &
  Pick<SlackServices, "logger" | "posts" | "work" | "formView" | "progressEveryMs" | "now"> & {
    /** The deployment's own settings only: a workspace's (default channel, writers, zone…) are its core's and settings'. */
    config: DeploymentConfig;
    /** Event ids and form keys seen, this workspace's only. */
    events: WorkspaceEvents;
  };

/** One workspace's work, from the deployment's services and that workspace's scope: each member named. */
export function oneWorkspaceWork(services: SlackServices, scope: WorkspaceScope): OneWorkspaceWork {
  return {
    workspace: scope.workspace,
    ...(scope.stores ? { stores: scope.stores } : {}),
    core: scope.core,
    hooks: scope.hooks,
    connected: scope.connected,
    config: deploymentConfig(services.config),
    logger: services.logger,
    events: eventsOf(services.events, scope.workspace),
    posts: services.posts,
    work: services.work,
    formView: services.formView,
    ...(services.progressEveryMs !== undefined ? { progressEveryMs: services.progressEveryMs } : {}),
    ...(services.now ? { now: services.now } : {}),
  };
}

/**
 * Work done for one workspace outside a request (start-up settling, recovery): its argument names its power
 * as a listener's does (issue 38 §3) — the workspace and the deployment's services it needs, bound to it; no
 * source of other workspaces, no database (test/architecture/listener-types.ts).
 */
export interface WorkspaceWork extends OneWorkspaceWork {
  /**
   * The kind of the deployment's database, when it has one: which commands a stopped process left (on the
   * embedded one, every other owner is dead: recovery/interrupted-commands.ts). A word, not the database.
   */
  readonly database?: Db["kind"];
}

/** A workspace's work, its scope asked of the source by id: the one way work outside a request gets one. */
export async function workFor(services: SlackServices, workspace: WorkspaceId): Promise<WorkspaceWork> {
  const work = oneWorkspaceWork(services, await services.workspaces.scopeOf(workspace));
  return services.db ? { ...work, database: services.db.kind } : work;
}

/** A listener's workspace settings, as they apply now (the environment's defaults applied, in one place). */
export interface ListenerSettings {
  /** Who may run Workflow steps: the workspace's setting, else WORKFLOW_STEPS. */
  readonly workflowSteps: "off" | "writers" | "all";
}

/** The request's workspace leaving (many-workspace mode): the Lifecycle, bound to the request's own team. */
export interface Leaving {
  uninstalled(eventTime: Date): Promise<string>;
  tokensRevoked(revoked: { botUserIds: string[]; userIds: string[] }, eventTime: Date): Promise<string>;
}

/**
 * What a listener can reach (issue 38 §3), handed to it by the typed registration (listeners/on.ts) as `ctx`:
 * the request's workspace (its id, stores, core, hooks, settings), who acts, and the few deployment services it
 * needs, by name. It has no source of workspaces (`workspaces`, `scopeOf`), no database and no index
 * signature, so a listener cannot name another workspace's records, nor a member that does not exist
 * (test/architecture/listener-types.ts).
 */
export interface Reach extends OneWorkspaceWork {
  /** The workspace's settings now. */
  readonly settings: ListenerSettings;
  /** The person who typed, clicked, submitted or wrote; absent for events without one (a workflow step). */
  readonly actor?: Actor;
  /** The request was acknowledged already (a slash command, by the first middleware): acking again would throw. */
  acked?: boolean;
  /** Notes this slash command or form until answered (the returned function): told at the next start if cut off. */
  readonly noted: (typed: TypedCommand) => Promise<() => Promise<void>>;
  /** Confirmations being handled now in this workspace (a second click waits for the first): its ids only. */
  readonly inFlight: {
    has(id: string): boolean;
    add(id: string): void;
    delete(id: string): void;
  };
  /** Many workspaces: what `app_uninstalled` and `tokens_revoked` do, for the request's own team. */
  readonly leaving?: Leaving;
}

/** The key of a request's Reach on Bolt's context: this module's own, so nothing else can name it. */
const REACH = Symbol("switchboard: the request's reach");

/**
 * Bolt's `context` of every request: Bolt's own (its token, team, retries) and, under a key no other module
 * can name, the request's Reach. Only the middleware (putReach) and the typed registration (listeners/on.ts,
 * reachIn) use it.
 */
export type SlackContext = Record<string, unknown>;

/** The context middleware's one write on Bolt's context: the request's Reach, under the private key. */
export function putReach(context: object, reach: Reach): void {
  Object.defineProperty(context, REACH, { value: reach, enumerable: false, writable: false });
}

/** The request's Reach, as the context middleware put it. */
export function reachIn(context: object): Reach {
  const reach = (context as { [REACH]?: Reach })[REACH];
  if (!reach) throw new Error("this request has no reach: the context middleware did not run");
  return reach;
}

/**
 * Acknowledges the request once: a slash command was acknowledged by the first middleware already, and Bolt
 * throws on a second ack. Every ack without an answer body goes through here.
 */
export async function ackOnce(
  request: { acked?: boolean },
  ack: (() => Promise<void>) | undefined,
): Promise<void> {
  if (!ack || request.acked) return;
  request.acked = true;
  await ack();
}

/**
 * The person of a request made by one (a command, a click, a shortcut, a
 * form): the middleware sets it for each of them, so its absence is a bug.
 */
export function personOf(context: Pick<Reach, "actor">): Actor {
  if (!context.actor) throw new Error("this request has no person: the context middleware did not run");
  return context.actor;
}

export type SlackBolt = App<SlackContext>;
