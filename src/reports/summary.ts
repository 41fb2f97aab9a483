// Campaign summaries: recipients by status, rates, and what they cost in API
// requests. The read budget (300 a minute for the whole key, shared with
// people's commands) is the scarce resource, so a campaign costs 1 + 7
// requests whatever its size when the API gives page totals: one `limit=1`
// request per recipient status, reading the page total. Without totals it
// pages through at limit=100 up to a cap and says the figure is partial.
// Every call goes in the client's background lane.

import { NotFoundError } from "../api/errors.ts";
import { RECIPIENT_STATUSES, type RecipientStatus } from "../api/schemas.ts";
import type { CallOptions, Campaign, MessagingApi } from "../api/types.ts";
import type { Counts } from "../domain/reports.ts";
import type { ReportTarget } from "./schedule.ts";

export const STATUSES = RECIPIENT_STATUSES;

/** Largest page the spec allows; used when paging is the only way to count. */
export const MAX_PAGE = 100;
/** Pages read per campaign when the API gives no totals (so at most 2,000 recipients are counted). */
export const PAGE_CAP = 20;
/** `running`: at most this many campaigns are summarized; the rest are counted as omitted. */
export const RUNNING_CAP = 25;
/** `all`: the this-many most recent campaigns. */
export const RECENT_CAP = 10;
/** Pages of the campaign list read to find running or recent campaigns. */
export const CAMPAIGN_LIST_PAGES = 3;

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

export interface SummaryError {
  campaignId: number;
  message: string;
}

export interface Report {
  target: ReportTarget;
  generatedAt: Date;
  campaigns: CampaignSummary[];
  /** Campaigns that matched the target but were left out by the cap. */
  omitted: number;
  /** Campaigns that could not be summarized for a reason retrying will not fix (deleted). */
  errors: SummaryError[];
  /** API requests the whole report cost. */
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

const createdOf = (c: Campaign): number => {
  const v = c.createdAt ?? c.created_at;
  const t = typeof v === "string" || typeof v === "number" ? new Date(v).getTime() : Number.NaN;
  return Number.isFinite(t) ? t : 0;
};

/** Campaigns of a target: the records (when listed) and how many were left out by the cap. */
async function selectCampaigns(
  client: MessagingApi,
  target: ReportTarget,
  call: CallOptions,
): Promise<{ ids: number[]; records: Map<number, Campaign>; omitted: number; requests: number }> {
  if (target.kind === "campaign") return { ids: [target.id], records: new Map(), omitted: 0, requests: 0 };
  const status = target.kind === "running" ? ("running" as const) : undefined;
  const found: Campaign[] = [];
  let requests = 0;
  let total: number | undefined;
  let more = false;
  for (let page = 1; page <= CAMPAIGN_LIST_PAGES; page++) {
    const p = await client.listCampaigns({ page, limit: MAX_PAGE, ...(status ? { status } : {}) }, call);
    requests++;
    total = p.total ?? total;
    found.push(...p.items.filter((c) => typeof c.id === "number"));
    more = p.items.length >= MAX_PAGE;
    if (!more) break;
  }
  // A server that ignores the filter must not turn `running` into everything; `all` leaves
  // drafts out (nothing sent, nothing to report).
  const matching = status
    ? found.filter((c) => c.status === undefined || c.status === status)
    : found.filter((c) => c.status !== "draft");
  const sorted = [...matching].sort((a, b) => createdOf(b) - createdOf(a) || (b.id ?? 0) - (a.id ?? 0));
  const cap = target.kind === "running" ? RUNNING_CAP : RECENT_CAP;
  const chosen = sorted.slice(0, cap);
  const drafts = found.length - matching.length;
  const seen = (total !== undefined && !status ? total - drafts : total) ?? matching.length + (more ? 1 : 0);
  return {
    ids: chosen.map((c) => c.id as number),
    records: new Map(chosen.map((c) => [c.id as number, c])),
    omitted: Math.max(0, seen - chosen.length),
    requests,
  };
}

/**
 * The summary of a target: one campaign, every running campaign, or the
 * recent ones. A campaign that no longer exists is reported as an error in
 * the report; any other failure (API down, rate limited) throws, so the
 * caller can retry the whole report.
 */
export async function summarize(
  client: MessagingApi,
  target: ReportTarget,
  opts: {
    lane?: "background" | "interactive";
    signal?: AbortSignal;
    now?: () => Date;
    pageCap?: number;
  } = {},
): Promise<Report> {
  const call: CallOptions = { lane: opts.lane ?? "background", signal: opts.signal };
  const sel = await selectCampaigns(client, target, call);
  const campaigns: CampaignSummary[] = [];
  const errors: SummaryError[] = [];
  let requests = sel.requests;
  // One campaign at a time: the client's background lane paces requests anyway, and a
  // report of 25 campaigns must not queue 175 requests ahead of a person's command.
  for (const id of sel.ids) {
    try {
      const s = await summarizeCampaign(client, id, {
        ...call,
        campaign: sel.records.get(id),
        pageCap: opts.pageCap,
      });
      requests += s.requests;
      campaigns.push(s);
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      requests++;
      errors.push({ campaignId: id, message: `Campaign ${id} was not found (deleted?)` });
    }
  }
  return {
    target,
    generatedAt: (opts.now ?? (() => new Date()))(),
    campaigns,
    omitted: sel.omitted,
    errors,
    requests,
  };
}
