// Campaign summaries: recipients by status, rates, and what they cost in API
// requests. The read budget (300 a minute for the whole key, shared with
// people's commands) is the scarce resource, so a campaign costs 1 + 7
// requests whatever its size when the API gives page totals: one `limit=1`
// request per recipient status, reading the page total. Without totals it
// pages through at limit=100 up to a cap and says the figure is partial.
// Every call goes in the client's background lane unless asked otherwise. A
// leaf: the reports and the campaign's card (src/campaigns) both count this way.

import { RECIPIENT_STATUSES, type RecipientStatus } from "../api/schemas.ts";
import type { CallOptions, Campaign, MessagingApi } from "../api/types.ts";
import type { Counts } from "./reports.ts";

export const STATUSES = RECIPIENT_STATUSES;

/** Largest page the spec allows; used when paging is the only way to count. */
export const MAX_PAGE = 100;
/** Pages read per campaign when the API gives no totals (so at most 2,000 recipients are counted). */
export const PAGE_CAP = 20;

export interface Rates {
  /** (delivered + read) / attempted; a read recipient was also delivered. Null when nothing was attempted. */
  delivered: number | null;
  /** read / (delivered + read). Null when nothing was delivered. */
  read: number | null;
  /** failed / attempted. Null when nothing was attempted. */
  failed: number | null;
}

export interface CampaignSummary {
  id: number;
  name: string;
  status: string;
  counts: Counts;
  /** Sum of the counts. */
  total: number;
  /** Recipients whose send finished one way or the other: sent + delivered + read + failed. */
  attempted: number;
  rates: Rates;
  /** True when the counts are lower bounds (no page totals and the page cap was reached). */
  partial: boolean;
  /** How the counts were obtained. */
  method: "totals" | "paging";
  /** API requests this campaign cost. */
  requests: number;
}

export interface SummarizeOptions {
  lane?: "background" | "interactive";
  signal?: AbortSignal;
  /** The campaign record when the caller already has it (from a list): saves the GET. */
  campaign?: Campaign;
  pageCap?: number;
}

const emptyCounts = (): Counts => Object.fromEntries(STATUSES.map((s) => [s, 0])) as Counts;

export function ratesOf(c: Counts): { attempted: number; rates: Rates } {
  const attempted = c.sent + c.delivered + c.read + c.failed;
  const delivered = c.delivered + c.read;
  return {
    attempted,
    rates: {
      delivered: attempted > 0 ? delivered / attempted : null,
      read: delivered > 0 ? c.read / delivered : null,
      failed: attempted > 0 ? c.failed / attempted : null,
    },
  };
}

function finish(
  id: number,
  campaign: Campaign,
  counts: Counts,
  extra: Pick<CampaignSummary, "partial" | "method" | "requests">,
): CampaignSummary {
  const total = STATUSES.reduce((n, s) => n + counts[s], 0);
  return {
    id,
    name: typeof campaign.name === "string" && campaign.name.trim() ? campaign.name : `Campaign ${id}`,
    status: typeof campaign.status === "string" ? campaign.status : "unknown",
    counts,
    total,
    ...ratesOf(counts),
    ...extra,
  };
}

/** The recipients by status a campaign record carries (`stats`), when it has every status. */
export function statsOf(c: Campaign | undefined): Counts | undefined {
  const stats = c?.stats;
  if (!stats || typeof stats !== "object") return undefined;
  const counts = emptyCounts();
  for (const s of STATUSES) {
    const v = (stats as Record<string, unknown>)[s];
    if (typeof v !== "number" || !Number.isFinite(v)) return undefined;
    counts[s] = v;
  }
  return counts;
}

/** Recipients of one campaign by status. */
export async function summarizeCampaign(
  client: MessagingApi,
  campaignId: number,
  opts: SummarizeOptions = {},
): Promise<CampaignSummary> {
  const call: CallOptions = { lane: opts.lane ?? "background", signal: opts.signal };
  let requests = 0;
  let campaign = opts.campaign;
  if (!campaign) {
    campaign = await client.getCampaign(campaignId, call);
    requests++;
  }

  // One status first: it tells whether the API gives totals before spending six more requests.
  const [first, ...rest] = STATUSES;
  const firstPage = await client.listCampaignRecipients(campaignId, { status: first, limit: 1 }, call);
  requests++;
  if (firstPage.total !== undefined) {
    // Seven reads are not one snapshot: a recipient moving from pending to sent between two
    // of them is counted twice or not at all. The number of recipients does not change once
    // a campaign has them: from the record's own counts when it has them, else read in the
    // same round. A round whose figures do not add up to it is read again (twice at most).
    const own = statsOf(campaign);
    const known = own ? STATUSES.reduce((n, st) => n + own[st], 0) : undefined;
    let counts = emptyCounts();
    counts[first] = firstPage.total;
    let missing = false;
    for (let round = 0; round < 3; round++) {
      const statuses = round === 0 ? rest : STATUSES;
      const [all, ...pages] = await Promise.all([
        known === undefined ? client.listCampaignRecipients(campaignId, { limit: 1 }, call) : undefined,
        ...statuses.map((status) => client.listCampaignRecipients(campaignId, { status, limit: 1 }, call)),
      ]);
      requests += pages.length + (known === undefined ? 1 : 0);
      if (round > 0) counts = emptyCounts();
      statuses.forEach((status, i) => {
        const t = pages[i]?.total;
        if (t === undefined) missing = true;
        counts[status] = t ?? 0;
      });
      const total = known ?? all?.total;
      if (missing || total === undefined) break;
      const sum = STATUSES.reduce((n, st) => n + counts[st], 0);
      if (sum === total) break;
      // Still moving after the last round: the total is the truth; those still to go make up the rest.
      if (round === 2) counts.pending = Math.max(0, counts.pending + total - sum);
    }
    // A server that gives totals for some statuses only: fall back to paging rather than guess.
    if (!missing) return finish(campaignId, campaign, counts, { partial: false, method: "totals", requests });
  }

  const counts = emptyCounts();
  const cap = opts.pageCap ?? PAGE_CAP;
  let complete = false;
  for (let page = 1; page <= cap; page++) {
    const p = await client.listCampaignRecipients(campaignId, { page, limit: MAX_PAGE }, call);
    requests++;
    for (const r of p.items) {
      const s = r.status as RecipientStatus;
      if (s in counts) counts[s]++;
    }
    if (p.items.length < MAX_PAGE) {
      complete = true;
      break;
    }
  }
  return finish(campaignId, campaign, counts, { partial: !complete, method: "paging", requests });
}
