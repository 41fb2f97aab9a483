// `node --import tsx scripts/campaign-screens.ts [dir]`: the cards of a campaign's life
// (issue 37: held, held for the quiet hours, starting, started, superseded by a
// send now; the approval card waiting, approved, and no longer holding), drawn
// by the functions the app draws them with, written as Block Kit JSON and, when
// the blockkit-preview renderer and Chromium are there, as PNG. Default folder:
// docs/screens.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { approvalCardView } from "../src/campaigns/approval-card.ts";
import { campaignCard } from "../src/campaigns/card.ts";
import { finishedCard } from "../src/campaigns/cards.ts";
import { heldCard } from "../src/campaigns/held-starts.ts";
import { progressMessage } from "../src/campaigns/live-card.ts";
import { type CampaignSummary, ratesOf } from "../src/domain/campaign-summary.ts";
import type { Counts } from "../src/domain/reports.ts";
import { startRulesOf } from "../src/domain/start-time.ts";
import type { ApprovalRecord } from "../src/store/approvals.ts";
import type { HeldStart } from "../src/store/held-starts.ts";

const out = resolve(process.argv[2] ?? "docs/screens");
const renderer = process.env.BLOCKKIT_PREVIEW ?? "/work/shared/tools/blockkit-preview/render.mjs";
mkdirSync(out, { recursive: true });

const rules = startRulesOf("Europe/Madrid", "21:00-08:00");
const start = (more: Partial<HeldStart>): HeldStart => ({
  id: 1,
  workspace: "T0ACME",
  campaignId: 7,
  campaignName: "Spring sale",
  at: new Date("2026-12-01T08:00:00Z"),
  requestedBy: "U0ANA",
  via: "slack",
  reason: "asked",
  state: "held",
  updatedAt: new Date("2026-11-29T10:00:00Z"),
  version: 0,
  ...more,
});
const approval = (more: Partial<ApprovalRecord>): ApprovalRecord => ({
  id: 3,
  campaignId: 7,
  state: "pending",
  requestedBy: "U0ANA",
  requestedAt: new Date("2026-11-29T09:00:00Z"),
  reach: 33,
  templateId: 1,
  card: {
    name: "Spring sale",
    message: "> Hi Ana, your order A-7 is on its way.",
    audience: "33 people: *VIP customers* (33)",
    channel: "Acme Store",
    start: "When a broadcaster sends it, once approved",
    approvers: ["<@U0BOB>", "<@U0CAROL>"],
  },
  pinned: {
    template: { id: 1, name: "order_update", language: "en" },
    values: { first_name: "Ana", order_id: "A-7" },
    groupIds: [31],
    contactIds: [],
    reach: 33,
    channelId: 1,
  },
  ...more,
});
const now = new Date("2026-11-29T10:00:00Z");
const facts =
  "Template *order_update*  ·  Channel *Acme Store*  ·  To *VIP customers*  ·  Launched by <@U0ANA>";
const summary = (status: string, counts: Partial<Counts>): CampaignSummary => {
  const all = { pending: 0, sending: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, ...counts };
  const total = Object.values(all).reduce((n, v) => n + v, 0);
  return {
    id: 7,
    name: "Spring sale",
    status,
    counts: all,
    total,
    ...ratesOf(all),
    partial: false,
    method: "totals",
    requests: 0,
  };
};
const decided = { decidedBy: "U0BOB", decidedAt: new Date("2026-11-29T09:30:00Z") };

const screens: Array<{ name: string; title: string; payload: object }> = [
  { name: "life-held", title: "Starts at a time", payload: heldCard(start({}), rules) },
  {
    name: "life-held-quiet",
    title: "Held for the quiet hours",
    payload: heldCard(start({ reason: "quiet" }), rules),
  },
  { name: "life-starting", title: "Starting", payload: heldCard(start({ state: "running" }), rules) },
  {
    name: "life-started",
    title: "Started (when it ran)",
    payload: heldCard(start({ state: "sent", ranAt: new Date("2026-12-01T08:00:07Z") }), rules, {
      status: "running",
    }),
  },
  {
    name: "life-draft",
    title: "A draft's card",
    payload: campaignCard({ id: 7, name: "Spring sale", status: "draft", facts }),
  },
  {
    name: "life-sending",
    title: "The live card, sending",
    payload: progressMessage(summary("running", { sent: 410, delivered: 220, failed: 12, pending: 258 }), {
      intro: facts,
      campaignId: 7,
      at: now,
      everyMs: 11_000,
    }),
  },
  {
    name: "life-done",
    title: "The live card, done",
    payload: progressMessage(summary("completed", { delivered: 850, read: 28, failed: 22 }), {
      intro: facts,
      campaignId: 7,
      at: now,
    }),
  },
  {
    name: "life-superseded",
    title: "An older card, finished by the launch (Send now anyway)",
    payload: finishedCard(
      { channel: "C0GENERAL" },
      {
        campaignId: 7,
        channel: "C0GENERAL",
        ts: "1",
        role: "live",
        by: "U0ANA",
        name: "Spring sale",
        status: "running",
        at: new Date("2026-11-29T05:29:00Z"),
      },
    ),
  },
  {
    name: "life-superseded-elsewhere",
    title: "A cancelled start's card, finished when the start was set again in another channel",
    payload: finishedCard(
      { channel: "C0GENERAL" },
      {
        campaignId: 7,
        channel: "C0SALES",
        ts: "2",
        role: "held",
        by: "U0ANA",
        name: "Spring sale",
        status: "draft",
        at: new Date("2026-11-29T06:02:00Z"),
      },
    ),
  },
  { name: "life-approval-waiting", title: "Approval waiting", payload: approvalCardView(approval({}), now) },
  {
    name: "life-approval-approved",
    title: "Approved",
    payload: approvalCardView(approval({ state: "approved", ...decided }), now),
  },
  {
    name: "life-approval-void",
    title: "The approval no longer holds",
    payload: approvalCardView(
      approval({
        state: "void",
        ...decided,
        reason: "the template is now *welcome_message* (en), not the approved *order_update* (en)",
      }),
      now,
    ),
  },
];

for (const s of screens) {
  const json = join(out, `${s.name}.json`);
  writeFileSync(json, `${JSON.stringify(s.payload, null, 2)}\n`);
  if (existsSync(renderer))
    execFileSync(
      process.execPath,
      [renderer, json, join(out, `${s.name}.png`), "--app-name", "Switchboard"],
      {
        stdio: "inherit",
      },
    );
  console.log(`${s.name}: ${s.title}`);
}
