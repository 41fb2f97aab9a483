// Schema `reports`: report schedules, one row per (schedule, slot) run that
// makes posting happen once, and the last figures per (schedule, campaign)
// for "change since the previous report". Its own migration set, so it moves
// independently of schema `switchboard`. See docs/reports.md for the states.
import type { Counts, NewSchedule, RunRow, RunState, ScheduleRow, Snapshot } from "../domain/reports.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Db, Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";

/** The error of a run settled by settleInterruptedPosts. */
export const INTERRUPTED = "interrupted: the bot stopped while posting it";

export const REPORTS_MIGRATIONS: MigrationSet = {
  schema: "reports",
  migrations: [
    {
      id: "001_reports",
      sql: `
create table reports.schedules (
  id serial primary key,
  channel text not null,
  target text not null,
  cron text not null,
  tz text not null,
  description text not null,
  created_by text not null,
  created_at timestamptz not null,
  last_run_at timestamptz,
  last_posted_at timestamptz,
  deleted_at timestamptz
)
;
create index schedules_channel on reports.schedules (channel) where deleted_at is null
;
create table reports.runs (
  schedule_id integer not null references reports.schedules (id),
  slot_at timestamptz not null,
  state text not null check (state in ('claimed', 'posting', 'posted', 'failed', 'uncertain')),
  late boolean not null default false,
  attempts integer not null default 0,
  parts_posted integer not null default 0,
  claimed_by text,
  lease_until timestamptz,
  error text,
  message_refs jsonb not null default '[]',
  created_at timestamptz not null,
  updated_at timestamptz not null,
  posted_at timestamptz,
  primary key (schedule_id, slot_at)
)
;
create table reports.snapshots (
  schedule_id integer not null references reports.schedules (id),
  campaign_id integer not null,
  counts jsonb not null,
  slot_at timestamptz not null,
  taken_at timestamptz not null,
  primary key (schedule_id, campaign_id)
)
`,
    },
    {
      // When the channel was told that an uncertain run may not have been posted (its next report says so once).
      id: "002_uncertain_told",
      sql: "alter table reports.runs add column told_at timestamptz",
    },
    {
      // Per workspace: a schedule, its runs and its figures say whose they are
      // (a schedule id is unique across workspaces; the runs and snapshots
      // carry the workspace too, so each statement names it).
      id: "003_workspace",
      sql: `
alter table reports.schedules add column workspace text not null default 'env'
;
alter table reports.schedules alter column workspace drop default
;
drop index reports.schedules_channel
;
create index schedules_channel on reports.schedules (workspace, channel) where deleted_at is null
;
alter table reports.runs add column workspace text not null default 'env'
;
alter table reports.runs alter column workspace drop default
;
alter table reports.snapshots add column workspace text not null default 'env'
;
alter table reports.snapshots alter column workspace drop default
`,
    },
    {
      // What people see and type is the workspace's own number, not the id
      // counted across every workspace (which told each customer how many
      // schedules the others made). Rows kept before are numbered per
      // workspace in id order; the single mode's ("env") keep their id as
      // their number, so `/sb report delete 3` still names the same schedule
      // (ids may have gaps). Deleted schedules keep their number: never reused.
      id: "004_number",
      sql: `
alter table reports.schedules add column number integer
;
update reports.schedules s
   set number = case when s.workspace = 'env' then s.id else n.number end
  from (select id, row_number() over (partition by workspace order by id) as number from reports.schedules) n
 where n.id = s.id
;
alter table reports.schedules alter column number set not null
;
create unique index schedules_number on reports.schedules (workspace, number)
`,
    },
  ],
};

// First key of the two-key advisory lock that numbers a workspace's new
// schedules one at a time (the second is the workspace's hash); its own
// namespace, apart from the migrations' (migrate.ts) and pg-boss's.
const NUMBER_LOCK = 0x5342_5250; // "SBRP"

type Row = Record<string, unknown>;
const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const dateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : date(v));
const json = <T>(v: unknown): T => (typeof v === "string" ? JSON.parse(v) : v) as T;

const toSchedule = (r: Row): ScheduleRow => ({
  id: Number(r.id),
  number: Number(r.number),
  workspace: String(r.workspace),
  channel: String(r.channel),
  target: String(r.target),
  cron: String(r.cron),
  tz: String(r.tz),
  description: String(r.description),
  createdBy: String(r.created_by),
  createdAt: date(r.created_at),
  lastRunAt: dateOrNull(r.last_run_at),
  lastPostedAt: dateOrNull(r.last_posted_at),
});

