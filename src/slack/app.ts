// The Bolt app: Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP on
// PORT with POST /slack/events (commands, interactivity, events) and
// GET /healthz. Listeners live in listeners/<kind>/, one handler per file.

import type { Server } from "node:http";
import type { AddressInfo, ListenOptions } from "node:net";
import { App, type Authorize, type CustomRoute, HTTPReceiver, SocketModeReceiver, webApi } from "@slack/bolt";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import { ConfigError } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import type { Db } from "../store/db.ts";
import {
  type Lifecycle,
  type SlackBolt,
  type SlackContext,
  type SlackHooks,
  type SlackServices,
  type WorkspaceSource,
  type WorkspaceWork,
  workFor,
} from "./context.ts";
import { mediaRoute } from "./features/inbox/media.ts";
import { settleInterruptedImports } from "./features/uploads/flow.ts";
import { openableView } from "./forms/index.ts";
import { InFlight } from "./in-flight.ts";
import { boltLogger } from "./io/bolt-logger.ts";
import { createSlackBridge, type SlackBridge, slackClientOptions } from "./io/bridge.ts";
import { createDbEventStore, type EventStore, MemoryEventStore } from "./io/event-store.ts";
import type { ResolveGroupMembers } from "./io/groups.ts";
import type { ChannelPostQueue } from "./io/post-queue.ts";
import { noDoubleSendRetries } from "./io/retry-policy.ts";
import { slackCode, TOKEN_REFUSED } from "./io/slack-errors.ts";
import { STEPS } from "./listeners/functions/index.ts";
import { registerListeners } from "./listeners/index.ts";
import { provideContext } from "./listeners/middleware.ts";
import { healthz, metricsRoute, type ReadinessChecks, readyz } from "./ops-routes.ts";
import { tellInterruptedConfirmations } from "./recovery/confirm-notices.ts";
import { settleInterruptedReplies } from "./recovery/inbox-replies.ts";
import {
  keepAlive,
  tellInterruptedCommands,
  tellOrphanedCommands,
  trackCommand,
} from "./recovery/interrupted-commands.ts";
import { settleInterruptedSteps } from "./recovery/steps.ts";
import { refuseReplayedRequests, refuseSkewedRequests } from "./request-time.ts";
import { guardSocketFrames } from "./socket-guard.ts";
import { createAuthorize } from "./tenancy/authorize.ts";
import { boundBoltClients } from "./tenancy/client-cache.ts";
import { madeOnFirstUse } from "./tenancy/workspace-client.ts";

/** A workspace source, or its maker given the app's hooks (single mode: tenancy/scope.ts's oneWorkspace). */
export type WorkspacesOf = WorkspaceSource | ((appHooks: SlackHooks) => WorkspaceSource);

export interface CreateSlackAppOptions {
  /** Each request's workspace: the only way a listener gets one. */
  workspaces: WorkspacesOf;
  config: Config;
  logger: Logger;
  /** Seen event ids; default in memory. startSlackApp uses the database. */
  store?: EventStore;
  hooks?: SlackHooks;
  /** Shared with the core (group members, audit posts); built here when absent. */
  bridge?: SlackBridge;
  /** Switchboard's database: uploads keep their pending imports there. */
  db?: Db;
  /** Import progress throttle and its clock (see SlackServices); tests set them. */
  progress?: Pick<SlackServices, "progressEveryMs" | "now">;
  /** /readyz: whether the messaging API answers (the Slack check is the bot token's auth.test). */
  readiness?: Pick<ReadinessChecks, "api">;
  /**
   * Many workspaces ("Add to Slack", HTTP only): the install routes and the
   * authorize of the OAuth flow (src/slack/tenancy/oauth.ts).
   */
  many?: {
    routes: CustomRoute[];
    authorize: Authorize<boolean>;
    /** The post queue every workspace shares (one message a second per channel). */
    posts: ChannelPostQueue;
    /** How many workspaces' listener clients Bolt keeps (default 1,000, as the registry's runtimes). */
    keepClients?: number;
    /** /readyz: installed, connected and failing workspaces. */
    counts?: () => Promise<Record<string, number>>;
  };
}

