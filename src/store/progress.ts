// Schema `progress`: the Slack messages of launched campaigns that update
// themselves with the campaign's progress (src/slack/features/progress/). Kept in the
// store so tracking survives a restart. Its own migration set.
import type { Counts } from "../domain/reports.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Db } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { PerWorkspace } from "./per-workspace.ts";

export const PROGRESS_MIGRATIONS: MigrationSet = {
  schema: "progress",
  migrations: [
    {
      id: "001_tracked",
      sql: `
create table progress.tracked (
  channel text not null,
  ts text not null,
  campaign_id integer not null,
  started_by text,
  intro text not null,
  state text not null default 'live' check (state in ('live', 'done', 'gone')),
  last_status text,
  last_counts jsonb,
  last_update_at timestamptz,
  next_poll_at timestamptz not null,
  failures integer not null default 0,
  created_at timestamptz not null,
  finished_at timestamptz,
  primary key (channel, ts)
)
;
create index tracked_live on progress.tracked (next_poll_at) where state = 'live'
`,
    },
    {
      // One process polls and updates a message at a time (two bots on one
      // PostgreSQL): it holds the lease, renewed on each poll; when it dies
      // the lease runs out and another process takes the message over.
      id: "002_lease",
      sql: `
alter table progress.tracked add column lease_owner text, add column lease_until timestamptz
`,
    },
    {
      // A campaign id is a number of one API account: a message is followed per workspace.
      id: "003_workspace",
      sql: `
alter table progress.tracked add column workspace text not null default 'env'
;
alter table progress.tracked alter column workspace drop default
;
alter table progress.tracked drop constraint tracked_pkey, add primary key (workspace, channel, ts)
;
create index tracked_campaign on progress.tracked (workspace, campaign_id) where state = 'live'
`,
    },
  ],
};

export type TrackedState = "live" | "done" | "gone";

export interface Tracked {
  channel: string;
  ts: string;
  campaignId: number;
  startedBy: string | null;
  /** The message's first line as posted ("Campaign #12 launched (by @ana)"), kept on every update. */
  intro: string;
  state: TrackedState;
  lastStatus: string | null;
  lastCounts: Counts | null;
  lastUpdateAt: Date | null;
  nextPollAt: Date;
  /** Polls in a row that failed (API down): they space the next poll out. */
  failures: number;
  createdAt: Date;
  /** The process polling this message, while `leaseUntil` is ahead. */
  leaseOwner: string | null;
  leaseUntil: Date | null;
}

/** The lease a poll writes back: kept by `worker` until `until` while the message stays live. */
export interface Lease {
  worker: string;
  until: Date;
}

type Row = Record<string, unknown>;
const date = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
const toTracked = (r: Row): Tracked => ({
  channel: String(r.channel),
  ts: String(r.ts),
  campaignId: Number(r.campaign_id),
  startedBy: r.started_by === null || r.started_by === undefined ? null : String(r.started_by),
  intro: String(r.intro),
  state: r.state as TrackedState,
  lastStatus: r.last_status === null || r.last_status === undefined ? null : String(r.last_status),
  lastCounts: (typeof r.last_counts === "string"
    ? JSON.parse(r.last_counts)
    : r.last_counts) as Counts | null,
  lastUpdateAt: r.last_update_at ? date(r.last_update_at) : null,
  nextPollAt: date(r.next_poll_at),
  failures: Number(r.failures ?? 0),
  createdAt: date(r.created_at),
  leaseOwner: r.lease_owner === null || r.lease_owner === undefined ? null : String(r.lease_owner),
  leaseUntil: r.lease_until ? date(r.lease_until) : null,
});

// Every statement names the workspace: another workspace's messages are not seen here.
export class ProgressStore extends PerWorkspace<Db> {
  /** The workspaces with a launched campaign still followed (many-workspace mode: resumed at start). */
  static async workspacesFollowing(db: Db): Promise<WorkspaceId[]> {
    const { rows } = await db.query<{ workspace: string }>(
      "select distinct workspace from progress.tracked where state = 'live' order by workspace",
    );
    return rows.map((r) => r.workspace);
  }

