// Scheduled reports on pg-boss: each schedule is a pg-boss cron schedule (with
// its time zone) on the `reports` queue; the worker works out the slot the job
// stands for, claims (schedule, slot) in the store, computes the summary,
// posts through the injected `post`, and marks it posted. The claim row makes
// posting happen at most once per slot whatever retries or processes do; see
// docs/reports.md for the states and the trade-off.

import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import type { PgBoss } from "pg-boss";
import type { MessagingApi } from "../api/types.ts";
import type { ScheduleRow } from "../domain/reports.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../domain/workspace.ts";
import { SwitchboardError } from "../platform/errors.ts";
import type { LogsAt } from "../platform/log.ts";
import { metrics } from "../platform/metrics.ts";
import type { Db } from "../store/db.ts";
import { InboxStore } from "../store/inbox.ts";
import { isAlive } from "../store/pid.ts";
import { INTERRUPTED, ReportStore } from "../store/reports.ts";
import { chartFile } from "./chart.ts";
import { deskFigures, renderDeskReport } from "./desk.ts";
import { type RenderOptions, type ReportMessage, renderReport, targetLabel } from "./render.ts";
import { lastRunAtOrBefore, newScheduleOf, type ScheduleSpec, targetFromText } from "./schedule.ts";
import { type Report, summarize } from "./summary.ts";

export interface Clock {
  now(): Date;
}
export const systemClock: Clock = { now: () => new Date() };

/** What the Slack side returns for a posted message: its `ts`, kept with the run. */
export type PostResult = { ref?: string } | undefined;
/** chat.postMessage (and the chart upload) for one message; the Slack side supplies it. */
export type PostFn = (channel: string, message: ReportMessage) => Promise<PostResult>;

/**
 * Thrown by `post` when Slack answered and refused the message (so nothing was
 * posted and a retry is safe); the Slack side makes it from Slack's errors.
 */
export class PostRefusedError extends SwitchboardError {
  readonly code = "post_refused";
  readonly posted = false;
  /** Why: the channel is closed to the bot (not in it, archived, deleted), or the message itself was refused. */
  readonly reason: "channel_closed" | "refused";

  constructor(message: string, options: { cause?: unknown; reason?: PostRefusedError["reason"] } = {}) {
    super(message, options);
    this.reason = options.reason ?? "refused";
  }
}

/**
 * Whether a failed post certainly did not reach the channel. Only then is it
 * retried; anything else (a timeout, a reset connection) may have posted, and
 * posting twice is worse than missing one report.
 */
export function definitelyNotPosted(err: unknown): boolean {
  return err instanceof PostRefusedError;
}

export interface RetryPolicy {
  /** Retries after the first attempt. */
  limit: number;
  /** First delay in seconds; doubled each retry when backoff is on. */
  delaySeconds: number;
  backoff: boolean;
  maxDelaySeconds?: number;
}

export type SchedulerLogger = LogsAt<"info" | "warn" | "error">;

export interface SchedulerOptions {
  db: Db;
  /**
   * The workspace of `store` and of the calls that name none. One scheduler
   * serves every workspace's schedules (one pg-boss worker): each job names
   * its workspace, and its slot runs with that workspace's store.
   */
  workspace: WorkspaceId;
  /** A started PgBoss on the same database (src/store/boss.ts createBoss). */
  boss: PgBoss;
  /** The API client and poster of every job, unless `forWorkspace` gives each workspace its own. */
  client?: MessagingApi;
  post?: PostFn;
  /**
   * Many workspaces: the API client and the poster of a job's workspace (its
   * own key and bot token); undefined when it is not connected any more, and
   * its reports then wait (the slot is skipped, said in the log). Without it,
   * every job uses `client` and `post`.
   */
  forWorkspace?: (workspace: WorkspaceId) => Promise<{ client: MessagingApi; post: PostFn } | undefined>;
  clock?: Clock;
  /** REPORT_FAILURE_ALERT. */
  failureAlert?: number;
  queue?: string;
  /** Name of this process in claims; defaults to host:pid:random. */
  workerId?: string;
  /** How long a claim holds before another worker may take a slot whose posting never began. */
  leaseMs?: number;
  /** A report posted this long after its slot says it is late. */
  lateAfterMs?: number;
  retry?: Partial<RetryPolicy>;
  pollingIntervalSeconds?: number;
  /** Attach the chart picture (default true). */
  chart?: boolean;
  logger?: SchedulerLogger;
}

