// What the Slack app runs beside Bolt for reports: the ReportScheduler on
// pg-boss (same database: PGlite by default, PostgreSQL with DATABASE_URL),
// which on start mirrors the stored schedules into pg-boss and posts, once and
// marked late, a report missed while the bot was down; and the live progress
// of launched campaigns (its `onPosted` hook goes to the Slack app). Made at
// once (createReports), started once the app answers (start), stopped by
// stop() or when the switchboard closes. The Home tab is the Slack app's
// (src/slack/features/home/view.ts, built in app.ts).

import type { PgBoss } from "pg-boss";
import type { MessagingClient } from "../../../api/client.ts";
import type { Automations } from "../../../automations/index.ts";
import type { CampaignSummary } from "../../../domain/campaign-summary.ts";
import type { WorkspaceId } from "../../../domain/workspace.ts";
import type { Config } from "../../../platform/config.ts";
import { ConfigError } from "../../../platform/errors.ts";
import type { Logger } from "../../../platform/log.ts";
import { StartStop, started } from "../../../platform/started.ts";
import { type Clock, ReportScheduler } from "../../../reports/scheduler.ts";
import type { ReportService } from "../../../reports/service.ts";
import type { Db } from "../../../store/db.ts";
import type { WorkspaceStores } from "../../../store/workspace-stores.ts";
import type { SlackHooks } from "../../context.ts";
import type { SlackBridge } from "../../io/bridge.ts";
import { ProgressTracker } from "../progress/tracker.ts";
import { slackReportPoster } from "./post.ts";

export interface ReportsRuntimeOptions {
  clock?: Clock;
  /** Start the scheduler (default true). */
  scheduler?: boolean;
  /** Poll launched campaigns on a timer (default true); tests call progress.step() instead. */
  progressTimer?: boolean;
  basePollMs?: number;
  minUpdateMs?: number;
}

export interface ReportsRuntime {
  /** Set once started (unless the scheduler is off). */
  scheduler?: ReportScheduler;
  boss?: PgBoss;
  progress: ProgressTracker;
  /** For the Slack app: a launched campaign's message is followed live (once started). */
  hooks: Pick<SlackHooks, "onPosted">;
  /** Starts the scheduler and the progress; once, however often called. */
  start(): Promise<void>;
  /** Stops what started (waiting for a start under way). */
  stop(): Promise<void>;
}

/** The deployment's settings the reports runtime reads: no workspace's, no secret. */
export const REPORTS_JOB_SETTINGS = [
  "API_READ_LIMIT",
  "BACKGROUND_READ_SHARE",
  "REPORT_FAILURE_ALERT",
] as const;
export type ReportsJobConfig = Pick<Config, (typeof REPORTS_JOB_SETTINGS)[number]>;

/**
 * What a workspace's live progress is given (issue 38 §3): that workspace's id, stores, API client, bot
 * bridge, report service and automations. No database, no source of other workspaces, no API key.
 */
export interface ReportsHost {
  slack?: SlackBridge;
  /** The workspace of the live progress and of the scheduler's own store (its jobs name theirs). */
  workspace: WorkspaceId;
  /** Its stores: the live progress's tracked campaigns. */
  stores: Pick<WorkspaceStores, "progress">;
  client: MessagingClient;
  reports: ReportService;
  /** The workspace's automations: a campaign's end (completed, failed) goes to them (issue 40 §3). */
  eventsTo?: Pick<Automations, "emit">;
  onClose(fn: () => Promise<void>): void;
}

/**
 * A reports runtime with a scheduler of its own (`scheduler` not false: one workspace run alone, the tests'):
 * pg-boss keeps its queue in the deployment's database, so that runner holds it (db: a job queue's own
 * tables, not a workspace's records). A workspace's background work runs without one (the deployment's one
 * scheduler runs every workspace's jobs: createSharedScheduler).
 */
