import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";
import { storable } from "./text.ts";

export const APPROVALS_MIGRATIONS: MigrationSet = {
  schema: "approvals",
  migrations: [
    {
      id: "001_requests",
      sql: `
create table approvals.requests (
  id bigserial primary key,
  workspace text not null,
  campaign_id integer not null,
  state text not null default 'pending',
  requested_by text not null,
  requested_at timestamptz not null,
  reach integer,
  template_id integer,
  card jsonb not null,
  decided_by text,
  decided_at timestamptz,
  reason text,
  used_at timestamptz
)
;
create index requests_campaign on approvals.requests (workspace, campaign_id, id desc)
;
create table approvals.cards (
  workspace text not null,
  request_id bigint not null,
  channel text not null,
  ts text not null,
  primary key (workspace, request_id, channel)
)
`,
    },
    {
      // When its cards were redrawn as expired (once, whoever finds it so first).
      id: "002_expired_drawn",
      sql: "alter table approvals.requests add column expired_drawn_at timestamptz",
    },
    {
      // What was approved (issue 37 §2): the template, its values, the audience, the channel, as the approvers saw them.
      id: "003_pinned",
      sql: "alter table approvals.requests add column pinned jsonb",
    },
    {
      // The channel the approval was asked from: a send started from a DM posts its cards there (issue 37 §4).
      id: "004_channel",
      sql: "alter table approvals.requests add column channel text",
    },
  ],
};

/**
 * pending → approved | rejected (the first decision); approved → used (a send
 * or a held start took it); pending | approved → superseded (asked again);
 * approved | used → void (the campaign changed since: the approval no longer holds).
 */
export type ApprovalState = "pending" | "approved" | "rejected" | "used" | "superseded" | "void";

/**
 * The campaign as its approvers saw it (issue 37 §2). A member left undefined
 * was not shown by the campaign's record when asked: it cannot be compared.
 */
export interface ApprovalPin {
  template?: { id: number; name?: string; language?: string };
  /** The placeholders' values. */
  values?: Record<string, string>;
  groupIds?: number[];
  contactIds?: number[];
  /** The people counted when asked. */
  reach?: number;
  channelId?: number;
}

/** What the card shows, as it was when asked (the campaign as approved). */
export interface ApprovalCardData {
  name: string;
  /** The message as customers read it (mrkdwn, quoted). */
  message: string;
  /** The audience counted (§1), in words. */
  audience: string;
  channel: string;
  /** When it would start, in words. */
  start: string;
  /** Who asks to approve, as people see them: the approvers' mentions. */
  approvers: string[];
}

export interface ApprovalRecord {
  id: number;
  campaignId: number;
  state: ApprovalState;
  /** Slack user id, or `shell`. */
  requestedBy: string;
  requestedAt: Date;
  /** The people reached as counted when asked; undefined when not known. */
  reach?: number;
  templateId?: number;
  card: ApprovalCardData;
  decidedBy?: string;
  decidedAt?: Date;
  reason?: string;
  usedAt?: Date;
  /** What was approved; undefined for a request made before approvals kept it. */
  pinned?: ApprovalPin;
  /** The channel it was asked from (not a DM); undefined when asked from a DM or the shell. */
  channel?: string;
}

type Row = Record<string, unknown>;
const date = (v: unknown) => (v ? new Date(v as string) : undefined);
const toRecord = (r: Row): ApprovalRecord => ({
  id: Number(r.id),
  campaignId: Number(r.campaign_id),
  state: String(r.state) as ApprovalState,
  requestedBy: String(r.requested_by),
  requestedAt: new Date(r.requested_at as string),
  reach: r.reach === null || r.reach === undefined ? undefined : Number(r.reach),
  templateId: r.template_id === null || r.template_id === undefined ? undefined : Number(r.template_id),
  card: (typeof r.card === "string" ? JSON.parse(r.card) : r.card) as ApprovalCardData,
  decidedBy: r.decided_by ? String(r.decided_by) : undefined,
  decidedAt: date(r.decided_at),
  reason: r.reason ? String(r.reason) : undefined,
  usedAt: date(r.used_at),
  channel: r.channel ? String(r.channel) : undefined,
  pinned: r.pinned
    ? ((typeof r.pinned === "string" ? JSON.parse(r.pinned) : r.pinned) as ApprovalPin)
    : undefined,
});

/** A decision: whether this click made it, and the request as it stands after. */
export type Decided = { won: boolean; record: ApprovalRecord };