export interface SlotJob {
  scheduleId: number;
  /** Whose schedule; absent in jobs queued before workspaces (they are "env"'s). */
  workspace?: WorkspaceId;
  /** ISO time of the slot; absent in jobs pg-boss's cron sends (the slot is then the latest due). */
  slot?: string;
  /** Set by the start-up catch-up for a report missed while down. */
  late?: boolean;
}

export type SlotOutcome =
  | { kind: "posted"; parts: number; late: boolean }
  /** Someone else holds or finished this slot. */
  | { kind: "skipped"; reason: string }
  /** The schedule was deleted. */
  | { kind: "gone" }
  /** The post failed in a way that may have posted: never retried. */
  | { kind: "uncertain"; error: string };

export const DEFAULT_RETRY: RetryPolicy = { limit: 5, delaySeconds: 30, backoff: true, maxDelaySeconds: 900 };

const silent: SchedulerLogger = { info() {}, warn() {}, error() {} };
const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

export class ReportScheduler {
  readonly store: ReportStore;
  readonly queue: string;
  readonly workerId: string;
  readonly boss: PgBoss;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly lateAfterMs: number;
  private readonly retry: RetryPolicy;
  private workId?: string;

  private readonly opts: SchedulerOptions;
  constructor(opts: SchedulerOptions) {
    this.opts = opts;
    // stores: the report scheduler runs every workspace's jobs; this is its own workspace's schedules
    this.store = new ReportStore(opts.db, opts.workspace);
    this.boss = opts.boss;
    this.clock = opts.clock ?? systemClock;
    this.queue = opts.queue ?? "reports";
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.leaseMs = opts.leaseMs ?? 10 * 60_000;
    this.lateAfterMs = opts.lateAfterMs ?? 5 * 60_000;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
  }

  private get log() {
    return this.opts.logger ?? silent;
  }

  /** Creates the queue, mirrors the store's schedules into pg-boss, starts the worker, catches up. */
  async start(): Promise<void> {
    const retry = {
      retryLimit: this.retry.limit,
      retryDelay: this.retry.delaySeconds,
      retryBackoff: this.retry.backoff,
      ...(this.retry.backoff && this.retry.maxDelaySeconds
        ? { retryDelayMax: this.retry.maxDelaySeconds }
        : {}),
    };
    if (await this.boss.getQueue(this.queue)) await this.boss.updateQueue(this.queue, retry);
    else await this.boss.createQueue(this.queue, retry);
    await this.syncSchedules();
    await this.settleInterrupted(true);
    this.workId = await this.boss.work<SlotJob>(
      this.queue,
      { batchSize: 1, pollingIntervalSeconds: this.opts.pollingIntervalSeconds ?? 2 },
      async (jobs) => {
        for (const job of jobs) await this.handle(job.data);
      },
    );
    await this.catchUp();
  }

  async stop(): Promise<void> {
    if (this.workId) await this.boss.offWork(this.queue, { wait: true });
    this.workId = undefined;
  }

  /**
   * Posts an earlier process left `posting` (it stopped mid-post) become
   * `uncertain`: never posted again, and the channel's next report says so.
   * At start, a holder on this host whose process has ended is gone at once;
   * any holder is gone once its lease ran out (another host, a new container).
   */
  async settleInterrupted(atStart = false): Promise<number> {
    const host = `${hostname()}:`;
    const stopped = (worker: string) => {
      if (!atStart || !worker.startsWith(host)) return false;
      const pid = Number(worker.slice(host.length).split(":")[0]);
      return Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
    };
    const settled = await ReportStore.settleInterruptedPostsAll(this.opts.db, this.clock.now(), stopped);
    for (const run of settled)
      this.log.error(
        { scheduleId: run.scheduleId, workspace: run.workspace, slot: run.slotAt, worker: run.claimedBy },
        "report post interrupted (the process stopped): may not have been posted, not posted again",
      );
    return settled.length;
  }

