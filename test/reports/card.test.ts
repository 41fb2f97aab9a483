// Issue 22 §6: the campaign card's figures add up. "720 of 900 sent" counted
// failures as sent; now every figure comes from the one summary, and
// processed = sent, delivered or read + failed + skipped, and processed + to
// go = all recipients.
import { describe, expect, it } from "vitest";
import { cardHead, progressLine } from "../../src/campaigns/card.ts";
import type { Counts } from "../../src/domain/reports.ts";
import { type CampaignSummary, ratesOf, STATUSES } from "../../src/reports/summary.ts";

function summary(counts: Partial<Counts>, status = "running"): CampaignSummary {
  const full = Object.fromEntries(STATUSES.map((s) => [s, counts[s] ?? 0])) as Counts;
  const total = STATUSES.reduce((n, s) => n + full[s], 0);
  return {
    id: 1,
    name: "Spring sale",
    status,
    counts: full,
    total,
    ...ratesOf(full),
    partial: false,
    method: "totals",
    requests: 0,
  };
}

/** The numbers of a progress line, checked to add up. */
function addsUp(line: string): boolean {
  const m =
    /^([\d,]+) of ([\d,]+) processed: ([\d,]+) sent, delivered or read(?: · ([\d,]+) failed)?(?: · ([\d,]+) skipped)?(?: · ([\d,]+) to go)?$/.exec(
      line,
    );
  if (!m) return false;
  const [processed, total, reached, failed, skipped, toGo] = m
    .slice(1)
    .map((x) => Number((x ?? "0").replace(/,/g, "")));
  return processed === reached! + failed! + skipped! && processed! + toGo! === total;
}

describe("the card's figures (issue 22 §6)", () => {
  it("says processed, then what became of them, and what is to go: 720 of 900", () => {
    const line = progressLine(
      summary({ sent: 300, delivered: 280, read: 100, failed: 22, skipped: 18, pending: 150, sending: 30 }),
    );
    expect(line).toBe(
      "720 of 900 processed: 680 sent, delivered or read · 22 failed · 18 skipped · 180 to go",
    );
    expect(addsUp(line)).toBe(true);
  });

  it("never counts failures as sent, and adds up whatever the counts", () => {
    const done = progressLine(summary({ delivered: 9, failed: 1 }, "completed"));
    expect(done).toBe("10 of 10 processed: 9 sent, delivered or read · 1 failed");
    for (let i = 0; i < 200; i++) {
      const counts = Object.fromEntries(STATUSES.map((s) => [s, (i * 7919 + s.length * 31) % 53])) as Counts;
      const s = summary(counts);
      if (s.total > 0) expect(addsUp(progressLine(s)), JSON.stringify(counts)).toBe(true);
    }
    expect(
      cardHead({ name: "Spring sale", status: "running", summary: summary({ read: 1, pending: 1 }) }),
    ).toContain("1 of 2 processed: 1 sent, delivered or read · 1 to go");
  });
});