export interface SlackApp {
  app: SlackBolt;
  client: webApi.WebClient;
  /** The deployment's services (no workspace: each request's comes from `services.workspaces`). */
  services: SlackServices;
  /** The hooks given to the workspace source's maker (single mode: its one workspace's; later changes apply). */
  hooks: SlackHooks;
  /** The listeners' work in flight (a graceful stop drains it). */
  work: InFlight;
  /** Resolves once what an earlier process left is settled in every workspace (startSlackApp; never rejects). */
  settled: Promise<void>;
  /** Switchboard's database, when the app has one. */
  db?: Db;
  mode: "socket" | "http";
  /** HTTP mode, once started: the port it listens on. */
  port?: number;
  /** Members of a Slack user group, cached a few minutes (for the core's permission checks). */
  resolveGroupMembers: ResolveGroupMembers;
  /** Posts to a channel through the per-channel queue (1 message a second). */
  post(args: webApi.ChatPostMessageArguments): Promise<webApi.ChatPostMessageResponse>;
  /** HTTP mode: listens on `listen` (default PORT on all interfaces) and returns the port. */
  start(listen?: ListenOptions): Promise<{ port?: number }>;
  stop(): Promise<void>;
}

export function createSlackApp(opts: CreateSlackAppOptions): SlackApp {
  const { config } = opts;
  const logger = opts.logger.child({ component: "slack" });
  const many = opts.many;
  if (!many && !config.SLACK_BOT_TOKEN)
    throw new ConfigError("SLACK_BOT_TOKEN is not set: the Slack app needs the bot token (xoxb-…).");
  const socket = !many && Boolean(config.SLACK_APP_TOKEN);
  if (!socket && !config.SLACK_SIGNING_SECRET) {
    throw new ConfigError(
      "SLACK_SIGNING_SECRET is not set: HTTP mode needs it to verify Slack's requests (or set SLACK_APP_TOKEN for Socket Mode).",
    );
  }
  const blogger = boltLogger(logger);
  // One workspace: its token, checked with auth.test. Many: each request's installation ("Add to Slack").
  const single = many ? undefined : createAuthorize(config, config.SLACK_BOT_TOKEN as string);
  const authorize = many ? many.authorize : (single as Authorize<boolean>);
  const routes = [
    healthz(),
    readyz(opts.db, logger, {
      ...opts.readiness,
      ...(single ? { slack: () => single.test() } : {}),
      ...(many?.counts ? { workspaces: many.counts } : {}),
    }),
    metricsRoute(config.METRICS_TOKEN),
    // Files sent to customers from inbox threads (inbox/media.ts).
    ...(opts.db ? [mediaRoute(opts.db, logger)] : []),
    // "Add to Slack": the install page and Slack's redirect (oauth.ts).
    ...(many?.routes ?? []),
  ];
  const clientOptions: webApi.WebClientOptions = {
    ...slackClientOptions(config.SLACK_API_URL),
    retryConfig: noDoubleSendRetries,
  };
  const receiver = socket
    ? new SocketModeReceiver({
        appToken: config.SLACK_APP_TOKEN as string,
        logger: blogger,
        customRoutes: routes,
        // apps.connections.open goes where the Web API does (SLACK_API_URL: a proxy, a test's fake Slack).
        installerOptions: {
          port: config.PORT,
          clientOptions: slackClientOptions(config.SLACK_API_URL),
        },
      })
    : new HTTPReceiver({
        signingSecret: config.SLACK_SIGNING_SECRET as string,
        endpoints: "/slack/events",
        port: config.PORT,
        customRoutes: routes,
        // Ack first, work after: Slack wants an answer within 3 s.
        processBeforeResponse: false,
        logger: blogger,
      });
  // Event ids and request signatures seen (replays refused, request-time.ts).
  const events: EventStore = opts.store ?? new MemoryEventStore();
  // A malformed frame must not end the process (socket-guard.ts).
  if (receiver instanceof SocketModeReceiver) guardSocketFrames(receiver.client, logger);
  if (receiver instanceof HTTPReceiver) {
    // Bolt refuses only stale timestamps; the guard in front refuses future ones too.
    receiver.requestListener = refuseSkewedRequests(
      refuseReplayedRequests(receiver.requestListener, events, logger),
      logger,
    );
  }
  // No conversation store: nothing here reads Bolt's `context.conversation`, and its lookup cost every request.
  const app = new App<SlackContext>({
    authorize,
    receiver,
    logger: blogger,
    clientOptions,
    convoStore: false,
  });
  // Many workspaces: Bolt's own client cache bounded (client-cache.ts), as the registry bounds runtimes.
  if (many) boundBoltClients(app, many.keepClients ?? 1000, (team) => source.slackClientOf?.(team));
  app.error(async (err) => {
    logger.error({ err, code: (err as { code?: string }).code }, "unhandled error in a Slack listener");
  });

  // Many workspaces: no one bot token; background work takes each workspace's client.
  const bridge: SlackBridge = many
    ? {
        client: new webApi.WebClient(undefined, clientOptions),
        posts: many.posts,
        resolveGroupMembers: async () => [],
        onAudit: () => {},
      }
    : (opts.bridge ?? createSlackBridge(config, opts.logger));
  const hooks: SlackHooks = opts.hooks ?? {};
  const source = typeof opts.workspaces === "function" ? opts.workspaces(hooks) : opts.workspaces;
  const services: SlackServices = {
    workspaces: source,
    config,
    logger,
    events,
    posts: bridge.posts,
    inFlight: new Set(),
    work: new InFlight(),
    noteCommand: (workspace, typed) => trackCommand({ ...workspace, db: opts.db, logger }, typed),
    db: opts.db,
    ...opts.progress,
    formView: openableView,
  };
  // First the context (each request's workspace, from its team), then every listener.
  app.use(provideContext(services));
  registerListeners(app);

  let server: Server | undefined;
  const slackApp: SlackApp = {
    app,
    // app.client has no token (authorize supplies it per request): use the bridge's.
    client: bridge.client,
    services,
    hooks,
    work: services.work,
    settled: Promise.resolve(),
    db: opts.db,
    mode: socket ? "socket" : "http",
    resolveGroupMembers: bridge.resolveGroupMembers,
    post: (args) => services.posts.post(bridge.client, args),
    async start(listen) {
      // A wrong token should stop the start with a clear message; Slack being unreachable should not.
      // Many workspaces: no one token to check (each comes from its installation).
      try {
        if (single) {
          const me = await single.warm();
          logger.info({ botUserId: me.botUserId, teamId: me.teamId }, "Slack bot token verified");
        }
      } catch (err) {
        const code = slackCode(err);
        if (code && TOKEN_REFUSED.has(code)) {
          throw new Error(
            `Slack refused SLACK_BOT_TOKEN (${code}): copy the Bot User OAuth Token (xoxb-…) again.`,
          );
        }
        logger.warn(
          { err: (err as Error).message },
          "could not reach Slack to verify the bot token; will retry on the first request",
        );
      }
      if (socket) {
        await app.start();
        logger.info("Slack app connected in Socket Mode");
        return {};
      }
      server = (await (receiver as HTTPReceiver).start(listen ?? { port: config.PORT })) as Server;
      const port = (server.address() as AddressInfo).port;
      slackApp.port = port;
      logger.info({ port }, "Slack app listening: POST /slack/events, GET /healthz, /readyz and /metrics");
      return { port };
    },
    async stop() {
      server?.closeAllConnections();
      await app.stop();
      await events.flush?.();
    },
  };
  return slackApp;
}

