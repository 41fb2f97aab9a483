import type { KnownBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { chartFile, chartSvg } from "../../src/reports/chart.ts";
import { bar, DETAIL_LIMIT, LIMITS, renderReport } from "../../src/reports/render.ts";
import { checkMessageBlocks } from "../fakes/block-kit.ts";
import { campaignSummary, counts, manyCampaigns, report } from "./fixtures.ts";

/** The message limits Slack enforces (chat.postMessage refuses the message otherwise), the fake Slack's rules too. */
function slackProblems(blocks: KnownBlock[]): string[] {
  const problems: string[] = checkMessageBlocks(blocks);
  if (blocks.length > LIMITS.blocks) problems.push(`${blocks.length} blocks`);
  const ids = new Set<string>();
  for (const b of blocks) {
    const id = (b as { block_id?: string }).block_id;
    if (id) {
      if (ids.has(id)) problems.push(`duplicate block_id ${id}`);
      if (id.length > 255) problems.push(`block_id too long`);
      ids.add(id);
    }
    if (b.type === "section") {
      if (b.text && b.text.text.length > LIMITS.sectionText)
        problems.push(`section text ${b.text.text.length}`);
      if ((b.fields?.length ?? 0) > LIMITS.fields) problems.push("too many fields");
      for (const f of b.fields ?? []) if (f.text.length > 2000) problems.push("field too long");
      if (!b.text && !b.fields?.length) problems.push("empty section");
      const acc = b.accessory as { type?: string; text?: { text: string }; value?: string } | undefined;
      if (acc?.type === "button" && ((acc.text?.text.length ?? 0) > 75 || (acc.value?.length ?? 0) > 2000)) {
        problems.push("button too long");
      }
    }
    if (b.type === "header" && b.text.text.length > LIMITS.headerText) problems.push("header too long");
    if (b.type === "context") {
      if (b.elements.length > LIMITS.contextElements || b.elements.length === 0)
        problems.push("context elements");
      for (const e of b.elements)
        if ("text" in e && e.text.length > 3000) problems.push("context text too long");
    }
  }
  return problems;
}

describe("report rendering", () => {
  it("stays within Slack's limits with 60 campaigns, and shows every campaign", () => {
    const campaigns = manyCampaigns(60);
    const messages = renderReport(report(campaigns), { failureAlert: 0.05, tz: "UTC" });
    expect(messages.length).toBeGreaterThanOrEqual(1);
    for (const m of messages) {
      expect(slackProblems(m.blocks)).toEqual([]);
      expect(m.text.length).toBeGreaterThan(0);
      expect(m.text.length).toBeLessThanOrEqual(3000);
    }
    const all = JSON.stringify(messages.map((m) => m.blocks));
    for (const c of campaigns) expect(all).toContain(String(c.id));
    // Detailed campaigns have their own block; the rest are rows of a table.
    const detailed = messages.flatMap((m) => m.blocks).filter((b) => b.block_id?.endsWith("_head"));
    expect(detailed).toHaveLength(DETAIL_LIMIT);
  });

  it("splits into several messages when the detail would pass 50 blocks, each within limits", () => {
    const campaigns = manyCampaigns(60);
    const messages = renderReport(report(campaigns), { failureAlert: 0.05, tz: "UTC", detailLimit: 60 });
    expect(messages.length).toBeGreaterThan(1);
    for (const [i, m] of messages.entries()) {
      expect(slackProblems(m.blocks)).toEqual([]);
      if (i > 0) expect(m.text).toMatch(new RegExp(`part ${i + 1} of ${messages.length}`));
    }
    const bars = messages.flatMap((m) => m.blocks).filter((b) => b.block_id?.endsWith("_head"));
    expect(bars).toHaveLength(60);
  });

  it("one compact block per campaign: one bar, the counts that are not zero, rates, the change, the alert", () => {
    const c = campaignSummary(42, "Spring <sale>", "running", {
      pending: 100,
      sent: 100,
      delivered: 500,
      read: 200,
      failed: 100,
    });
    const previous = new Map([
      [
        42,
        {
          campaignId: 42,
          counts: counts({ pending: 300, sent: 100, delivered: 400, read: 150, failed: 50 }),
          slotAt: new Date("2026-03-04T08:00:00Z"),
          takenAt: new Date("2026-03-04T08:00:02Z"),
        },
      ],
    ]);
    const [m] = renderReport(report([c], { target: { kind: "campaign", id: 42 } }), {
      failureAlert: 0.05,
      tz: "Europe/Paris",
      previous,
    });
    const blocks = m?.blocks ?? [];
    // Titled by the campaign's name; the rates explained once, at the top.
    expect(JSON.stringify(blocks[0])).toContain("Campaign report · Spring <sale>");
    expect(JSON.stringify(blocks.find((b) => b.block_id === "meta"))).toContain("share of those delivered");
    const head = blocks.find((b) => b.block_id === "c0_head") as Extract<KnownBlock, { type: "section" }>;
    const text = head.text?.text ?? "";
    expect(text).toContain("*Spring &lt;sale&gt;*");
    expect(head.accessory).toMatchObject({
      type: "button",
      action_id: ACTION.run,
      value: "campaign 42 recipients status=failed",
    });
    expect(text.match(/[▓░]{20}/g)).toHaveLength(1);
    expect(text).toMatch(/90% done/);
    expect(text).toContain("200 read · 500 delivered · 100 sent · 100 failed · 100 pending");
    expect(text).not.toMatch(/\b0 (sending|skipped)/);
    // attempted 900: delivered (500+200)/900, read 200/700, failed 100/900
    expect(text).toContain("Delivered *77.8%*");
    expect(text).toContain("Read *28.6%*");
    expect(text).toContain("Failed *11.1%*");
    const change = JSON.stringify(blocks.find((b) => b.block_id === "c0_change"));
    expect(change).toMatch(
      /Since Wed 4 Mar 2026, 09:00 GMT\+1: ▲50 read · ▲100 delivered · ▲50 failed · ▼200 pending/,
    );
    expect(JSON.stringify(blocks.find((b) => b.block_id === "c0_alert"))).toMatch(
      /Failures at 11\.1%\*? pass the 5\.0% alert/,
    );
    expect(m?.text).toMatch(/Spring <sale>: 77\.8% delivered, 11\.1% failed ⚠/);
  });

  it("warns only above the threshold, and puts no button where nothing failed", () => {
    const ok = campaignSummary(1, "Fine", "completed", { delivered: 96, failed: 4 });
    const clean = campaignSummary(2, "Clean", "completed", { delivered: 10 });
    const [m] = renderReport(report([ok, clean]), { failureAlert: 0.05, tz: "UTC" });
    const ids = (m?.blocks ?? []).map((b) => b.block_id);
    expect(ids).not.toContain("c0_alert");
    expect(ids).not.toContain("c1_alert");
    const cleanHead = m?.blocks.find((b) => b.block_id === "c1_head") as { accessory?: unknown };
    expect(cleanHead.accessory).toBeUndefined();
  });

  it("says when a figure is partial, when nothing runs, and what was left out", () => {
    const partial = {
      ...campaignSummary(5, "Paged", "running", { delivered: 2000 }),
      partial: true,
      method: "paging" as const,
      requests: 21,
    };
    const [m] = renderReport(
      report([partial], {
        omitted: 3,
        errors: [{ campaignId: 9, message: "Campaign 9 was not found (deleted?)" }],
      }),
      {
        failureAlert: 0.05,
        tz: "UTC",
      },
    );
    const text = JSON.stringify(m?.blocks);
    expect(text).toMatch(/Partial: the API gives no totals, so only the first 2,000 recipients were counted/);
    expect(text).toMatch(/3 more campaigns not in this report/);
    expect(text).toMatch(/Campaign 9 was not found/);
    const [empty] = renderReport(report([]), { failureAlert: 0.05, tz: "UTC" });
    expect(JSON.stringify(empty?.blocks)).toContain("No campaign is running.");
    expect(empty?.text).toMatch(/no campaigns/);
  });

  it("draws bars that never hide a non-zero status", () => {
    expect(bar(0)).toBe("░".repeat(20));
    expect(bar(1)).toBe("▓".repeat(20));
    expect(bar(0.001)).toBe(`▓${"░".repeat(19)}`);
    expect(bar(0.5)).toBe("▓".repeat(10) + "░".repeat(10));
  });
});

describe("chart", () => {
  it("is a PNG with one bar per campaign and a legend", () => {
    const campaigns = manyCampaigns(3);
    const svg = chartSvg(campaigns, "Campaign report");
    for (const s of ["pending", "sending", "sent", "delivered", "read", "failed", "skipped"])
      expect(svg).toContain(`>${s}</text>`);
    for (const c of campaigns) expect(svg).toContain(`(#${c.id})`);
    const file = chartFile(campaigns, "Campaign report", "2026-03-05");
    expect([...file.content.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // IHDR: width 900, height grows with the rows.
    const view = new DataView(file.content.buffer, file.content.byteOffset);
    expect(view.getUint32(16)).toBe(900);
    expect(view.getUint32(20)).toBeGreaterThan(3 * 30);
    expect(file.filename).toBe("campaign-report-2026-03-05.png");
    expect(file.altText).toMatch(/^Recipient statuses by campaign\./);
  });

  it("escapes names and caps the rows", () => {
    const c = campaignSummary(1, `<script>&"`, "running", { read: 1 });
    expect(chartSvg([c], "t")).toContain("&lt;script&gt;&amp;&quot;");
    const svg = chartSvg(manyCampaigns(40), "t");
    expect(svg).toContain("…and 15 more campaigns");
  });
});