const toRun = (r: Row): RunRow => ({
  scheduleId: Number(r.schedule_id),
  workspace: String(r.workspace),
  slotAt: date(r.slot_at),
  state: r.state as RunState,
  late: Boolean(r.late),
  attempts: Number(r.attempts),
  partsPosted: Number(r.parts_posted),
  claimedBy: (r.claimed_by as string | null) ?? null,
  leaseUntil: dateOrNull(r.lease_until),
  error: (r.error as string | null) ?? null,
  messageRefs: json<string[]>(r.message_refs ?? "[]"),
  postedAt: dateOrNull(r.posted_at),
});

export class ReportStore extends PerWorkspace<Db> {
  // One workspace's schedules, runs and figures: every statement names the workspace.
  /** The live schedules of every workspace, each with its `workspace` (the scheduler mirrors them all). */
  static async liveSchedulesAll(db: Queryable): Promise<ScheduleRow[]> {
    const { rows } = await db.query<Row>(
      "select * from reports.schedules where deleted_at is null order by id",
    );
    return rows.map(toSchedule);
  }

  // ------------------------------------------------------------ schedules

  /**
   * Stores a schedule with the workspace's next number (one more than any it
   * ever had, deleted ones included). Numbers are taken one at a time per
   * workspace (an advisory lock held until commit), so schedules made at once
   * get distinct numbers; the unique index is the last guard.
   */
  async createSchedule(s: NewSchedule, now: Date): Promise<ScheduleRow> {
    return dbOf(this).transaction(async (tx) => {
      await tx.query("select pg_advisory_xact_lock($1, hashtext($2))", [NUMBER_LOCK, this.workspace]);
      const { rows } = await tx.query<Row>(
        `insert into reports.schedules (channel, target, cron, tz, description, created_by, created_at, workspace, number)
         values ($1, $2, $3, $4, $5, $6, $7, $8,
           (select coalesce(max(number), 0) + 1 from reports.schedules where workspace = $8))
         returning *`,
        [s.channel, s.target, s.cron, s.tz, s.description, s.createdBy, now, this.workspace],
      );
      return toSchedule(rows[0] as Row);
    });
  }

