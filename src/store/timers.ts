// The claimed-once timer (schema `timers`, issue 37 §6, issue 40 §2): work a
// person set for a time, done once whichever process gets there first (a
// restart, another replica). Generic: a row is a `kind` (`message.later`: a
// message sent later; `campaign-start`: a held start, held-starts.ts), who set
// it, when, its payload (the kind's own JSON) and the message that shows it.
// Each state change is one conditional update, the claim by the version read:
//   waiting → running → done | failed | unknown (the outcome not known: never repeated)
//   running → skipped (nothing left to do) | refused (a rail said no) | waiting (held again, a new time)
//   waiting → cancelled | asked (missed while stopped: whoever set it is asked) → cancelled
// A row's number is its workspace's own (1, 2, 3… per workspace and kind),
// never a global serial, so one workspace's numbers say nothing of another's.
// A kind may keep one live timer (waiting, asked, running) per value of a
// payload member, by a unique index of its own (setOnly).
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { storable } from "./text.ts";

export const TIMERS_MIGRATIONS: MigrationSet = {
  schema: "timers",
  migrations: [
    {
      id: "001_timers",
      sql: `
create table timers.due (
  id bigserial primary key,
  workspace text not null,
  kind text not null,
  number integer not null,
  at timestamptz not null,
  set_by text not null,
  via text not null,
  payload jsonb not null,
  state text not null default 'waiting',
  detail text,
  decided_by text,
  claimed_by text,
  version integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  ran_at timestamptz,
  unique (workspace, kind, number)
)
;
create index due_waiting on timers.due (kind, at) where state = 'waiting'
;
create table timers.numbers (
  workspace text not null,
  kind text not null,
  last integer not null,
  primary key (workspace, kind)
)
`,
    },
    {
      // Held starts move onto the timer (kind `campaign-start`): the message that shows a timer (its card), one
      // live start per campaign, and every row of held.starts copied with its number (its id: the numbers
      // people and cards know), state (held → waiting, sent → done), claim, version, card and times, so a
      // deployment upgrading with starts waiting loses none and sends none twice. The table is locked first (a
      // replica of the older version still writing waits, then finds it gone) and dropped: the timer is the
      // one place a start is kept. Schema `held` keeps its list of migrations, so an older Switchboard started
      // on this database stops at this one rather than making the table again. A new database has no `held`.
      id: "002_campaign_starts",
      sql: `
alter table timers.due add column channel text
;
alter table timers.due add column ts text
;
create unique index due_campaign_start_live on timers.due (workspace, (payload->>'campaignId'))
  where kind = 'campaign-start' and state in ('waiting', 'asked', 'running')
;
do $$
begin
  if to_regclass('held.starts') is not null then
    lock table held.starts in access exclusive mode;
    insert into timers.due (workspace, kind, number, at, set_by, via, payload, state, detail, decided_by,
        claimed_by, version, created_at, updated_at, ran_at, channel, ts)
      select workspace, 'campaign-start', id::integer, at, requested_by, via,
          jsonb_build_object('campaignId', campaign_id, 'campaignName', campaign_name, 'reason', reason),
          case state when 'held' then 'waiting' when 'sent' then 'done' else state end,
          detail, decided_by, claimed_by, version, created_at, updated_at, ran_at, channel, ts
        from held.starts;
    insert into timers.numbers (workspace, kind, last)
      select workspace, 'campaign-start', max(id)::integer from held.starts group by workspace
      on conflict (workspace, kind) do update set last = greatest(timers.numbers.last, excluded.last);
    drop table held.starts;
  end if;
end
$$
`,
    },
  ],
};

export type TimerState =
  | "waiting"
  | "running"
  | "done"
  | "failed"
  | "unknown"
  | "cancelled"
  | "skipped"
  | "refused"
  | "asked";

/** A timer still to be done, or being done: at most one of them per value where a kind keeps one (setOnly). */
const LIVE: readonly TimerState[] = ["waiting", "asked", "running"];

export interface Timer<P = Record<string, unknown>> {
  id: number;
  workspace: WorkspaceId;
  kind: string;
  /** The workspace's own number of it (per kind). */
  number: number;
  at: Date;
  /** Slack user id, or `shell`. */
  setBy: string;
  via: "slack" | "shell";
  payload: P;
  state: TimerState;
  /** Why it failed or what is not known (words). */
  detail?: string;
  /** Who cancelled it. */
  decidedBy?: string;
  claimedBy?: string;
  createdAt: Date;
  updatedAt: Date;
  /** Bumped by every change: a claim names the version it read, so one changed since is not run. */
  version: number;
  /** When it was claimed to be done (its last claim). */
  ranAt?: Date;
  /** The message that shows it (edited when its state changes). */
  channel?: string;
  ts?: string;
}