/**
 * How the Bolt app finds each request's installation: what the deployment's source of installations gives it,
 * the one difference between the modes (src/host/app.ts: the environment's bot; src/host/many-workspaces.ts:
 * "Add to Slack").
 */
export interface InstallationsFront {
  /** One workspace: its bot's client and post queue, shared with its runtime (group lookups, audit posts). */
  bridge?: SlackBridge;
  /** Many workspaces: the install routes, their authorize, the shared post queue, /readyz's counts. */
  many?: CreateSlackAppOptions["many"];
  /** Many workspaces: what an uninstall or a revoked token does. */
  lifecycle?: Lifecycle;
  /** /readyz: whether the messaging API answers. */
  readiness?: Pick<ReadinessChecks, "api">;
}

/** A deployment composed (src/host/compose.ts), as the Slack app takes it: the same in both modes. */
export interface SlackDeployment {
  db: Db;
  /** Each request's workspace (the registry), given the app's hooks. */
  workspaces: { withAppHooks(hooks: SlackHooks): WorkspaceSource };
  /** The connected workspaces: what an earlier process left in each is settled at start. */
  connectedIds(): Promise<WorkspaceId[]>;
  /** A workspace's bot client without its runtime. */
  clientOf(workspace: WorkspaceId): webApi.WebClient | undefined;
  /** How each request's installation is found; undefined when Slack is not set up (the shell). */
  slackFront(): Promise<InstallationsFront | undefined>;
}

/**
 * The Slack app over a composed deployment, in either mode, started: over HTTP (or Socket Mode, single mode's
 * other front end), each request's workspace from the registry, what an earlier process left settled in every
 * connected workspace (after ready: `settled`), this replica's heartbeat beating. The modes differ only in the
 * deployment's source of installations (`slackFront`).
 */
