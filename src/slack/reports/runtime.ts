// What the Slack app runs beside Bolt for reports: the ReportScheduler on
// pg-boss (same database: PGlite by default, PostgreSQL with DATABASE_URL),
// which on start mirrors the stored schedules into pg-boss and posts, once and
// marked late, a report missed while the bot was down; the live progress of
// launched campaigns; and the Home tab. Returns the Slack hooks to hand to
// startSlackApp. Stopped by stop() or when the switchboard closes.

import type { PgBoss } from "pg-boss";
import type { MessagingClient } from "../../api/client.ts";
import type { Config } from "../../config.ts";
import { ConfigError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { type Clock, ReportScheduler } from "../../reports/scheduler.ts";
import type { ReportService } from "../../reports/service.ts";
import { createBoss } from "../../store/boss.ts";
import type { Db } from "../../store/db.ts";
import type { SlackBridge } from "../bridge.ts";
import type { SlackHooks } from "../deps.ts";
import { createHomeView } from "../home/view.ts";
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
  /** How long the Home tab reuses the account and running campaigns (default 60 s). */
  homeCacheMs?: number;
}

export interface ReportsRuntime {
  scheduler?: ReportScheduler;
  boss?: PgBoss;
  progress: ProgressTracker;
  hooks: SlackHooks;
  stop(): Promise<void>;
}

/** What the reports runtime takes of the composition root (src/app.ts's Switchboard). */
export interface ReportsHost {
  slack?: SlackBridge;
  db: Db;
  client: MessagingClient;
  apiKey: string;
  reports: ReportService;
  onClose(fn: () => Promise<void>): void;
}

export async function startReports(
  switchboard: ReportsHost,
  config: Config,
  logger: Logger,
  opts: ReportsRuntimeOptions = {},
): Promise<ReportsRuntime> {
  const bridge = switchboard.slack;
  if (!bridge) throw new ConfigError("startReports needs the Slack bridge: SLACK_BOT_TOKEN is not set");
  const log = logger.child({ part: "reports" });
  const { db, client } = switchboard;
  if (opts.clock) switchboard.reports.setClock(opts.clock);

  let boss: PgBoss | undefined;
  let scheduler: ReportScheduler | undefined;
  if (opts.scheduler !== false) {
    boss = await createBoss(db, {
      onError: (err) => log.warn({ err: err.message }, "job queue error"),
    });
    scheduler = new ReportScheduler({
      db,
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
      await boss.stop({ graceful: false }).catch(() => {});
      throw err;
    }
    switchboard.reports.attach(scheduler);
  }

  const progress = new ProgressTracker({
    db,
    client,
    update: async (channel, ts, message) => {
      await bridge.client.chat.update({ channel, ts, text: message.text, blocks: message.blocks });
    },
    backgroundReadsPerSecond: (config.API_READ_LIMIT * Math.max(0.01, config.BACKGROUND_READ_SHARE)) / 60,
    clock: opts.clock,
    basePollMs: opts.basePollMs,
    minUpdateMs: opts.minUpdateMs,
    logger: log,
  });
  if (opts.progressTimer !== false) progress.start();

  const hooks: SlackHooks = {
    homeView: createHomeView({
      client,
      db,
      apiKey: switchboard.apiKey,
      reports: switchboard.reports,
      clock: opts.clock,
      cacheMs: opts.homeCacheMs,
      republish: async (userId, view) => {
        await bridge.client.views.publish({ user_id: userId, view }).catch((err) => {
          log.warn({ err: (err as Error).message }, "could not publish the Home tab again");
        });
      },
    }),
    onPosted: ({ channel, ts, text, reply }) => {
      const origin = reply?.origin;
      if (origin?.command !== "campaign.send" || !origin.id) return;
      progress
        .track({ channel, ts, campaignId: origin.id, intro: origin.facts ?? reply?.text ?? text })
        .catch((err) => {
          log.warn({ err: (err as Error).message, channel }, "could not follow the campaign's progress");
        });
    },
  };

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await progress.stop();
    if (scheduler) {
      switchboard.reports.attach(undefined);
      await scheduler.stop().catch((err) => log.warn({ err: String(err) }, "scheduler stop failed"));
    }
    // The worker is off already: nothing to wait for.
    await boss
      ?.stop({ graceful: false })
      .catch((err) => log.warn({ err: String(err) }, "pg-boss stop failed"));
  };
  switchboard.onClose(stop);
  return { scheduler, boss, progress, hooks, stop };
}