  /** A live schedule by its id (the scheduler's jobs). */
  async getSchedule(id: number): Promise<ScheduleRow | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from reports.schedules where id = $1 and workspace = $2 and deleted_at is null",
      [id, this.workspace],
    );
    return rows[0] ? toSchedule(rows[0]) : undefined;
  }

  /** A live schedule by the number people see (`/sb report delete 2`). */
  async scheduleNumbered(number: number): Promise<ScheduleRow | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from reports.schedules where number = $1 and workspace = $2 and deleted_at is null",
      [number, this.workspace],
    );
    return rows[0] ? toSchedule(rows[0]) : undefined;
  }

  async listSchedules(filter: { channel?: string; createdBy?: string } = {}): Promise<ScheduleRow[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from reports.schedules
       where workspace = $3 and deleted_at is null and ($1::text is null or channel = $1)
         and ($2::text is null or created_by = $2)
       order by number`,
      [filter.channel ?? null, filter.createdBy ?? null, this.workspace],
    );
    return rows.map(toSchedule);
  }

  /** Soft delete (runs and snapshots keep referring to it). Undefined when there was no such schedule. */
  async deleteSchedule(id: number, now: Date): Promise<ScheduleRow | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "update reports.schedules set deleted_at = $2 where id = $1 and workspace = $3 and deleted_at is null returning *",
      [id, now, this.workspace],
    );
    return rows[0] ? toSchedule(rows[0]) : undefined;
  }

  // ------------------------------------------------------------ runs (once-semantics)

  /**
   * Takes a slot for one worker. Succeeds for a new slot, a slot whose last
   * attempt failed before anything uncertain happened, or a claim whose lease
   * ran out before posting began. Undefined when the slot is posted, being
   * posted, uncertain, or held by a live claim. One statement, so two workers
   * racing on one database get one winner (the primary key decides).
   */
  async claimRun(
    scheduleId: number,
    slotAt: Date,
    opts: { worker: string; now: Date; leaseMs: number; late: boolean },
  ): Promise<RunRow | undefined> {
    const lease = new Date(opts.now.getTime() + opts.leaseMs);
    const { rows } = await dbOf(this).query<Row>(
      `insert into reports.runs (schedule_id, slot_at, state, late, attempts, claimed_by, lease_until, created_at, updated_at, workspace)
       select $1, $2, 'claimed', $3, 1, $4, $5, $6, $6, $7
       where exists (select 1 from reports.schedules where id = $1 and workspace = $7)
       on conflict (schedule_id, slot_at) do update
         set state = 'claimed', attempts = reports.runs.attempts + 1, claimed_by = excluded.claimed_by,
             lease_until = excluded.lease_until, updated_at = excluded.updated_at, error = null,
             late = reports.runs.late or excluded.late
         where reports.runs.workspace = excluded.workspace and (reports.runs.state = 'failed'
            or (reports.runs.state = 'claimed' and reports.runs.lease_until < excluded.updated_at))
       returning *`,
      [scheduleId, slotAt, opts.late, opts.worker, lease, opts.now, this.workspace],
    );
    return rows[0] ? toRun(rows[0]) : undefined;
  }

  /** Claimed → posting, only by the claim's holder. False when the claim was lost. */
  async markPosting(scheduleId: number, slotAt: Date, worker: string, now: Date): Promise<boolean> {
    const r = await dbOf(this).query(
      `update reports.runs set state = 'posting', updated_at = $4
       where schedule_id = $1 and slot_at = $2 and claimed_by = $3 and workspace = $5 and state = 'claimed'`,
      [scheduleId, slotAt, worker, now, this.workspace],
    );
    return r.rowCount === 1;
  }

  /** One part (message) of a report went out: counted, so a retry resumes after it. */
  async markPartPosted(scheduleId: number, slotAt: Date, worker: string, ref: string | undefined, now: Date) {
    await dbOf(this).query(
      `update reports.runs set parts_posted = parts_posted + 1, updated_at = $5,
         message_refs = message_refs || $4::jsonb
       where schedule_id = $1 and slot_at = $2 and claimed_by = $3 and workspace = $6 and state = 'posting'`,
      [scheduleId, slotAt, worker, JSON.stringify(ref ? [ref] : []), now, this.workspace],
    );
  }

  /** Posting → posted, with the figures kept for the next report's changes, in one transaction. */
  async markPosted(
    scheduleId: number,
    slotAt: Date,
    worker: string,
    now: Date,
    snapshots: Array<{ campaignId: number; counts: Counts }>,
  ): Promise<boolean> {
    return dbOf(this).transaction(async (tx) => {
      const r = await tx.query(
        `update reports.runs set state = 'posted', posted_at = $4, updated_at = $4, error = null
         where schedule_id = $1 and slot_at = $2 and claimed_by = $3 and workspace = $5 and state = 'posting'`,
        [scheduleId, slotAt, worker, now, this.workspace],
      );
      if (r.rowCount !== 1) return false;
      await saveSnapshots(tx, this.workspace, scheduleId, slotAt, now, snapshots);
      await tx.query(
        `update reports.schedules set last_run_at = greatest(last_run_at, $2), last_posted_at = $3
         where id = $1 and workspace = $4`,
        [scheduleId, slotAt, now, this.workspace],
      );
      return true;
    });
  }

  /**
   * The attempt failed. `retryable`: nothing uncertain happened (the summary
   * failed, or Slack refused the message), so a retry may claim it again.
   * Otherwise the message may have gone out: the run becomes `uncertain` and is
   * never posted again.
   */
  async markFailed(
    scheduleId: number,
    slotAt: Date,
    worker: string,
    now: Date,
    error: string,
    retryable: boolean,
  ): Promise<void> {
    await dbOf(this).query(
      `update reports.runs set state = $5, error = $4, updated_at = $6, lease_until = null
       where schedule_id = $1 and slot_at = $2 and claimed_by = $3 and workspace = $7
         and state in ('claimed', 'posting')`,
      [
        scheduleId,
        slotAt,
        worker,
        error.slice(0, 1000),
        retryable ? "failed" : "uncertain",
        now,
        this.workspace,
      ],
    );
  }

  /**
   * Runs left `posting` by a process that stopped mid-post (kill -9, a crash)
   * become `uncertain`: the message may or may not be in the channel, and it
   * is never posted again. `stopped(worker)` says whether a run's claim
   * holder is gone; a run past its lease is gone whoever held it. Returns the
   * runs settled, of every workspace (one scheduler serves them all), each with its `workspace`.
   */
  static async settleInterruptedPostsAll(
    db: Queryable,
    now: Date,
    stopped: (worker: string) => boolean,
  ): Promise<RunRow[]> {
    const { rows } = await db.query<Row>("select * from reports.runs where state = 'posting'");
    const settled: RunRow[] = [];
    for (const run of rows.map(toRun)) {
      const expired = run.leaseUntil !== null && run.leaseUntil < now;
      if (!expired && !(run.claimedBy && stopped(run.claimedBy))) continue;
      const r = await db.query<Row>(
        `update reports.runs set state = 'uncertain', error = $4, updated_at = $5, lease_until = null
         where schedule_id = $1 and slot_at = $2 and claimed_by is not distinct from $3 and state = 'posting'
         returning *`,
        [run.scheduleId, run.slotAt, run.claimedBy, INTERRUPTED, now],
      );
      if (r.rows[0]) settled.push(toRun(r.rows[0]));
    }
    return settled;
  }

  /** Uncertain runs of a schedule its channel was not told about yet, oldest first. */
  async untoldUncertain(scheduleId: number): Promise<RunRow[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from reports.runs where schedule_id = $1 and workspace = $2 and state = 'uncertain' and told_at is null
       order by slot_at`,
      [scheduleId, this.workspace],
    );
    return rows.map(toRun);
  }

  /** The channel was told (in a report that went out) about these uncertain runs. */
  async markTold(scheduleId: number, slots: Date[], now: Date): Promise<void> {
    for (const slot of slots)
      await dbOf(this).query(
        "update reports.runs set told_at = $3 where schedule_id = $1 and slot_at = $2 and workspace = $4",
        [scheduleId, slot, now, this.workspace],
      );
  }

  async getRun(scheduleId: number, slotAt: Date): Promise<RunRow | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from reports.runs where schedule_id = $1 and slot_at = $2 and workspace = $3",
      [scheduleId, slotAt, this.workspace],
    );
    return rows[0] ? toRun(rows[0]) : undefined;
  }

  async listRuns(scheduleId: number): Promise<RunRow[]> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from reports.runs where schedule_id = $1 and workspace = $2 order by slot_at",
      [scheduleId, this.workspace],
    );
    return rows.map(toRun);
  }

  /** The latest slot that has a run at all, whatever its state. */
  async latestRun(scheduleId: number): Promise<RunRow | undefined> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from reports.runs where schedule_id = $1 and workspace = $2 order by slot_at desc limit 1",
      [scheduleId, this.workspace],
    );
    return rows[0] ? toRun(rows[0]) : undefined;
  }

  // ------------------------------------------------------------ snapshots

  async getSnapshots(scheduleId: number): Promise<Map<number, Snapshot>> {
    const { rows } = await dbOf(this).query<Row>(
      "select * from reports.snapshots where schedule_id = $1 and workspace = $2",
      [scheduleId, this.workspace],
    );
    return new Map(
      rows.map((r) => [
        Number(r.campaign_id),
        {
          campaignId: Number(r.campaign_id),
          counts: json<Counts>(r.counts),
          slotAt: date(r.slot_at),
          takenAt: date(r.taken_at),
        },
      ]),
    );
  }
}

async function saveSnapshots(
  q: Queryable,
  workspace: WorkspaceId,
  scheduleId: number,
  slotAt: Date,
  now: Date,
  snapshots: Array<{ campaignId: number; counts: Counts }>,
) {
  for (const s of snapshots) {
    await q.query(
      `insert into reports.snapshots (schedule_id, campaign_id, counts, slot_at, taken_at, workspace)
       values ($1, $2, $3::jsonb, $4, $5, $6)
       on conflict (schedule_id, campaign_id) do update
         set counts = excluded.counts, slot_at = excluded.slot_at, taken_at = excluded.taken_at
         where reports.snapshots.slot_at <= excluded.slot_at and reports.snapshots.workspace = excluded.workspace`,
      [scheduleId, s.campaignId, JSON.stringify(s.counts), slotAt, now, workspace],
    );
  }
}