export async function startSlackApp(
  deployment: SlackDeployment,
  config: Config,
  logger: Logger,
  opts: {
    /** The app's hooks over every workspace's own (tests). */
    hooks?: SlackHooks;
    listen?: ListenOptions;
    progress?: CreateSlackAppOptions["progress"];
  } = {},
): Promise<SlackApp> {
  const front = await deployment.slackFront();
  if (!front)
    throw new ConfigError("SLACK_BOT_TOKEN is not set: the Slack app needs the bot token (xoxb-…).");
  const slack = createSlackApp({
    workspaces: (hooks) => deployment.workspaces.withAppHooks(hooks),
    config,
    logger,
    store: await createDbEventStore(deployment.db),
    hooks: opts.hooks,
    db: deployment.db,
    progress: opts.progress,
    ...(front.bridge ? { bridge: front.bridge } : {}),
    ...(front.many ? { many: front.many } : {}),
    ...(front.readiness ? { readiness: front.readiness } : {}),
  });
  if (front.lifecycle) slack.services.lifecycle = front.lifecycle;
  await slack.start(opts.listen);
  const clientOf = (workspace: WorkspaceId) =>
    madeOnFirstUse(() => deployment.clientOf(workspace) ?? slack.client);
  // What an earlier process left in flight, workspace by workspace, each told with its own bot client
  // (after ready: a few statements a workspace, only workspaces with something left make Slack calls).
  slack.settled = (async () => {
    for (const workspace of await deployment.connectedIds()) {
      const work = await workFor(slack.services, workspace).catch(() => undefined);
      if (work) await settleLeftovers(work, clientOf(workspace), config, logger);
    }
    // Commands of workspaces not connected (an interrupted `/sb connect`), which the loop above does not visit.
    await tellOrphanedCommands(slack.services, clientOf);
  })().catch((err) => logger.warn({ err: String(err) }, "could not settle what an earlier process left"));
  return withHeartbeat(slack, clientOf, logger);
}

/**
 * PostgreSQL: this replica's heartbeat, each beat telling the commands of
 * replicas that stopped beating (recovery/interrupted-commands.ts); removed at
 * the app's stop.
 */
async function withHeartbeat(
  slack: SlackApp,
  clientOf: (workspace: WorkspaceId) => webApi.WebClient | undefined,
  logger: Logger,
): Promise<SlackApp> {
  const sweep = () =>
    tellOrphanedCommands(slack.services, clientOf).catch((err) =>
      logger.warn({ err: String(err) }, "could not tell about the commands a stopped process left"),
    );
  const beating = await keepAlive(slack.services, sweep);
  const stop = slack.stop.bind(slack);
  slack.stop = async () => {
    await beating.stop();
    await stop();
  };
  return slack;
}

/**
 * What an earlier process left in flight in one workspace, settled and told
 * (with that workspace's deps and bot client): imports, Workflow steps, thread
 * replies, slash commands and Confirms cut off by a crash.
 */
async function settleLeftovers(
  deps: WorkspaceWork,
  client: webApi.WebClient,
  config: Config,
  logger: Logger,
): Promise<void> {
  // Imports an earlier process was carrying out when it stopped: told as unknown, never run again unasked.
  await settleInterruptedImports(deps, client).catch((err) =>
    logger.warn({ err: String(err) }, "could not settle the imports an earlier process left running"),
  );
  // Workflow steps and thread replies an earlier process left in flight (a crash): ended, and told in
  // words. One younger than the API's deadline may be a live replica's: settled once that has passed.
  const graceMs = config.API_DEADLINE_MS + 10_000;
  const settle = async () => {
    await settleInterruptedSteps(deps, client, STEPS, graceMs).catch((err) =>
      logger.warn(
        { err: String(err) },
        "could not settle the workflow steps an earlier process left running",
      ),
    );
    await settleInterruptedReplies(deps, client, graceMs).catch((err) =>
      logger.warn({ err: String(err) }, "could not settle the inbox replies an earlier process left sending"),
    );
  };
  await settle();
  setTimeout(() => void settle(), graceMs).unref();
  // Commands an earlier process was killed while carrying out: the person told (on PostgreSQL, those
  // of replicas no longer beating; the heartbeat's sweep tells the rest when theirs stop: keepAlive).
  await tellInterruptedCommands(deps, client).catch((err) =>
    logger.warn({ err: String(err) }, "could not tell about the commands an earlier process left"),
  );
  // Confirms an earlier process was carrying out when it was killed: the clicker told, with a check.
  await tellInterruptedConfirmations(deps, client).catch((err) =>
    logger.warn(
      { err: String(err) },
      "could not tell about the confirmations an earlier process left running",
    ),
  );
}