  /** The API client and poster of a workspace's reports (`forWorkspace`'s, else this scheduler's own). */
  private async ioOf(workspace: WorkspaceId): Promise<{ client: MessagingApi; post: PostFn } | undefined> {
    if (this.opts.forWorkspace) return this.opts.forWorkspace(workspace);
    const { client, post } = this.opts;
    return client && post ? { client, post } : undefined;
  }

  /** The store of a workspace's schedules (this scheduler's own, or another's for its jobs). */
  storeFor(workspace: WorkspaceId): ReportStore {
    // stores: the report scheduler runs every workspace's jobs, each with the store of the job's workspace
    return workspace === this.store.workspace ? this.store : new ReportStore(this.opts.db, workspace);
  }

  /** pg-boss's cron schedules follow the store's: one per live schedule of every workspace, keyed by its id. */
  async syncSchedules(): Promise<void> {
    const live = await ReportStore.liveSchedulesAll(this.opts.db);
    const wanted = new Map(live.map((s) => [String(s.id), s]));
    for (const s of await this.boss.getSchedules(this.queue)) {
      const w = wanted.get(s.key);
      if (!w || w.cron !== s.cron || w.tz !== s.timezone) await this.boss.unschedule(this.queue, s.key);
    }
    for (const s of live) await this.scheduleInBoss(s);
  }

  private async scheduleInBoss(s: ScheduleRow) {
    const data: SlotJob = { scheduleId: s.id, workspace: s.workspace };
    await this.boss.schedule(this.queue, s.cron, data, { tz: s.tz, key: String(s.id) });
  }

  /** Stores a schedule and registers its cron. `channel` must be a channel id Slack can post to. */
  async addSchedule(
    spec: ScheduleSpec,
    who: { createdBy: string; channel: string },
    workspace: WorkspaceId = this.store.workspace,
  ): Promise<ScheduleRow> {
    const row = await this.storeFor(workspace).createSchedule(newScheduleOf(spec, who), this.clock.now());
    await this.scheduleInBoss(row);
    return row;
  }

  /** Undefined when the workspace has no such schedule (another workspace's is not touched). */
  async removeSchedule(
    id: number,
    workspace: WorkspaceId = this.store.workspace,
  ): Promise<ScheduleRow | undefined> {
    const row = await this.storeFor(workspace).deleteSchedule(id, this.clock.now());
    if (row) await this.boss.unschedule(this.queue, String(id));
    return row;
  }

  /**
   * For each schedule, the latest slot due now: enqueued when it has no run
   * yet (or only a failed one). Run at start, it posts a report missed while
   * the bot was down, once, marked late; older missed slots are not posted
   * (one late report says more than a burst of stale ones).
   */
  async catchUp(): Promise<number> {
    const now = this.clock.now();
    let queued = 0;
    for (const s of await ReportStore.liveSchedulesAll(this.opts.db)) {
      const slot = lastRunAtOrBefore(s.cron, s.tz, now);
      if (!slot || slot < s.createdAt) continue;
      const run = await this.storeFor(s.workspace).getRun(s.id, slot);
      if (
        run &&
        run.state !== "failed" &&
        !(run.state === "claimed" && run.leaseUntil && run.leaseUntil < now)
      ) {
        continue;
      }
      const late = now.getTime() - slot.getTime() > this.lateAfterMs;
      const job: SlotJob = { scheduleId: s.id, workspace: s.workspace, slot: slot.toISOString(), late };
      // The singleton key spares a duplicate job; the store's claim is what makes posting once.
      await this.boss.send(this.queue, job, { singletonKey: `${s.id}@${job.slot}` });
      queued++;
      this.log.info({ scheduleId: s.id, slot: job.slot, late }, "report due: queued");
    }
    return queued;
  }

