// Held starts (schema `held`, issue 28 §4): a campaign Switchboard itself
// starts at a time (`campaign <id> send at=…`, quiet hours, the campaign
// form's start time). Each state change is one conditional update, so a start
// runs once whichever process (a restart, a second replica) gets there first:
// `held` → `running` is the claim, taken before POST /campaigns/{id}/send.
//   held → running → sent | failed | unknown (the send's outcome not known: never repeated)
//   held → skipped (cancelled or sent meanwhile) | cancelled (Cancel start) |
//          asked (missed by more than an hour: the requester asked) | refused (the check said no)
//   asked → running (Start now) | cancelled
// At most one live (held, asked, running) start per campaign. Per workspace.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { storable } from "./text.ts";

export const HELD_STARTS_MIGRATIONS: MigrationSet = {
  schema: "held",
  migrations: [
    {
      id: "001_starts",
      sql: `
create table held.starts (
  id bigserial primary key,
  workspace text not null,
  campaign_id integer not null,
  campaign_name text not null,
  at timestamptz not null,
  requested_by text not null,
  via text not null,
  reason text not null,
  state text not null default 'held',
  detail text,
  decided_by text,
  channel text,
  ts text,
  claimed_by text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
)
;
create unique index starts_live on held.starts (workspace, campaign_id)
  where state in ('held', 'asked', 'running')
;
create index starts_due on held.starts (at) where state = 'held'
`,
    },
    {
      // Issue 37 §1: a start runs only as the row it claimed (its version, bumped by every change), and when it ran.
      id: "002_version",
      sql: `
alter table held.starts add column version integer not null default 0
;
alter table held.starts add column ran_at timestamptz
`,
    },
  ],
};

export type HeldState =
  | "held"
  | "running"
  | "sent"
  | "failed"
  | "unknown"
  | "skipped"
  | "cancelled"
  | "asked"
  | "refused";

/** Why it is held: a time asked for, the quiet hours, the campaign form's start time. */
export type HeldReason = "asked" | "quiet" | "created";

export interface HeldStart {
  id: number;
  workspace: WorkspaceId;
  campaignId: number;
  campaignName: string;
  at: Date;
  /** Slack user id, or `shell`. */
  requestedBy: string;
  via: "slack" | "shell";
  reason: HeldReason;
  state: HeldState;
  /** Why it was skipped, failed, refused (words). */
  detail?: string;
  /** Who cancelled it or started it early. */
  decidedBy?: string;
  /** The card that shows it (edited when its state changes). */
  channel?: string;
  ts?: string;
  claimedBy?: string;
  updatedAt: Date;
  /** Bumped by every change: a claim names the version it read, so a start moved since is not run. */
  version: number;
  /** When it was sent (not when it was due). */
  ranAt?: Date;
}

type Row = Record<string, unknown>;
const toStart = (r: Row): HeldStart => ({
  id: Number(r.id),
  workspace: String(r.workspace),
  campaignId: Number(r.campaign_id),
  campaignName: String(r.campaign_name),
  at: new Date(r.at as string),
  requestedBy: String(r.requested_by),
  via: r.via === "shell" ? "shell" : "slack",
  reason: String(r.reason) as HeldReason,
  state: String(r.state) as HeldState,
  detail: (r.detail as string | null) ?? undefined,
  decidedBy: (r.decided_by as string | null) ?? undefined,
  channel: (r.channel as string | null) ?? undefined,
  ts: (r.ts as string | null) ?? undefined,
  claimedBy: (r.claimed_by as string | null) ?? undefined,
  updatedAt: new Date(r.updated_at as string),
  version: Number(r.version ?? 0),
  ranAt: r.ran_at ? new Date(r.ran_at as string) : undefined,
});

const LIVE = "('held', 'asked', 'running')";

