// Reports: the summary of a target (one campaign, the running ones, the
// recent ones). One campaign's summary (recipients by status, rates, what they
// cost in API requests) is src/domain/campaign-summary.ts, shared with the
// campaign's card; it is re-exported here for the reports' callers.

import { NotFoundError } from "../api/errors.ts";
import type { CallOptions, Campaign, MessagingApi } from "../api/types.ts";
import { type CampaignSummary, MAX_PAGE, summarizeCampaign } from "../domain/campaign-summary.ts";
import type { ReportTarget } from "./schedule.ts";

export {
  type CampaignSummary,
  MAX_PAGE,
  PAGE_CAP,
  type Rates,
  ratesOf,
  STATUSES,
  type SummarizeOptions,
  statsOf,
  summarizeCampaign,
} from "../domain/campaign-summary.ts";

/** `running`: at most this many campaigns are summarized; the rest are counted as omitted. */
export const RUNNING_CAP = 25;
/** `all`: the this-many most recent campaigns. */
export const RECENT_CAP = 10;
/** Pages of the campaign list read to find running or recent campaigns. */
export const CAMPAIGN_LIST_PAGES = 3;

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