  /** Starts tracking a message; a second call for the same message changes nothing. */
  async track(
    t: { channel: string; ts: string; campaignId: number; startedBy?: string; intro: string },
    now: Date,
  ): Promise<void> {
    await this.db.query(
      `insert into progress.tracked (channel, ts, campaign_id, started_by, intro, next_poll_at, created_at, workspace)
       values ($1, $2, $3, $4, $5, $6, $6, $7) on conflict (workspace, channel, ts) do nothing`,
      [t.channel, t.ts, t.campaignId, t.startedBy ?? null, t.intro, now, this.workspace],
    );
  }

  /** A live card finished (a newer card took its place): followed no more. True when it was live. */
  async stop(channel: string, ts: string, now: Date): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `update progress.tracked set state = 'done', finished_at = $3, lease_owner = null, lease_until = null
        where workspace = $4 and channel = $1 and ts = $2 and state = 'live'`,
      [channel, ts, now, this.workspace],
    );
    return rowCount > 0;
  }

  async get(channel: string, ts: string): Promise<Tracked | undefined> {
    const { rows } = await this.db.query<Row>(
      "select * from progress.tracked where channel = $1 and ts = $2 and workspace = $3",
      [channel, ts, this.workspace],
    );
    return rows[0] ? toTracked(rows[0]) : undefined;
  }

  /** Messages still updating, soonest poll first. */
  async live(): Promise<Tracked[]> {
    return this.rowsOf(
      "select * from progress.tracked where workspace = $1 and state = 'live' order by next_poll_at, created_at",
      toTracked,
    );
  }

  /**
   * Takes the lease of a campaign's live messages whose poll is due and that no
   * other process holds (or whose lease ran out), in one statement: of two
   * processes asking at once, one gets each message. Returns the messages
   * taken, as they are now; empty when none is due or another process has them.
   */
  async claimDue(campaignId: number, worker: string, now: Date, until: Date): Promise<Tracked[]> {
    const { rows } = await this.db.query<Row>(
      `update progress.tracked set lease_owner = $2, lease_until = $4
       where workspace = $5 and campaign_id = $1 and state = 'live' and next_poll_at <= $3
         and (lease_owner = $2 or lease_owner is null or lease_until is null or lease_until < $3)
       returning *`,
      [campaignId, worker, now, until, this.workspace],
    );
    return rows.map(toTracked).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime());
  }

  /** Lets go of every lease `worker` holds (a clean stop): another process may poll at once. */
  async release(worker: string): Promise<number> {
    const { rowCount } = await this.db.query(
      "update progress.tracked set lease_owner = null, lease_until = null where lease_owner = $1 and workspace = $2",
      [worker, this.workspace],
    );
    return rowCount;
  }

  /**
   * After a poll: what was shown, and when to look again. With `lease`, only
   * written while that worker still holds the message (false otherwise: another
   * process took it over), and the lease is renewed, or let go once the message
   * stops being live.
   */
  async polled(
    t: Pick<Tracked, "channel" | "ts">,
    p: {
      status?: string;
      counts?: Counts;
      updatedAt?: Date;
      nextPollAt: Date;
      failures: number;
      state?: TrackedState;
      now: Date;
      lease?: Lease;
    },
  ): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `update progress.tracked set
         last_status = coalesce($3, last_status),
         last_counts = coalesce($4::jsonb, last_counts),
         last_update_at = coalesce($5, last_update_at),
         next_poll_at = $6,
         failures = $7,
         state = coalesce($8, state),
         finished_at = case when coalesce($8, state) <> 'live' then $9 else finished_at end,
         lease_owner = case when $10::text is null then lease_owner
                            when coalesce($8, state) = 'live' then $10 end,
         lease_until = case when $10::text is null then lease_until
                            when coalesce($8, state) = 'live' then $11::timestamptz end
       where channel = $1 and ts = $2 and workspace = $12 and state = 'live' and ($10::text is null or lease_owner = $10)`,
      [
        t.channel,
        t.ts,
        p.status ?? null,
        p.counts ? JSON.stringify(p.counts) : null,
        p.updatedAt ?? null,
        p.nextPollAt,
        p.failures,
        p.state ?? null,
        p.now,
        p.lease?.worker ?? null,
        p.lease?.until ?? null,
        this.workspace,
      ],
    );
    return rowCount > 0;
  }
}