export interface OwnScheduler {
  // db: the scheduler's job queue (pg-boss) lives in the deployment's database.
  db: Db;
}

/** A campaign's end, as the tracker saw it, as its automations' event (docs/automations.md). */
export function campaignEndTo(to: Pick<Automations, "emit">) {
  return async (s: CampaignSummary): Promise<void> => {
    if (s.status === "completed")
      await to.emit("campaign.completed", { campaign_id: s.id, campaign_name: s.name });
    else if (s.status === "failed")
      await to.emit("campaign.failed", {
        campaign_id: s.id,
        campaign_name: s.name,
        reason: `${s.counts.failed} of ${s.total} recipients failed`,
      });
  };
}

/**
 * The reports runtime, made at once and started later: schedule changes made
 * meanwhile wait for its scheduler (ReportService.attachWhenStarted), a
 * launch's progress waits for its start.
 */
export function createReports(
  switchboard: ReportsHost & Partial<OwnScheduler>,
  config: ReportsJobConfig,
  logger: Logger,
  opts: ReportsRuntimeOptions = {},
): ReportsRuntime {
  const bridge = switchboard.slack;
  if (!bridge)
    throw new ConfigError("the reports runtime needs the Slack bridge: SLACK_BOT_TOKEN is not set");
  const log = logger.child({ part: "reports" });
  const { client } = switchboard;
  if (opts.clock) switchboard.reports.setClock(opts.clock);

  const progress = new ProgressTracker({
    store: switchboard.stores.progress,
    client,
    update: async (channel, ts, message) => {
      await bridge.client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
    },
    backgroundReadsPerSecond: (config.API_READ_LIMIT * Math.max(0.01, config.BACKGROUND_READ_SHARE)) / 60,
    clock: opts.clock,
    basePollMs: opts.basePollMs,
    minUpdateMs: opts.minUpdateMs,
    logger: log,
    ...(switchboard.eventsTo ? { onFinished: campaignEndTo(switchboard.eventsTo) } : {}),
  });

  const once = new StartStop(
    () => begin(),
    async () => {
      await progress.stop();
      if (runtime.scheduler) {
        switchboard.reports.attach(undefined);
        await runtime.scheduler
          .stop()
          .catch((err) => log.warn({ err: String(err) }, "scheduler stop failed"));
      }
      // The worker is off already: nothing to wait for.
      await runtime.boss
        ?.stop({ graceful: false })
        .catch((err) => log.warn({ err: String(err) }, "pg-boss stop failed"));
    },
  );
  const runtime: ReportsRuntime = {
    progress,
    hooks: {
      onPosted: ({ channel, ts, text, reply }) => {
        const origin = reply?.origin;
        // Cancelled: the campaign's live card says so at once (🚫 Cancelled), besides the answer posted.
        if (origin?.command === "campaign.cancel" && origin.id) {
          once.started
            .then(() => progress.refreshNow(origin.id as number))
            .catch((err) => {
              log.warn(
                { err: (err as Error).message, channel },
                "could not show the cancel on the campaign's card",
              );
            });
          return;
        }
        // Only a launch's live card is followed: a held start's card or a draft's is not (issue 37 §4).
        if (origin?.card?.role !== "live" || !origin.id) return;
        const intro = origin.facts ?? reply?.text ?? text;
        once.started
          .then(() => progress.track({ channel, ts, campaignId: origin.id as number, intro }))
          .catch((err) => {
            log.warn({ err: (err as Error).message, channel }, "could not follow the campaign's progress");
          });
      },
    },
    start: () => once.start(),
    stop: () => once.stop(),
  };

  const startScheduler = async (): Promise<ReportScheduler | undefined> => {
    if (opts.scheduler === false || once.stopped) return undefined;
    const db = switchboard.db;
    if (!db)
      throw new ConfigError("a reports runtime with its own scheduler needs the database (OwnScheduler)");
    // pg-boss loads here, after the app answers (docs/memory.md, "Start-up").
    const { createBoss } = await import("../../../store/boss.ts");
    const boss = await createBoss(db, {
      onError: (err) => log.warn({ err: err.message }, "job queue error"),
    });
    runtime.boss = boss;
    const scheduler = new ReportScheduler({
      db,
      workspace: switchboard.workspace,
      boss,
      client,
      post: slackReportPoster(bridge.client, bridge.posts, log),
      clock: opts.clock,
      failureAlert: config.REPORT_FAILURE_ALERT,
      logger: log,
    });
    try {
      // Mirrors the store into pg-boss, starts the worker, and queues a report missed while down.
      await scheduler.start();
    } catch (err) {
      runtime.boss = undefined;
      await boss.stop({ graceful: false }).catch(() => {});
      throw err;
    }
    runtime.scheduler = scheduler;
    return scheduler;
  };

  const begin = async (): Promise<void> => {
    const scheduler = startScheduler();
    // Until it runs, schedule changes wait for it (none stored between its mirror and its attach).
    if (opts.scheduler !== false) switchboard.reports.attachWhenStarted(scheduler);
    const started = await scheduler;
    if (started) switchboard.reports.attach(started);
    if (opts.progressTimer !== false && !once.stopped) progress.start();
  };

  switchboard.onClose(() => runtime.stop());
  return runtime;
}

