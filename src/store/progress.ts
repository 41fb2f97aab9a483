// Schema `progress`: the Slack messages of launched campaigns that update
// themselves with the campaign's progress (src/slack/progress/). Kept in the
// store so tracking survives a restart. Its own migration set.
import type { Counts } from "../reports/summary.ts";
import type { Db } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

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
});

export class ProgressStore {
  constructor(private readonly db: Db) {}

  /** Starts tracking a message; a second call for the same message changes nothing. */
  async track(
    t: { channel: string; ts: string; campaignId: number; startedBy?: string; intro: string },
    now: Date,
  ): Promise<void> {
    await this.db.query(
      `insert into progress.tracked (channel, ts, campaign_id, started_by, intro, next_poll_at, created_at)
       values ($1, $2, $3, $4, $5, $6, $6) on conflict (channel, ts) do nothing`,
      [t.channel, t.ts, t.campaignId, t.startedBy ?? null, t.intro, now],
    );
  }

  async get(channel: string, ts: string): Promise<Tracked | undefined> {
    const { rows } = await this.db.query<Row>(
      "select * from progress.tracked where channel = $1 and ts = $2",
      [channel, ts],
    );
    return rows[0] ? toTracked(rows[0]) : undefined;
  }

  /** Messages still updating, soonest poll first. */
  async live(): Promise<Tracked[]> {
    const { rows } = await this.db.query<Row>(
      "select * from progress.tracked where state = 'live' order by next_poll_at, created_at",
    );
    return rows.map(toTracked);
  }

  /** After a poll: what was shown, and when to look again. */
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
    },
  ): Promise<void> {
    await this.db.query(
      `update progress.tracked set
         last_status = coalesce($3, last_status),
         last_counts = coalesce($4::jsonb, last_counts),
         last_update_at = coalesce($5, last_update_at),
         next_poll_at = $6,
         failures = $7,
         state = coalesce($8, state),
         finished_at = case when coalesce($8, state) <> 'live' then $9 else finished_at end
       where channel = $1 and ts = $2`,
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
      ],
    );
  }
}