/** One workspace's held starts. */
export class HeldStarts {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
  }

  /**
   * Holds a start of `campaignId` at `at`; a live one of the same campaign is
   * moved to the new time instead (one start per campaign). Undefined when
   * the campaign's start is already running.
   */
  async hold(s: {
    campaignId: number;
    campaignName: string;
    at: Date;
    requestedBy: string;
    via: "slack" | "shell";
    reason: HeldReason;
    now: Date;
  }): Promise<HeldStart | undefined> {
    const moved = await this.db.query(
      `update held.starts set at = $3, requested_by = $4, via = $5, reason = $6, state = 'held',
         campaign_name = $7, detail = null, decided_by = null, updated_at = $8, version = version + 1
       where workspace = $1 and campaign_id = $2 and state in ('held', 'asked') returning *`,
      [this.workspace, s.campaignId, s.at, s.requestedBy, s.via, s.reason, storable(s.campaignName), s.now],
    );
    if (moved.rows[0]) return toStart(moved.rows[0] as Row);
    const r = await this.db.query(
      `insert into held.starts (workspace, campaign_id, campaign_name, at, requested_by, via, reason, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       on conflict (workspace, campaign_id) where state in ${LIVE} do nothing returning *`,
      [this.workspace, s.campaignId, storable(s.campaignName), s.at, s.requestedBy, s.via, s.reason, s.now],
    );
    return r.rows[0] ? toStart(r.rows[0] as Row) : undefined;
  }

  async get(id: number): Promise<HeldStart | undefined> {
    const r = await this.db.query("select * from held.starts where workspace = $1 and id = $2", [
      this.workspace,
      id,
    ]);
    return r.rows[0] ? toStart(r.rows[0] as Row) : undefined;
  }

  /** The campaign's live start (held, asked or running), else its latest. */
  async ofCampaign(campaignId: number): Promise<HeldStart | undefined> {
    const r = await this.db.query(
      `select * from held.starts where workspace = $1 and campaign_id = $2
       order by (state in ${LIVE}) desc, id desc limit 1`,
      [this.workspace, campaignId],
    );
    return r.rows[0] ? toStart(r.rows[0] as Row) : undefined;
  }

  /**
   * One state change, taken only from one of `from`: the claim. Undefined when
   * the start is not (any more) in one of them: someone else got there first.
   */
  async move(
    id: number,
    from: readonly HeldState[],
    to: HeldState,
    now: Date,
    extra: {
      detail?: string;
      decidedBy?: string;
      claimedBy?: string;
      /** Only if the start is still at this version (the one read): a start moved since is left alone. */
      version?: number;
      /** A new time (a start due in the quiet hours, held again until they end). */
      at?: Date;
      reason?: HeldReason;
    } = {},
  ): Promise<HeldStart | undefined> {
    const r = await this.db.query(
      `update held.starts set state = $4, updated_at = $5, version = version + 1,
         detail = coalesce($6, detail), decided_by = coalesce($7, decided_by), claimed_by = coalesce($8, claimed_by),
         at = coalesce($10, at), reason = coalesce($11, reason),
         ran_at = case when $4 = 'sent' then $5 else ran_at end
       where workspace = $1 and id = $2 and state = any($3::text[]) and ($9::integer is null or version = $9)
       returning *`,
      [
        this.workspace,
        id,
        [...from],
        to,
        now,
        extra.detail === undefined ? null : storable(extra.detail),
        extra.decidedBy ?? null,
        extra.claimedBy ?? null,
        extra.version ?? null,
        extra.at ?? null,
        extra.reason ?? null,
      ],
    );
    return r.rows[0] ? toStart(r.rows[0] as Row) : undefined;
  }

  /** The card that shows the start, to edit it when its state changes. */
  async setCard(id: number, channel: string, ts: string): Promise<void> {
    await this.db.query("update held.starts set channel = $3, ts = $4 where workspace = $1 and id = $2", [
      this.workspace,
      id,
      channel,
      ts,
    ]);
  }

  /** Held starts due at `now`, of every workspace but `skip` (those that wait), the oldest first. */
  static async dueAll(
    db: Queryable,
    now: Date,
    limit = 50,
    skip: readonly string[] = [],
  ): Promise<HeldStart[]> {
    const r = await db.query(
      `select * from held.starts where state = 'held' and at <= $1 and not (workspace = any($3::text[]))
       order by at, id limit $2`,
      [now, limit, [...skip]],
    );
    return r.rows.map((row) => toStart(row as Row));
  }

  /** When the next held start is due, of any workspace. */
  static async nextDue(db: Queryable): Promise<Date | undefined> {
    const r = await db.query<{ at: string | null }>(
      "select min(at) as at from held.starts where state = 'held'",
    );
    return r.rows[0]?.at ? new Date(r.rows[0].at) : undefined;
  }

  /** Starts `running` now (being sent, or left so by a process that stopped mid-send), of every workspace. */
  static async running(db: Queryable): Promise<HeldStart[]> {
    const r = await db.query("select * from held.starts where state = 'running' order by id");
    return r.rows.map((row) => toStart(row as Row));
  }
}