type Row = Record<string, unknown>;
const toTimer = <P>(r: Row): Timer<P> => ({
  id: Number(r.id),
  workspace: String(r.workspace),
  kind: String(r.kind),
  number: Number(r.number),
  at: new Date(r.at as string),
  setBy: String(r.set_by),
  via: r.via === "shell" ? "shell" : "slack",
  payload: (typeof r.payload === "string" ? JSON.parse(r.payload) : r.payload) as P,
  state: String(r.state) as TimerState,
  detail: (r.detail as string | null) ?? undefined,
  decidedBy: (r.decided_by as string | null) ?? undefined,
  claimedBy: (r.claimed_by as string | null) ?? undefined,
  createdAt: new Date(r.created_at as string),
  updatedAt: new Date(r.updated_at as string),
  version: Number(r.version ?? 0),
  ranAt: r.ran_at ? new Date(r.ran_at as string) : undefined,
  channel: (r.channel as string | null) ?? undefined,
  ts: (r.ts as string | null) ?? undefined,
});

/** What a state change may also change (move). */
export interface TimerChange<P> {
  /** Why it failed, was skipped or refused, or what is not known (words). */
  detail?: string;
  decidedBy?: string;
  claimedBy?: string;
  /** Only if the timer is still at this version (the one read): one changed since is left alone. */
  version?: number;
  /** A new time, a new payload (an edit while waiting). */
  at?: Date;
  payload?: P;
  /** Members of the payload changed, the others kept. */
  merge?: Partial<P>;
}

/** Strings in a payload made storable (NUL, lone surrogates), as every text written into the store. */
const storablePayload = (p: unknown): string =>
  JSON.stringify(p, (_k, v: unknown) => (typeof v === "string" ? storable(v) : v));

/** One workspace's timers of one kind. */
export class Timers<P = Record<string, unknown>> {
  readonly #db: Queryable;
  readonly workspace: WorkspaceId;
  readonly kind: string;

  constructor(db: Queryable, workspace: WorkspaceId, kind: string) {
    this.#db = db;
    this.workspace = workspace;
    this.kind = kind;
  }

