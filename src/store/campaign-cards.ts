import { dbOf, PerWorkspace } from "./per-workspace.ts";

/** What a card is: the live card of a send, a held start's card, or the campaign's card (a draft, cancelled). */
export type CardRole = "live" | "held" | "card";

export interface PostedCard {
  campaignId: number;
  channel: string;
  ts: string;
  role: CardRole;
  /** Slack user id of whoever it was posted for, or `shell`. */
  postedBy?: string;
  createdAt: Date;
}

type Row = Record<string, unknown>;
const toCard = (r: Row): PostedCard => ({
  campaignId: Number(r.campaign_id),
  channel: String(r.channel),
  ts: String(r.ts),
  role: String(r.role) as CardRole,
  ...(r.posted_by ? { postedBy: String(r.posted_by) } : {}),
  createdAt: new Date(r.created_at as string),
});

export class CampaignCards extends PerWorkspace {
  /**
   * A card just posted becomes the campaign's current one; the older open
   * cards are finished, each by one caller only, and returned to be redrawn.
   * Older: by when they were posted, then channel and ts, a total order, so of two cards posted at once the
   * later finishes the earlier and never both each other.
   */
  async posted(card: Omit<PostedCard, "createdAt">, now: Date): Promise<PostedCard[]> {
    await dbOf(this).query(
      `insert into campaigns.cards (workspace, campaign_id, channel, ts, role, posted_by, created_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (workspace, channel, ts) do update set role = excluded.role, state = 'open', finished_at = null`,
      [this.workspace, card.campaignId, card.channel, card.ts, card.role, card.postedBy ?? null, now],
    );
    const { rows } = await dbOf(this).query<Row>(
      `update campaigns.cards set state = 'finished', finished_at = $5
        where workspace = $1 and campaign_id = $2 and state = 'open'
          and (created_at, channel, ts) < (
            (select created_at from campaigns.cards where workspace = $1 and channel = $3 and ts = $4), $3, $4)
        returning *`,
      [this.workspace, card.campaignId, card.channel, card.ts, now],
    );
    return rows.map(toCard);
  }

  /** The campaign's open cards, newest first. */
  async open(campaignId: number): Promise<PostedCard[]> {
    const { rows } = await dbOf(this).query<Row>(
      `select * from campaigns.cards where workspace = $1 and campaign_id = $2 and state = 'open'
        order by created_at desc`,
      [this.workspace, campaignId],
    );
    return rows.map(toCard);
  }
}
