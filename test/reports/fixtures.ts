// Summaries built from counts, for the rendering tests (the summary code itself
// is tested against the sandbox in summary.test.ts).
import type { Counts } from "../../src/domain/reports.ts";
import { type CampaignSummary, type Report, ratesOf, STATUSES } from "../../src/reports/summary.ts";

export function counts(partial: Partial<Counts> = {}): Counts {
  return Object.fromEntries(STATUSES.map((s) => [s, partial[s] ?? 0])) as Counts;
}

export function campaignSummary(
  id: number,
  name: string,
  status: string,
  c: Partial<Counts>,
): CampaignSummary {
  const full = counts(c);
  return {
    id,
    name,
    status,
    counts: full,
    total: STATUSES.reduce((n, s) => n + full[s], 0),
    ...ratesOf(full),
    partial: false,
    method: "totals",
    requests: 8,
  };
}

/** n campaigns of varied shapes; every 7th has failures above 5%. */
export function manyCampaigns(n: number): CampaignSummary[] {
  return Array.from({ length: n }, (_, i) => {
    const id = 100 + i;
    const size = 500 + ((i * 7919) % 20_000);
    const failed = i % 7 === 0 ? Math.round(size * 0.09) : Math.round(size * 0.01);
    const read = Math.round(size * 0.3);
    const delivered = Math.round(size * 0.4);
    const sent = Math.round(size * 0.1);
    const skipped = Math.round(size * 0.02);
    const pending = Math.max(0, size - failed - read - delivered - sent - skipped);
    return campaignSummary(
      id,
      `Campaign number ${i + 1} with a fairly long name`,
      i % 3 ? "running" : "completed",
      {
        pending,
        sent,
        delivered,
        read,
        failed,
        skipped,
      },
    );
  });
}

export function report(campaigns: CampaignSummary[], extra: Partial<Report> = {}): Report {
  return {
    target: { kind: "running" },
    generatedAt: new Date("2026-03-05T08:00:00Z"),
    campaigns,
    omitted: 0,
    errors: [],
    requests: campaigns.length * 7 + 1,
    ...extra,
  };
}