  private async handle(job: SlotJob): Promise<SlotOutcome> {
    const workspace = job.workspace ?? ENV_WORKSPACE;
    const s = await this.storeFor(workspace).getSchedule(job.scheduleId);
    if (!s) return { kind: "gone" };
    const slot = job.slot ? new Date(job.slot) : lastRunAtOrBefore(s.cron, s.tz, this.clock.now());
    if (!slot || Number.isNaN(slot.getTime())) return { kind: "skipped", reason: "no slot due" };
    const outcome = await this.runSlot(s.id, slot, { late: job.late ?? false, workspace }).catch(
      (err: unknown) => {
        metrics.reportRuns.inc({ outcome: "failed" }); // pg-boss tries again
        throw err;
      },
    );
    metrics.reportRuns.inc({ outcome: outcome.kind });
    return outcome;
  }

  /**
   * Posts the report of one slot, at most once across retries and processes.
   * Throws when the attempt failed and nothing was posted (pg-boss retries
   * it with backoff); returns otherwise.
   */
  async runSlot(
    scheduleId: number,
    slot: Date,
    opts: { late?: boolean; workspace?: WorkspaceId } = {},
  ): Promise<SlotOutcome> {
    const store = this.storeFor(opts.workspace ?? this.store.workspace);
    const s = await store.getSchedule(scheduleId);
    if (!s) return { kind: "gone" };
    const io = await this.ioOf(s.workspace);
    if (!io) {
      this.log.warn({ scheduleId, slot }, "report not posted: its workspace is not connected (it waits)");
      return { kind: "skipped", reason: "workspace not connected" };
    }
    const now = this.clock.now();
    const late = (opts.late ?? false) || now.getTime() - slot.getTime() > this.lateAfterMs;
    const run = await store.claimRun(scheduleId, slot, {
      worker: this.workerId,
      now,
      leaseMs: this.leaseMs,
      late,
    });
    if (!run) return { kind: "skipped", reason: "slot already taken" };
    const w = this.workerId;

    let messages: ReportMessage[];
    let report: Report;
    let uncertain: Array<{ slotAt: Date; interrupted: boolean }>;
    try {
      // Earlier reports of this schedule that may not have gone out: said once, in this one.
      await this.settleInterrupted();
      uncertain = (await store.untoldUncertain(scheduleId))
        .filter((r) => r.slotAt.getTime() !== slot.getTime())
        .map((r) => ({ slotAt: r.slotAt, interrupted: r.error === INTERRUPTED }));
      ({ report, messages } = await this.build(
        s,
        { lateSlot: run.late ? slot : undefined, uncertain, slot },
        io,
      ));
    } catch (err) {
      await store.markFailed(scheduleId, slot, w, this.clock.now(), message(err), true);
      this.log.warn(
        { scheduleId, slot, err: message(err), attempt: run.attempts },
        "report failed: will retry",
      );
      throw err;
    }

    if (!(await store.markPosting(scheduleId, slot, w, this.clock.now()))) {
      return { kind: "skipped", reason: "claim lost" };
    }
    // A retry after a refused part resumes after the parts already out.
    for (const [i, msg] of messages.entries()) {
      if (i < run.partsPosted) continue;
      try {
        const res = await io.post(s.channel, msg);
        await store.markPartPosted(scheduleId, slot, w, res?.ref, this.clock.now());
      } catch (err) {
        const retryable = definitelyNotPosted(err);
        await store.markFailed(scheduleId, slot, w, this.clock.now(), message(err), retryable);
        if (retryable) {
          this.log.warn({ scheduleId, slot, err: message(err) }, "report refused by Slack: will retry");
          throw err;
        }
        this.log.error(
          { scheduleId, slot, err: message(err) },
          "report post failed and may have gone out: not posted again",
        );
        return { kind: "uncertain", error: message(err) };
      }
    }
    await store.markPosted(
      scheduleId,
      slot,
      w,
      this.clock.now(),
      report.campaigns.map((c) => ({ campaignId: c.id, counts: c.counts })),
    );
    if (uncertain.length)
      await store.markTold(
        scheduleId,
        uncertain.map((u) => u.slotAt),
        this.clock.now(),
      );
    // Request counts are for operators (the log) and the benchmarks, not for the channel.
    this.log.info(
      { scheduleId, slot, parts: messages.length, late: run.late, requests: report.requests },
      "report posted",
    );
    return { kind: "posted", parts: messages.length, late: run.late };
  }

