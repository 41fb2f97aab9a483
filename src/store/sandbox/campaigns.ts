// Campaigns of one organization, their recipients and counts by status.
// Starting one builds its recipients from its audience; delivery.ts moves them
// along afterwards.
import type { CampaignRow, CampaignStats, Paged, PageQuery, RecipientRow } from "./rows.ts";
import { OrgTable } from "./sql.ts";

const CAMPAIGN_COLS =
  "id, name, integration_id, template_id, conversation_tag_id, group_ids, contact_ids, template_parameters, scheduled_at, status, created_at, updated_at, started_at, completed_at, cancelled_at";

const NO_STATS: CampaignStats = {
  total: 0,
  pending: 0,
  sending: 0,
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  skipped: 0,
};

export class CampaignsStore extends OrgTable {
  private async withStats(rows: Omit<CampaignRow, "stats">[]): Promise<CampaignRow[]> {
    if (rows.length === 0) return [];
    const stats = await this.db.query<CampaignStats & { campaign_id: number }>(
      `select campaign_id, count(*)::int as total,
         count(*) filter (where status = 'pending')::int as pending,
         count(*) filter (where status = 'sending')::int as sending,
         count(*) filter (where status = 'sent')::int as sent,
         count(*) filter (where status = 'delivered')::int as delivered,
         count(*) filter (where status = 'read')::int as read,
         count(*) filter (where status = 'failed')::int as failed,
         count(*) filter (where status = 'skipped')::int as skipped
       from sandbox.campaign_recipients where campaign_id = any($1::int[]) and org_id = $2 group by campaign_id`,
      [rows.map((r) => r.id), this.org],
    );
    const byId = new Map(stats.rows.map(({ campaign_id, ...s }) => [campaign_id, s]));
    return rows.map((r) => ({ ...r, stats: byId.get(r.id) ?? { ...NO_STATS } }));
  }

  async list(q: PageQuery & { status?: string }): Promise<Paged<CampaignRow>> {
    const w = this.where();
    if (q.status) w.add("status = ?", q.status);
    const page = await this.page<Omit<CampaignRow, "stats">>(q, w, {
      from: "sandbox.campaigns",
      select: `select ${CAMPAIGN_COLS} from sandbox.campaigns`,
      orderBy: "id desc",
    });
    return { rows: await this.withStats(page.rows), total: page.total };
  }

  async get(id: number): Promise<CampaignRow | undefined> {
    const row = await this.one<Omit<CampaignRow, "stats">>(
      `select ${CAMPAIGN_COLS} from sandbox.campaigns where id = $1 and org_id = $2`,
      [id, this.org],
    );
    return row ? (await this.withStats([row]))[0] : undefined;
  }

  async create(c: {
    name: string;
    integrationId: number;
    templateId: number;
    conversationTagId?: number;
    groupIds: number[];
    contactIds: number[];
    templateParameters?: Record<string, string>;
    scheduledAt?: Date;
  }): Promise<CampaignRow> {
    const r = await this.one<{ id: number }>(
      `insert into sandbox.campaigns (org_id, name, integration_id, template_id, conversation_tag_id, group_ids, contact_ids,
         template_parameters, scheduled_at, status, created_at, updated_at)
       values ($11, $1, $2, $3, $4, $5::int[], $6::int[], $7, $8, $9, $10, $10) returning id`,
      [
        c.name,
        c.integrationId,
        c.templateId,
        c.conversationTagId ?? null,
        c.groupIds,
        c.contactIds,
        c.templateParameters ? JSON.stringify(c.templateParameters) : null,
        c.scheduledAt ?? null,
        c.scheduledAt ? "scheduled" : "draft",
        this.now(),
        this.org,
      ],
    );
    return (await this.get(r!.id))!;
  }

  /**
   * Moves a campaign to `running` when its status is one of `from`, building
   * its recipients from the audience in one statement: live contacts of its
   * groups and its contacts, opted-out ones `skipped`. Returns false when the
   * status did not allow it.
   */
  async start(id: number, from: readonly string[]): Promise<boolean> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const c = await this.one<{ group_ids: number[]; contact_ids: number[] }>(
        `update sandbox.campaigns set status = 'running', started_at = $2, updated_at = $2
         where id = $1 and org_id = $4 and status = any($3::text[]) returning group_ids, contact_ids`,
        [id, now, from, this.org],
        tx,
      );
      if (!c) return false;
      await tx.query(
        `insert into sandbox.campaign_recipients (org_id, campaign_id, contact_id, phone, status, error, created_at,
           updated_at)
         select $5, $1, c.id, c.phone,
           case when c.opted_out then 'skipped' else 'pending' end,
           case when c.opted_out then 'the contact has opted out' end,
           $2, $2
         from sandbox.contacts c
         where c.org_id = $5 and c.deleted_at is null
           and (c.id = any($3::int[]) or exists (
             select 1 from sandbox.group_members m
             join sandbox.groups g on g.id = m.group_id and g.org_id = $5 and g.deleted_at is null
             where m.contact_id = c.id and m.group_id = any($4::int[])))
         order by c.id`,
        [id, now, c.contact_ids, c.group_ids, this.org],
      );
      return true;
    });
  }

  /** Cancels when the status is one of `from`; pending recipients become skipped. */
  async cancel(id: number, from: readonly string[]): Promise<boolean> {
    const now = this.now();
    return this.db.transaction(async (tx) => {
      const r = await tx.query(
        `update sandbox.campaigns set status = 'cancelled', cancelled_at = $2, updated_at = $2
         where id = $1 and org_id = $4 and status = any($3::text[])`,
        [id, now, from, this.org],
      );
      if (r.rowCount === 0) return false;
      await tx.query(
        `update sandbox.campaign_recipients set status = 'skipped', error = 'the campaign was cancelled', updated_at = $2
         where campaign_id = $1 and org_id = $3 and status = 'pending'`,
        [id, now, this.org],
      );
      return true;
    });
  }

  async recipients(campaignId: number, q: PageQuery & { status?: string }): Promise<Paged<RecipientRow>> {
    const w = this.where("r").add("r.campaign_id = ?", campaignId);
    if (q.status) w.add("r.status = ?", q.status);
    return this.page<RecipientRow>(q, w, {
      from: "sandbox.campaign_recipients r",
      select: `select r.id, r.campaign_id, r.contact_id, r.phone, c.first_name, c.last_name, r.status, r.error,
           r.created_at, r.updated_at, r.sent_at, r.delivered_at, r.read_at
         from sandbox.campaign_recipients r join sandbox.contacts c on c.id = r.contact_id`,
      orderBy: "r.id",
    });
  }
}