/** The approval requests of one workspace. */
export class Approvals extends PerWorkspace {
  /** A new request for a campaign; an earlier one still pending or approved is superseded. */
  async request(r: {
    campaignId: number;
    requestedBy: string;
    at: Date;
    reach?: number;
    templateId?: number;
    card: ApprovalCardData;
    pinned?: ApprovalPin;
    channel?: string;
  }): Promise<ApprovalRecord> {
    await dbOf(this).query(
      `update approvals.requests set state = 'superseded'
       where workspace = $1 and campaign_id = $2 and state in ('pending', 'approved')`,
      [this.workspace, r.campaignId],
    );
    const { rows } = await dbOf(this).query(
      `insert into approvals.requests (workspace, campaign_id, requested_by, requested_at, reach, template_id, card, pinned, channel)
       values ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb, $9) returning *`,
      [
        this.workspace,
        r.campaignId,
        storable(r.requestedBy),
        r.at,
        r.reach ?? null,
        r.templateId ?? null,
        storable(JSON.stringify(r.card)),
        r.pinned ? storable(JSON.stringify(r.pinned)) : null,
        r.channel ?? null,
      ],
    );
    return toRecord(rows[0] as Row);
  }

  async get(id: number): Promise<ApprovalRecord | undefined> {
    const { rows } = await dbOf(this).query(
      "select * from approvals.requests where workspace = $1 and id = $2",
      [this.workspace, id],
    );
    return rows[0] ? toRecord(rows[0] as Row) : undefined;
  }

  /** The campaign's latest request (superseded ones are not), if any. */
  async latest(campaignId: number): Promise<ApprovalRecord | undefined> {
    const { rows } = await dbOf(this).query(
      `select * from approvals.requests where workspace = $1 and campaign_id = $2 and state <> 'superseded'
       order by id desc limit 1`,
      [this.workspace, campaignId],
    );
    return rows[0] ? toRecord(rows[0] as Row) : undefined;
  }

  /**
   * The first decision wins: one conditional update from pending. A later
   * click (here or on another replica) gets `won: false` and the decision made.
   */
  async decide(
    id: number,
    d: { state: "approved" | "rejected"; by: string; at: Date; reason?: string; askedSince?: Date },
  ): Promise<Decided | undefined> {
    // `askedSince`: a request asked before it has expired (it stays pending, undecided).
    const { rows } = await dbOf(this).query(
      `update approvals.requests set state = $3, decided_by = $4, decided_at = $5, reason = $6
       where workspace = $1 and id = $2 and state = 'pending' and ($7::timestamptz is null or requested_at >= $7)
       returning *`,
      [
        this.workspace,
        id,
        d.state,
        storable(d.by),
        d.at,
        d.reason ? storable(d.reason) : null,
        d.askedSince ?? null,
      ],
    );
    if (rows[0]) return { won: true, record: toRecord(rows[0] as Row) };
    const now = await this.get(id);
    return now && { won: false, record: now };
  }

  /** Takes an approval for one send or held start: approved (since `validSince`) → used, once. */
  async use(id: number, at: Date, validSince: Date): Promise<ApprovalRecord | undefined> {
    const { rows } = await dbOf(this).query(
      `update approvals.requests set state = 'used', used_at = $3
       where workspace = $1 and id = $2 and state = 'approved' and decided_at >= $4 returning *`,
      [this.workspace, id, at, validSince],
    );
    return rows[0] ? toRecord(rows[0] as Row) : undefined;
  }

  /** Gives back an approval a send took but certainly did not use (the API refused the send). */
  async release(id: number): Promise<void> {
    await dbOf(this).query(
      `update approvals.requests set state = 'approved', used_at = null
       where workspace = $1 and id = $2 and state = 'used'`,
      [this.workspace, id],
    );
  }

  /**
   * The campaign changed since it was approved: the approval no longer holds
   * (approved or used → void, `reason` in words). Undefined when it was not
   * (any more) approved or used.
   */
  async voided(id: number, reason: string): Promise<ApprovalRecord | undefined> {
    const { rows } = await dbOf(this).query(
      `update approvals.requests set state = 'void', reason = $3
       where workspace = $1 and id = $2 and state in ('approved', 'used') returning *`,
      [this.workspace, id, storable(reason)],
    );
    return rows[0] ? toRecord(rows[0] as Row) : undefined;
  }

  /** Whether this caller redraws the request's cards as expired: true once, whoever asks first. */
  async expiredDrawn(id: number, at: Date): Promise<boolean> {
    const { rows } = await dbOf(this).query(
      `update approvals.requests set expired_drawn_at = $3
       where workspace = $1 and id = $2 and expired_drawn_at is null returning id`,
      [this.workspace, id, at],
    );
    return rows.length > 0;
  }

  /** A copy of the request's card, posted in `channel` at `ts`. */
  async addCard(requestId: number, channel: string, ts: string): Promise<void> {
    await dbOf(this).query(
      `insert into approvals.cards (workspace, request_id, channel, ts) values ($1, $2, $3, $4)
       on conflict (workspace, request_id, channel) do update set ts = excluded.ts`,
      [this.workspace, requestId, channel, ts],
    );
  }

  async cards(requestId: number): Promise<Array<{ channel: string; ts: string }>> {
    const { rows } = await dbOf(this).query<{ channel: string; ts: string }>(
      "select channel, ts from approvals.cards where workspace = $1 and request_id = $2 order by channel",
      [this.workspace, requestId],
    );
    return rows.map((r) => ({ channel: r.channel, ts: r.ts }));
  }
}
