// What the `/sb report…` commands use, the same in Slack and in the shell:
// schedules in the store (and in pg-boss once the Slack app has started the
// scheduler), the caller's default time zone, and a report posted at once.
// The shell has no scheduler: its schedules are stored, and the Slack app
// mirrors them into pg-boss when it starts (ReportScheduler.start).
import type { MessagingApi } from "../api/types.ts";
import type { Actor } from "../domain/actor.ts";
import type { ScheduleRow } from "../domain/reports.ts";
import type { ReportStore } from "../store/reports.ts";
import type { ReportMessage } from "./render.ts";
import { isValidTimeZone, newScheduleOf, type ScheduleSpec } from "./schedule.ts";
import { type Clock, type PostFn, type ReportScheduler, reportNow, systemClock } from "./scheduler.ts";

export interface ReportServiceOptions {
  /** The workspace's schedules (its stores'): the commands list, add and remove them. */
  store: ReportStore;
  client: MessagingApi;
  /** REPORT_FAILURE_ALERT. */
  failureAlert: number;
  clock?: Clock;
  /** The zone a person's schedules default to (Slack: users.info `tz`). Default: this machine's zone. */
  userTz?: (actor: Actor) => Promise<string | undefined>;
  /** Posts a report message to a channel now (Slack). Absent in the shell: the answer carries the report. */
  post?: PostFn;
  /** Attach the chart picture to reports posted now (default true when `post` is set). */
  chart?: boolean;
}

/** This machine's IANA zone, else UTC. */
export function machineTimeZone(): string {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  return tz && isValidTimeZone(tz) ? tz : "UTC";
}

export class ReportService {
  readonly store: ReportStore;
  readonly failureAlert: number;
  private scheduler?: ReportScheduler;
  private starting?: Promise<ReportScheduler | undefined>;
  private clock: Clock;

  private readonly opts: ReportServiceOptions;
  constructor(opts: ReportServiceOptions) {
    this.opts = opts;
    this.store = opts.store;
    this.failureAlert = opts.failureAlert;
    this.clock = opts.clock ?? systemClock;
  }

  now(): Date {
    return this.clock.now();
  }

  /** Whether reports can be posted to Slack from here (false in the shell). */
  get canPost(): boolean {
    return Boolean(this.opts.post);
  }

  /** Whether a running scheduler picks up new schedules at once (or one that is starting). */
  get live(): boolean {
    return Boolean(this.scheduler || this.starting);
  }

  /** The Slack app hands over its started scheduler; until then schedules are only stored. */
  attach(scheduler: ReportScheduler | undefined): void {
    this.scheduler = scheduler;
    this.starting = undefined;
  }

  /**
   * The Slack app starts its scheduler after it answers (src/host/main.ts): until
   * then schedule changes wait for it, so none is stored after the scheduler
   * mirrored the store and before it was attached. A scheduler that fails to
   * start leaves them stored only (the process stops: the next start mirrors them).
   */
  attachWhenStarted(scheduler: Promise<ReportScheduler | undefined>): void {
    const starting: Promise<ReportScheduler | undefined> = scheduler.then(
      (s) => s,
      () => undefined,
    );
    this.starting = starting;
    starting.then((s) => {
      if (this.starting === starting) this.attach(s);
    });
  }

  private async schedulerNow(): Promise<ReportScheduler | undefined> {
    return this.scheduler ?? (await this.starting);
  }

  setPost(post: PostFn | undefined): void {
    this.opts.post = post;
  }

  /** Tests move time by hand; the Slack runtime passes its clock on. */
  setClock(clock: Clock): void {
    this.clock = clock;
  }

  setUserTz(userTz: ReportServiceOptions["userTz"]): void {
    this.opts.userTz = userTz;
  }

  async defaultTz(actor: Actor): Promise<string> {
    if (this.opts.userTz) {
      const tz = await this.opts.userTz(actor).catch(() => undefined);
      if (tz && isValidTimeZone(tz)) return tz;
      return "UTC";
    }
    return machineTimeZone();
  }

  async addSchedule(spec: ScheduleSpec, who: { createdBy: string; channel: string }): Promise<ScheduleRow> {
    const scheduler = await this.schedulerNow();
    if (scheduler) return scheduler.addSchedule(spec, who, this.store.workspace);
    return this.store.createSchedule(newScheduleOf(spec, who), this.clock.now());
  }

  /** By the number people see (the workspace's own); undefined when the workspace has no such live schedule. */
  async removeSchedule(number: number): Promise<ScheduleRow | undefined> {
    const row = await this.store.scheduleNumbered(number);
    if (!row) return undefined;
    const scheduler = await this.schedulerNow();
    if (scheduler) return scheduler.removeSchedule(row.id, this.store.workspace);
    return this.store.deleteSchedule(row.id, this.clock.now());
  }

  /** By the number people see (the workspace's own). */
  getSchedule(number: number): Promise<ScheduleRow | undefined> {
    return this.store.scheduleNumbered(number);
  }

  listSchedules(filter: { channel?: string; createdBy?: string } = {}): Promise<ScheduleRow[]> {
    return this.store.listSchedules(filter);
  }

  /** The report of a target now, as messages (no change figures: it belongs to no schedule). */
  build(target: string, tz: string): Promise<ReportMessage[]> {
    return reportNow(this.opts.client, target, {
      tz,
      failureAlert: this.failureAlert,
      chart: this.opts.chart ?? Boolean(this.opts.post),
      now: () => this.clock.now(),
    });
  }

  /** Posts the messages in order; throws what `post` throws. */
  async post(channel: string, messages: ReportMessage[]): Promise<void> {
    const post = this.opts.post;
    if (!post) throw new Error("reports cannot be posted from here");
    for (const m of messages) await post(channel, m);
  }
}
