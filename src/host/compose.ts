// The one composition of a deployment (issue 38 §1), in either mode: the store
// and every migration, the embedded sandbox (when MESSAGING_API_URL is unset),
// the installations and the keyring, events out, the post queue, the registry
// of workspaces (src/workspaces/registry.ts: each workspace's runtime built
// whole, from its installation), the change listener of several replicas, and
// the deployment's background work (report schedules, held starts, messages
// sent later, each workspace's inbox and live progress, the purge), and what an
// earlier process left (interrupted confirmations, upload files). What
// differs between the modes is only the source of installations (`source`:
// many-workspaces.ts's store of "Add to Slack" installations, app.ts's one
// installation of the environment), and with it how the Slack app finds each
// request's installation (`slackFront`). Nothing here knows the front end: the
// shell, Socket Mode and HTTP are picked afterwards (main.ts).
import { randomBytes } from "node:crypto";
import type { webApi } from "@slack/bolt";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import { type Logger, startPhases } from "../platform/log.ts";
import type { Keyring } from "../platform/secrets.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { InstallationsFront } from "../slack/app.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { ChannelPostQueue } from "../slack/io/post-queue.ts";
import { type Db, openDb } from "../store/db.ts";
import type { Installations } from "../store/installations.ts";
import { migrateStore } from "../store/migrations.ts";
import { purgeWorkspace } from "../store/purge.ts";
import { WorkspaceBackground } from "../workspaces/background.ts";
import type { InstallationSource } from "../workspaces/installations.ts";
import { WorkspaceRegistry } from "../workspaces/registry.ts";
import type { WorkspaceRuntime } from "../workspaces/runtime.ts";
import {
  type AutomationParts,
  automationParts,
  closeOnce,
  replicaParts,
  type SwitchboardOptions,
  settleAtStart,
  startEmbeddedSandbox,
} from "./parts.ts";

/** What the source of installations is made from: the deployment's shared parts. */
export interface SourceParts {
  db: Db;
  installations: Installations;
  keyring?: Keyring;
  /** The messaging API every workspace's key is used at (MESSAGING_API_URL, or the embedded sandbox's). */
  baseUrl: string;
  sandbox?: Sandbox;
  posts: ChannelPostQueue;
  /** The registry, once made (the source's admins tell it of a change). */
  workspaces: () => WorkspaceRegistry;
  /** Runs `fn` first when closing. */
  onClose(fn: () => Promise<void>): void;
}

/** A mode: its keyring, and its source of installations. */
export interface Mode {
  /** The keyring that seals tokens, keys and hooks (single mode without SWITCHBOARD_SECRET_KEY: none). */
  keyring(): Promise<Keyring | undefined>;
  source(parts: SourceParts): Promise<
    InstallationSource & {
      /** A workspace's bot client without its runtime (background work that needs no runtime). */
      clientOf(id: WorkspaceId): webApi.WebClient | undefined;
      /** How the Slack app finds each request's installation (none: Slack is not set up, the shell). */
      slackFront?(): Promise<InstallationsFront>;
    }
  >;
}