/** The reports runtime, started (`createReports`, then its start). */
export const startReports = (...made: Parameters<typeof createReports>): Promise<ReportsRuntime> =>
  started(createReports(...made));

/**
 * Many workspaces: one report scheduler for the deployment (one pg-boss
 * worker; with several replicas each job still runs once), each job run with
 * its workspace's API client and bot client (`forWorkspace`). Started once the
 * app answers; `started` is what each workspace's ReportService waits for.
 */
export function createSharedScheduler(opts: {
  // db: the report scheduler runs every workspace's jobs (one pg-boss queue in the deployment's database).
  db: Db;
  config: Config;
  logger: Logger;
  forWorkspace: (workspace: string) => Promise<{ client: MessagingClient; bridge: SlackBridge } | undefined>;
}): { started: Promise<ReportScheduler>; start(): Promise<ReportScheduler>; stop(): Promise<void> } {
  const log = opts.logger.child({ part: "reports" });
  let boss: PgBoss | undefined;
  let scheduler: ReportScheduler | undefined;
  let resolveStarted!: (s: ReportScheduler) => void;
  let rejectStarted!: (err: unknown) => void;
  const started = new Promise<ReportScheduler>((resolve, reject) => {
    resolveStarted = resolve;
    rejectStarted = reject;
  });
  started.catch(() => {});
  let starting: Promise<ReportScheduler> | undefined;
  return {
    started,
    start() {
      starting ??= (async () => {
        const { createBoss } = await import("../../../store/boss.ts");
        boss = await createBoss(opts.db, {
          onError: (err) => log.warn({ err: err.message }, "job queue error"),
        });
        scheduler = new ReportScheduler({
          db: opts.db,
          workspace: "",
          boss,
          forWorkspace: async (workspace) => {
            const io = await opts.forWorkspace(workspace);
            return (
              io && { client: io.client, post: slackReportPoster(io.bridge.client, io.bridge.posts, log) }
            );
          },
          failureAlert: opts.config.REPORT_FAILURE_ALERT,
          logger: log,
        });
        await scheduler.start();
        resolveStarted(scheduler);
        return scheduler;
      })();
      starting.catch(rejectStarted);
      return starting;
    },
    async stop() {
      await starting?.catch(() => {});
      await scheduler?.stop().catch((err) => log.warn({ err: String(err) }, "scheduler stop failed"));
      await boss
        ?.stop({ graceful: false })
        .catch((err) => log.warn({ err: String(err) }, "pg-boss stop failed"));
    },
  };
}