  /** The summary and its messages for a schedule, with the change since its previous report. */
  async build(
    s: ScheduleRow,
    extra: { lateSlot?: Date; uncertain?: RenderOptions["uncertain"]; slot?: Date } = {},
    io: { client: MessagingApi },
  ): Promise<{ report: Report; messages: ReportMessage[] }> {
    const target = targetFromText(s.target);
    // The desk of the inbox in the schedule's channel, since the slot before: the store's records, no API read.
    if (target.kind === "inbox") {
      const to = extra.slot ?? this.clock.now();
      const from =
        lastRunAtOrBefore(s.cron, s.tz, new Date(to.getTime() - 1)) ?? new Date(to.getTime() - 86_400_000);
      const figures = await deskFigures(
        // stores: the report scheduler runs every workspace's jobs: the desk of the schedule's workspace
        new InboxStore(this.opts.db, s.workspace).clocks,
        s.channel,
        from,
        to,
        this.clock.now(),
      );
      const report: Report = {
        target,
        generatedAt: this.clock.now(),
        campaigns: [],
        omitted: 0,
        errors: [],
        requests: 0,
      };
      return { report, messages: [renderDeskReport(figures, { tz: s.tz, late: Boolean(extra.lateSlot) })] };
    }
    const report = await summarize(io.client, target, {
      lane: "background",
      now: () => this.clock.now(),
    });
    const previous = await this.storeFor(s.workspace).getSnapshots(s.id);
    const chart =
      this.opts.chart === false || report.campaigns.length === 0
        ? undefined
        : chartFile(
            report.campaigns,
            chartTitle(target, report),
            report.generatedAt.toISOString().slice(0, 16).replace(/[:T]/g, "-"),
          );
    const messages = renderReport(report, {
      failureAlert: this.opts.failureAlert ?? 0.05,
      tz: s.tz,
      previous,
      scheduleNumber: s.number,
      cadence: s.description,
      lateSlot: extra.lateSlot,
      uncertain: extra.uncertain,
      chart,
    });
    return { report, messages };
  }
}

/** The chart's title names the campaign when the report is of one: "Campaign report · Spring sale". */
const chartTitle = (
  target: ReturnType<typeof targetFromText>,
  report: { campaigns: Array<{ name: string }> },
) =>
  `Campaign report · ${target.kind === "campaign" && report.campaigns[0]?.name ? report.campaigns[0].name : targetLabel(target)}`;

/**
 * `/sb report now`: a report at once, not tied to a schedule (no change
 * figures, nothing stored). A person is waiting, so it asks in the
 * interactive lane, not at the background pace of scheduled reports.
 */
export async function reportNow(
  client: MessagingApi,
  targetWord: string,
  opts: { tz: string; failureAlert: number; chart?: boolean; now?: () => Date },
): Promise<ReportMessage[]> {
  const target = targetFromText(targetWord);
  // A bug if reached: `report now inbox` is answered with `/sb inbox report` before.
  if (target.kind === "inbox") throw new Error("the desk report at once is `/sb inbox report`");
  const report = await summarize(client, target, { lane: "interactive", now: opts.now });
  const chart =
    opts.chart === false || report.campaigns.length === 0
      ? undefined
      : chartFile(report.campaigns, chartTitle(target, report), String(report.generatedAt.getTime()));
  return renderReport(report, { failureAlert: opts.failureAlert, tz: opts.tz, chart });
}
