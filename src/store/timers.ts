// The claimed-once timer (schema `timers`, issue 37 §6, issue 40 §2): work a
// person set for a time, done once whichever process gets there first (a
// restart, another replica). Generic: a row is a `kind` (`message.later`: a
// message sent later), who set it, when, and its payload (the kind's own
// JSON). Each state change is one conditional update, the claim by the
// version read, as held starts do (held-starts.ts):
//   waiting → running → done | failed | unknown (the outcome not known: never repeated)
//   waiting → cancelled
// A row's number is its workspace's own (1, 2, 3… per workspace and kind),
// never a global serial, so one workspace's numbers say nothing of another's.
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
  ],
};

export type TimerState = "waiting" | "running" | "done" | "failed" | "unknown" | "cancelled";

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
  ranAt?: Date;
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
});

/** Strings in a payload made storable (NUL, lone surrogates), as every text written into the store. */
const storablePayload = (p: unknown): string =>
  JSON.stringify(p, (_k, v: unknown) => (typeof v === "string" ? storable(v) : v));

/** One workspace's timers of one kind. */
export class Timers<P = Record<string, unknown>> {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;
  readonly kind: string;

  constructor(db: Queryable, workspace: WorkspaceId, kind: string) {
    this.db = db;
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
    const r = await this.db.query(
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

  async get(number: number): Promise<Timer<P> | undefined> {
    const r = await this.db.query(
      "select * from timers.due where workspace = $1 and kind = $2 and number = $3",
      [this.workspace, this.kind, number],
    );
    return r.rows[0] ? toTimer<P>(r.rows[0] as Row) : undefined;
  }

  /** Those waiting, the soonest first; only those `setBy` set when given. */
  async waiting(setBy?: string): Promise<Timer<P>[]> {
    const r = await this.db.query(
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
    extra: {
      detail?: string;
      decidedBy?: string;
      claimedBy?: string;
      version?: number;
      /** A new time, a new payload (an edit while waiting). */
      at?: Date;
      payload?: P;
    } = {},
  ): Promise<Timer<P> | undefined> {
    const r = await this.db.query(
      `update timers.due set state = $5, updated_at = $6, version = version + 1,
         detail = coalesce($7, detail), decided_by = coalesce($8, decided_by), claimed_by = coalesce($9, claimed_by),
         at = coalesce($11, at), payload = coalesce($12::jsonb, payload),
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