/** A deployment, composed: each workspace's runtime comes from `workspaces`. */
export interface Deployment {
  db: Db;
  sandbox?: Sandbox;
  installations: Installations;
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
  /** A workspace's bot client (no runtime built); none in the shell. */
  clientOf(workspace: WorkspaceId): webApi.WebClient | undefined;
  /** How the Slack app finds each request's installation, the mode's (src/slack/app.ts); undefined in the shell. */
  slackFront(): Promise<InstallationsFront | undefined>;
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function composeWorkspaces(
  config: Config,
  deps: SwitchboardOptions,
  mode: Mode,
): Promise<Deployment> {
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
    // What an earlier process left (interrupted confirmations, upload files), every workspace's.
    await settleAtStart(db, logger);
    const keyring = await mode.keyring();
    const { Keyring } = await import("../platform/secrets.ts");
    const { Installations } = await import("../store/installations.ts");
    // Without a keyring (single mode keeps no token or key of its own) the seal is this process's, never used.
    const installations = await Installations.open(db, keyring ?? new Keyring(randomBytes(32)));
    // Rotating SWITCHBOARD_SECRET_KEY: every value the previous key sealed is sealed again now.
    if (keyring && config.SWITCHBOARD_SECRET_KEY_PREVIOUS) {
      const resealed = await installations.resealAll();
      logger.info({ resealed }, "secrets sealed again with the new SWITCHBOARD_SECRET_KEY");
    }
    // Hooks' URLs and secrets are kept sealed: only with the deployment's own key (none: adding one says so).
    const automations = automationParts(config, db, keyring, logger);
    closers.unshift(() => automations.stop());
    let sandbox: Sandbox | undefined;
    let baseUrl = config.MESSAGING_API_URL;
    if (!baseUrl) {
      sandbox = await startEmbeddedSandbox(config, db, logger);
      closers.unshift(() => sandbox!.close());
      baseUrl = sandbox.url;
      phase("embedded sandbox");
    }
    const { ChannelPostQueue } = await import("../slack/io/post-queue.ts");
    const posts = new ChannelPostQueue();
    let workspaces: WorkspaceRegistry | undefined;
    const registry = () => {
      if (!workspaces) throw new Error("the workspaces are not composed yet");
      return workspaces;
    };
    const source = await mode.source({
      db,
      installations,
      ...(keyring ? { keyring } : {}),
      baseUrl,
      ...(sandbox ? { sandbox } : {}),
      posts,
      workspaces: registry,
      onClose: (fn) => closers.unshift(fn),
    });
    // Inbox pollers and live progress per workspace, and the purge of departed ones (background.ts).
    const background = new WorkspaceBackground({ db, config, logger, installations, purge: purgeWorkspace });
    // The Slack side's runners (report posts, held starts, messages sent later) and the Home tab: only with
    // Slack. The shell has none of them (a report is printed when asked for), so their modules stay unloaded.
    const slack = source.slackFront ? await slackRunners(db, config, logger, registry) : undefined;
    if (slack)
      closers.unshift(
        () => slack.laterSends.stop(),
        () => slack.heldStarts.stop(),
        () => slack.scheduler.stop(),
      );
    closers.unshift(() => background.stop());
    const replicas = await replicaParts(db);
    workspaces = new WorkspaceRegistry({
      shared: {
        config,
        logger,
        db,
        automations: automations.of,
        ...(replicas.budget ? { budget: replicas.budget } : {}),
      },
      ...(replicas.versions ? { versions: replicas.versions } : {}),
      source,
      baseUrl,
      ...(sandbox ? { channelsOf: (apiKey: string) => sandbox!.channels({ apiKey }) } : {}),
      busy: (id) => background.busy(id),
      ...(deps.background !== false ? { wakeInbox: (id: WorkspaceId) => background.wake(id) } : {}),
      slackHooks: async (rt) => {
        if (!slack) return {};
        // Tests that drive the scheduler, the inbox and the progress themselves leave them out (background false).
        const attached = deps.background !== false && Boolean(rt.slack);
        if (attached) rt.reports.attachWhenStarted(slack.scheduler.started);
        return {
          ...(attached ? await background.attach(rt) : {}),
          homeView: slack.createHomeView({
            mayAdminister: async (userId) =>
              (await rt.core.admin?.mayAdminister({ userId, via: "slack" })) ?? false,
            may: (userId, access) => rt.core.may({ userId, via: "slack" }, access),
            client: rt.client,
            stores: rt.stores,
            apiKey: rt.apiKey,
            reports: rt.reports,
            ...deps.home,
            republish: async (userId, view) => {
              await rt.slack?.client.views.publish({ user_id: userId, view }).catch((err) => {
                logger.warn({ err: (err as Error).message }, "could not publish the Home tab again");
              });
            },
          }),
        };
      },
    });
    closers.unshift(() => registry().close());
    // Several replicas: a change made on another reaches this one at once (its notice), and within
    // REPLICA_CHECK_SECONDS if the notice was lost (docs/workspaces.md).
    const { listenForChanges } = await import("../store/workspace-changes.ts");
    const told = (what: string) => (err: unknown) => logger.warn({ err: String(err) }, what);
    const feed = await listenForChanges(
      db,
      {
        changed: (id) => void registry().changed(id).catch(told("could not apply a workspace's change")),
        resync: () => registry().resync(),
      },
      logger,
      { checkEveryMs: config.REPLICA_CHECK_SECONDS * 1000 },
    );
    if (feed) closers.unshift(() => feed.stop());
    phase("installations and workspaces");
    return {
      connectedIds: () => registry().connectedIds(),
      clientOf: (id) => source.clientOf(id),
      slackFront: async () => source.slackFront?.(),
      db,
      sandbox,
      installations,
      workspaces,
      posts,
      background,
      scheduler: slack?.scheduler ?? IDLE,
      heldStarts: slack?.heldStarts ?? IDLE,
      laterSends: slack?.laterSends ?? IDLE,
      automations,
      ...closeOnce(closers, logger),
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}

/** What the shell has instead of a runner that only Slack needs: nothing to start, stop or wake. */
const IDLE = { start: async () => {}, stop: async () => {}, wake: () => {} };

/**
 * The runners of every workspace that work through Slack, loaded only when the deployment has Slack: report
 * schedules (each job with its workspace's client and bot), held starts (docs/campaigns.md) and messages sent
 * later (docs/automations.md), each once across replicas; and the Home tab's maker.
 */
async function slackRunners(db: Db, config: Config, logger: Logger, registry: () => WorkspaceRegistry) {
  /** A runner's job in a workspace: what `pick` takes of its runtime with its bot; none without a bot. */
  const inWorkspace =
    <T>(pick: (rt: WorkspaceRuntime, bridge: SlackBridge, id: WorkspaceId) => T | Promise<T>) =>
    async (id: WorkspaceId): Promise<T | undefined> => {
      const rt = await registry().runtime(id);
      return rt?.slack ? pick(rt, rt.slack, id) : undefined;
    };
  const { createSharedScheduler } = await import("../slack/features/reports/runtime.ts");
  const scheduler = createSharedScheduler({
    db,
    config,
    logger,
    forWorkspace: inWorkspace((rt, bridge) => ({ client: rt.client, bridge })),
  });
  const { createHeldStarts } = await import("../slack/features/held-starts/runtime.ts");
  const heldStarts = createHeldStarts({
    db,
    logger,
    forWorkspace: inWorkspace(async (rt, bridge, id) => {
      // Its hooks (live progress): a start that ran is followed as a launch is.
      const scope = await registry()
        .scopeOf(id)
        .catch(() => undefined);
      return { core: rt.core, bridge, stores: rt.stores, ...(scope ? { hooks: scope.hooks } : {}) };
    }),
  });
  const { createLaterSends } = await import("../slack/features/later-sends/runtime.ts");
  const laterSends = createLaterSends({
    db,
    logger,
    forWorkspace: inWorkspace((rt, bridge) => ({ core: rt.core, bridge })),
  });
  const { createHomeView } = await import("../slack/features/home/view.ts");
  return { scheduler, heldStarts, laterSends, createHomeView };
}