  /** A new timer, numbered next in its workspace (the number taken in one statement, so replicas never share one). */
  async set(t: {
    at: Date;
    setBy: string;
    via: "slack" | "shell";
    payload: P;
    now: Date;
  }): Promise<Timer<P>> {
    const r = await this.#db.query(
      `with n as (
         insert into timers.numbers (workspace, kind, last) values ($1, $2, 1)
         on conflict (workspace, kind) do update set last = timers.numbers.last + 1
         returning last
       )
       insert into timers.due (workspace, kind, number, at, set_by, via, payload, created_at, updated_at)
       select $1, $2, n.last, $3, $4, $5, $6::jsonb, $7, $7 from n
       returning *`,
      [this.workspace, this.kind, t.at, t.setBy, t.via, storablePayload(t.payload), t.now],
    );
    return toTimer<P>(r.rows[0] as Row);
  }

  /**
   * Sets the one live timer of its kind whose payload's `member` is the new payload's: one waiting or asked
   * is moved to the new time, setter and payload (its version bumped, so a runner that read it before does
   * not run it), else a new one is numbered. Undefined when one is running. The kind's unique index on that
   * member (live states) keeps two set at once from both being new.
   */
  async setOnly(
    member: keyof P & string,
    t: { at: Date; setBy: string; via: "slack" | "shell"; payload: P; now: Date },
  ): Promise<Timer<P> | undefined> {
    const value = String(t.payload[member]);
    const payload = storablePayload(t.payload);
    const moved = await this.#db.query(
      `update timers.due set at = $5, set_by = $6, via = $7, payload = $8::jsonb, state = 'waiting',
         detail = null, decided_by = null, updated_at = $9, version = version + 1
       where workspace = $1 and kind = $2 and payload->>$3 = $4 and state in ('waiting', 'asked')
       returning *`,
      [this.workspace, this.kind, member, value, t.at, t.setBy, t.via, payload, t.now],
    );
    if (moved.rows[0]) return toTimer<P>(moved.rows[0] as Row);
    // Numbered only when none is live; one set meanwhile elsewhere wins by the unique index (nothing made).
    const r = await this.#db.query(
      `with n as (
         insert into timers.numbers (workspace, kind, last)
         select $1, $2, 1 where not exists (
           select 1 from timers.due where workspace = $1 and kind = $2 and payload->>$3 = $4
             and state = any($10::text[]))
         on conflict (workspace, kind) do update set last = timers.numbers.last + 1
         returning last
       )
       insert into timers.due (workspace, kind, number, at, set_by, via, payload, created_at, updated_at)
       select $1, $2, n.last, $5, $6, $7, $8::jsonb, $9, $9 from n
       on conflict do nothing
       returning *`,
      [this.workspace, this.kind, member, value, t.at, t.setBy, t.via, payload, t.now, [...LIVE]],
    );
    return r.rows[0] ? toTimer<P>(r.rows[0] as Row) : undefined;
  }

  /** The timer whose payload's `member` is `value`: the live one (waiting, asked, running), else the latest. */
  async latestOf(member: keyof P & string, value: string | number): Promise<Timer<P> | undefined> {
    const r = await this.#db.query(
      `select * from timers.due where workspace = $1 and kind = $2 and payload->>$3 = $4
       order by (state = any($5::text[])) desc, number desc limit 1`,
      [this.workspace, this.kind, member, String(value), [...LIVE]],
    );
    return r.rows[0] ? toTimer<P>(r.rows[0] as Row) : undefined;
  }

  /** The message that shows the timer, to edit it when its state changes (no change of the timer itself). */
  async setCard(number: number, channel: string, ts: string): Promise<void> {
    await this.#db.query(
      "update timers.due set channel = $4, ts = $5 where workspace = $1 and kind = $2 and number = $3",
      [this.workspace, this.kind, number, channel, ts],
    );
  }

  async get(number: number): Promise<Timer<P> | undefined> {
    const r = await this.#db.query(
      "select * from timers.due where workspace = $1 and kind = $2 and number = $3",
      [this.workspace, this.kind, number],
    );
    return r.rows[0] ? toTimer<P>(r.rows[0] as Row) : undefined;
  }

  /** Those waiting, the soonest first; only those `setBy` set when given. */
  async waiting(setBy?: string): Promise<Timer<P>[]> {
    const r = await this.#db.query(
      `select * from timers.due where workspace = $1 and kind = $2 and state = 'waiting'
         and ($3::text is null or set_by = $3) order by at, number limit 200`,
      [this.workspace, this.kind, setBy ?? null],
    );
    return r.rows.map((row) => toTimer<P>(row as Row));
  }

  /**
   * One state change, taken only from one of `from` (and at `version` when given): the claim. Undefined when
   * the timer is not (any more) so: someone else got there first, or it changed since it was read.
   */
  async move(
    number: number,
    from: readonly TimerState[],
    to: TimerState,
    now: Date,
    extra: TimerChange<P> = {},
  ): Promise<Timer<P> | undefined> {
    const r = await this.#db.query(
      `update timers.due set state = $5, updated_at = $6, version = version + 1,
         detail = coalesce($7, detail), decided_by = coalesce($8, decided_by), claimed_by = coalesce($9, claimed_by),
         at = coalesce($11, at), payload = coalesce($12::jsonb, payload) || coalesce($13::jsonb, '{}'::jsonb),
         ran_at = case when $5 = 'running' then $6 else ran_at end
       where workspace = $1 and kind = $2 and number = $3 and state = any($4::text[])
         and ($10::integer is null or version = $10)
       returning *`,
      [
        this.workspace,
        this.kind,
        number,
        [...from],
        to,
        now,
        extra.detail === undefined ? null : storable(extra.detail),
        extra.decidedBy ?? null,
        extra.claimedBy ?? null,
        extra.version ?? null,
        extra.at ?? null,
        extra.payload === undefined ? null : storablePayload(extra.payload),
        extra.merge === undefined ? null : storablePayload(extra.merge),
      ],
    );
    return r.rows[0] ? toTimer<P>(r.rows[0] as Row) : undefined;
  }

  /** Timers of `kind` due at `now`, of every workspace but `skip` (those that wait), the oldest first. */
  static async dueAll<P>(
    db: Queryable,
    kind: string,
    now: Date,
    limit = 50,
    skip: readonly string[] = [],
  ): Promise<Timer<P>[]> {
    const r = await db.query(
      `select * from timers.due where kind = $1 and state = 'waiting' and at <= $2
         and not (workspace = any($4::text[])) order by at, id limit $3`,
      [kind, now, limit, [...skip]],
    );
    return r.rows.map((row) => toTimer<P>(row as Row));
  }

  /** When the next timer of `kind` is due, of any workspace. */
  static async nextDue(db: Queryable, kind: string): Promise<Date | undefined> {
    const r = await db.query<{ at: string | null }>(
      "select min(at) as at from timers.due where kind = $1 and state = 'waiting'",
      [kind],
    );
    return r.rows[0]?.at ? new Date(r.rows[0].at) : undefined;
  }

  /** Timers of `kind` running now (being done, or left so by a process that stopped), of every workspace. */
  static async running<P>(db: Queryable, kind: string): Promise<Timer<P>[]> {
    const r = await db.query("select * from timers.due where kind = $1 and state = 'running' order by id", [
      kind,
    ]);
    return r.rows.map((row) => toTimer<P>(row as Row));
  }
}
