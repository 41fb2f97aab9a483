// A report as Slack messages (Block Kit). Whatever the number of campaigns the
// result stays inside Slack's limits: the first DETAIL_LIMIT campaigns in
// detail (bars, rates, change, warning, button), the rest as a compact table,
// and more messages when one would pass 50 blocks. Never rejected, always a
// fallback `text`.
import type { KnownBlock } from "@slack/types";
import { ACTION } from "../blocks/actions.ts";
import { esc, num } from "../blocks/blocks.ts";
import type { Counts, Snapshot } from "../domain/reports.ts";
import { formatLocal, type ReportTarget } from "./schedule.ts";
import { type CampaignSummary, type Report, STATUSES } from "./summary.ts";

/** Slack's limits for a message. */
export const LIMITS = {
  blocks: 50,
  sectionText: 3000,
  fields: 10,
  headerText: 150,
  contextElements: 10,
} as const;
/** Campaigns shown in detail; the rest go in the compact table. */
export const DETAIL_LIMIT = 8;
/** Rows per table section: 25 rows of at most ~90 characters stay far under 3000. */
const TABLE_ROWS = 25;
const BAR_WIDTH = 20;

export interface ReportFile {
  filename: string;
  title: string;
  altText: string;
  content: Uint8Array;
}

/** One chat.postMessage: text is the fallback for notifications and screen readers. */
export interface ReportMessage {
  text: string;
  blocks: KnownBlock[];
  /** The chart, on the first message only: the Slack side uploads it next to the message. */
  file?: ReportFile;
}

export interface RenderOptions {
  /** Failure rate above which a campaign gets a warning (REPORT_FAILURE_ALERT). */
  failureAlert: number;
  /** Zone for the times shown. */
  tz: string;
  /** Figures of the same schedule's previous report, by campaign id. */
  previous?: Map<number, Snapshot>;
  /** The schedule's number in its workspace (`schedule #2`), as `/sb reports` shows it. */
  scheduleNumber?: number;
  /** Set when the report was due earlier (missed while the bot was down). */
  lateSlot?: Date;
  /** Earlier reports of the schedule that may not have been posted (`interrupted`: the bot restarted mid-post). */
  uncertain?: Array<{ slotAt: Date; interrupted: boolean }>;
  /** The schedule's description ("every weekday at 09:00 (Europe/Paris)"). */
  cadence?: string;
  detailLimit?: number;
  chart?: ReportFile;
}

export const pct = (r: number | null) => (r === null ? "–" : `${(r * 100).toFixed(1)}%`);
export const clip = (s: string, n: number) => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

export const STATUS_ICON: Record<string, string> = {
  running: ":large_green_circle:",
  completed: ":white_check_mark:",
  failed: ":red_circle:",
  cancelled: ":no_entry_sign:",
  paused: ":double_vertical_bar:",
  scheduled: ":calendar:",
  draft: ":memo:",
};

export function bar(share: number, width = BAR_WIDTH): string {
  let filled = Math.round(share * width);
  if (share > 0 && filled === 0) filled = 1; // a non-zero status never looks empty
  return "▓".repeat(filled) + "░".repeat(width - filled);
}

function delta(now: number, before: number | undefined): string {
  if (before === undefined) return "";
  const d = now - before;
  return d > 0 ? `▲${num(d)}` : d < 0 ? `▼${num(-d)}` : "=";
}

/** The status lines, aligned, for a code block. */
export function statusLines(c: CampaignSummary, previous?: Counts): string {
  const share = (n: number) => (c.total > 0 ? n / c.total : 0);
  const countWidth = Math.max(...STATUSES.map((s) => num(c.counts[s]).length));
  return STATUSES.map((s) => {
    const n = c.counts[s];
    const change = previous ? ` ${delta(n, previous[s])}` : "";
    return `${s.padEnd(9)} ${bar(share(n))} ${num(n).padStart(countWidth)} ${(pct(share(n)) as string).padStart(6)}${change}`;
  }).join("\n");
}

const alertOf = (c: CampaignSummary, threshold: number) =>
  c.rates.failed !== null && c.rates.failed > threshold;

export const targetLabel = (t: ReportTarget) =>
  t.kind === "campaign"
    ? `campaign ${t.id}`
    : t.kind === "running"
      ? "running campaigns"
      : t.kind === "inbox"
        ? "the inbox's desk"
        : "recent campaigns";

function failedButtonValue(id: number) {
  return `campaign ${id} recipients status=failed`;
}

/** Statuses in the order people read them: outcomes first, what is still to come last. */
const COUNT_ORDER = ["read", "delivered", "sent", "failed", "skipped", "sending", "pending"] as const;

/** `200 read · 500 delivered · 100 failed`: the counts that are not zero. */
export function countsLine(c: Counts): string {
  const parts = COUNT_ORDER.filter((s) => (c[s] ?? 0) > 0).map((s) => `${num(c[s])} ${s}`);
  return parts.length ? parts.join(" · ") : "no recipients yet";
}

/** `▲100 delivered · ▼200 pending`: what changed since the previous report, or "no change". */
function changeLine(now: Counts, before: Counts): string {
  const parts = COUNT_ORDER.flatMap((s) => {
    const d = (now[s] ?? 0) - (before[s] ?? 0);
    return d === 0 ? [] : [`${delta(now[s] ?? 0, before[s])} ${s}`];
  });
  return parts.length ? parts.join(" · ") : "no change";
}

/** Read once at the top: each rate has one denominator. */
export const RATES_EXPLAINED =
  "Delivered and failed are shares of the messages sent; read is a share of those delivered.";

/** One compact block per campaign: status, one bar, the counts that are not zero, the rates; then the change and the alert. */
function detailBlocks(c: CampaignSummary, i: number, opts: RenderOptions): KnownBlock[] {
  const prev = opts.previous?.get(c.id);
  const icon = STATUS_ICON[c.status] ?? ":grey_question:";
  const finished = c.total - c.counts.pending - c.counts.sending;
  const share = c.total > 0 ? finished / c.total : 0;
  const rates = `Delivered *${pct(c.rates.delivered)}* · Read *${pct(c.rates.read)}* · Failed *${pct(c.rates.failed)}*`;
  const lines = [
    `${icon} *${esc(c.name)}* · ${esc(c.status)} · ${num(c.total)} recipient${c.total === 1 ? "" : "s"}`,
    `${bar(share)}  ${Math.floor(share * 100)}% done`,
    countsLine(c.counts),
    rates,
  ];
  if (c.partial) {
    lines.push(
      `:warning: Partial: the API gives no totals, so only the first ${num(c.total)} recipients were counted.`,
    );
  } else if (c.method === "paging") {
    lines.push("Counted by paging (the API gives no totals).");
  }
  const head: KnownBlock = {
    type: "section",
    block_id: `c${i}_head`,
    text: { type: "mrkdwn", text: clip(lines.join("\n"), 3000) },
  };
  if (c.counts.failed > 0) {
    head.accessory = {
      type: "button",
      // Unique within the message (Slack refuses a repeated action_id); the run listener takes `:n`.
      action_id: i === 0 ? ACTION.run : `${ACTION.run}:${i + 1}`,
      text: { type: "plain_text", text: `Failed recipients (${num(c.counts.failed)})`, emoji: true },
      value: failedButtonValue(c.id),
    };
  }
  const blocks: KnownBlock[] = [head];
  if (prev) {
    blocks.push({
      type: "context",
      block_id: `c${i}_change`,
      elements: [
        {
          type: "mrkdwn",
          text: clip(
            `Since ${formatLocal(prev.slotAt, opts.tz)}: ${changeLine(c.counts, prev.counts)}`,
            3000,
          ),
        },
      ],
    });
  }
  if (alertOf(c, opts.failureAlert)) {
    blocks.push({
      type: "context",
      block_id: `c${i}_alert`,
      elements: [
        {
          type: "mrkdwn",
          text: `:warning: *Failures at ${pct(c.rates.failed)}* pass the ${pct(opts.failureAlert)} alert (${num(c.counts.failed)} of ${num(c.attempted)} messages sent).`,
        },
      ],
    });
  }
  return blocks;
}

/** One line of the compact table. */
function tableRow(c: CampaignSummary, threshold: number): string {
  const name = clip(c.name.replace(/\s+/g, " "), 22).padEnd(22);
  const status = clip(c.status, 9).padEnd(9);
  const warn = alertOf(c, threshold) ? " ⚠" : c.partial ? " ~" : "";
  return `${String(c.id).padStart(6)} ${name} ${status} ${num(c.total).padStart(10)} ${pct(c.rates.delivered).padStart(6)} ${pct(c.rates.failed).padStart(6)}${warn}`;
}

const TABLE_HEAD = `${"id".padStart(6)} ${"campaign".padEnd(22)} ${"status".padEnd(9)} ${"recipients".padStart(10)} ${"deliv.".padStart(6)} ${"failed".padStart(6)}`;

function fallbackText(report: Report, opts: RenderOptions): string {
  const n = report.campaigns.length;
  const parts = report.campaigns.slice(0, 5).map((c) => {
    const warn = alertOf(c, opts.failureAlert) ? " ⚠" : "";
    return `${c.name}: ${pct(c.rates.delivered)} delivered, ${pct(c.rates.failed)} failed${warn}`;
  });
  const more = n > 5 ? `; and ${n - 5} more` : "";
  const late = opts.lateSlot ? " (late)" : "";
  const head = `Campaign report${late}, ${targetLabel(report.target)}: ${n === 0 ? "no campaigns" : `${n} campaign${n === 1 ? "" : "s"}`}`;
  return clip(`${head}${parts.length ? ` — ${parts.join("; ")}${more}` : ""}`, 3000);
}

/**
 * The report as one or more messages. Block ids are unique within each
 * message; every message carries a fallback text.
 */
export function renderReport(report: Report, opts: RenderOptions): ReportMessage[] {
  const detailLimit = Math.max(0, opts.detailLimit ?? DETAIL_LIMIT);
  // Names, not numbers: a report of one campaign is titled with its name.
  const only = report.target.kind === "campaign" ? report.campaigns[0]?.name : undefined;
  const title = clip(
    `:bar_chart: Campaign report · ${only ?? targetLabel(report.target)}`,
    LIMITS.headerText,
  );
  const meta = [
    formatLocal(report.generatedAt, opts.tz),
    opts.cadence,
    opts.scheduleNumber !== undefined ? `schedule #${opts.scheduleNumber}` : undefined,
    `${report.campaigns.length} campaign${report.campaigns.length === 1 ? "" : "s"}`,
  ].filter(Boolean);
  const explained = report.campaigns.length > 0 ? `\n${RATES_EXPLAINED}` : "";
  const top: KnownBlock[] = [
    { type: "header", block_id: "title", text: { type: "plain_text", text: title, emoji: true } },
    {
      type: "context",
      block_id: "meta",
      elements: [{ type: "mrkdwn", text: clip(`${meta.join("  ·  ")}${explained}`, 3000) }],
    },
  ];
  if (opts.lateSlot) {
    top.push({
      type: "context",
      block_id: "late",
      elements: [
        {
          type: "mrkdwn",
          text: `:hourglass: *Late:* this report was due ${formatLocal(opts.lateSlot, opts.tz)}, while the bot was down; figures are as of now.`,
        },
      ],
    });
  }
  if (opts.uncertain?.length) {
    const lines = opts.uncertain
      .slice(-5)
      .map(
        (u) =>
          `:grey_question: The report of ${formatLocal(u.slotAt, opts.tz)} may not have been posted (${u.interrupted ? "the bot restarted" : "Slack did not confirm it"}).`,
      );
    const more = opts.uncertain.length - lines.length;
    if (more > 0) lines.push(`… and ${more} earlier one${more === 1 ? "" : "s"}.`);
    top.push({
      type: "context",
      block_id: "uncertain",
      elements: [{ type: "mrkdwn", text: clip(lines.join("\n"), 3000) }],
    });
  }
  const alerts = report.campaigns.filter((c) => alertOf(c, opts.failureAlert));
  if (alerts.length > 1) {
    top.push({
      type: "section",
      block_id: "alerts",
      text: {
        type: "mrkdwn",
        text: clip(
          `:warning: *${alerts.length} campaigns pass the ${pct(opts.failureAlert)} failure alert:* ${alerts.map((c) => `${esc(clip(c.name, 40))} (${pct(c.rates.failed)})`).join(", ")}`,
          3000,
        ),
      },
    });
  }
  top.push({ type: "divider", block_id: "top_end" });

  // Campaigns with alerts come first in the detailed part, so the table never hides them.
  const ordered = [...report.campaigns].sort(
    (a, b) => Number(alertOf(b, opts.failureAlert)) - Number(alertOf(a, opts.failureAlert)),
  );
  const detailed = ordered.slice(0, detailLimit);
  const rest = ordered.slice(detailLimit);

  // Units are packed into messages of at most LIMITS.blocks blocks.
  const units: KnownBlock[][] = detailed.map((c, i) => detailBlocks(c, i, opts));
  for (let i = 0; i < rest.length; i += TABLE_ROWS) {
    const rows = rest.slice(i, i + TABLE_ROWS).map((c) => tableRow(c, opts.failureAlert));
    const label =
      i === 0
        ? `*${rest.length} more campaign${rest.length === 1 ? "" : "s"}* (⚠ failures above the alert, ~ partial):`
        : undefined;
    const text = `${label ? `${label}\n` : ""}\`\`\`${TABLE_HEAD}\n${rows.join("\n")}\`\`\``;
    units.push([{ type: "section", block_id: `table_${i / TABLE_ROWS}`, text: { type: "mrkdwn", text } }]);
  }
  const tail: KnownBlock[] = [];
  const notes: string[] = [];
  if (report.campaigns.length === 0 && report.errors.length === 0) {
    notes.push(report.target.kind === "running" ? "No campaign is running." : "No campaigns found.");
  }
  for (const e of report.errors) notes.push(`:grey_question: ${esc(e.message)}`);
  if (report.omitted > 0) {
    notes.push(
      `…and ${num(report.omitted)} more campaign${report.omitted === 1 ? "" : "s"} not in this report (it keeps to the most recent ones).`,
    );
  }
  // A context block holds at most 10 elements: the notes go in as lines of a few elements.
  for (let i = 0; i < notes.length; i += 10) {
    tail.push({
      type: "context",
      block_id: `notes_${i / 10}`,
      elements: [{ type: "mrkdwn", text: clip(notes.slice(i, i + 10).join("\n"), 3000) }],
    });
  }

  const messages: KnownBlock[][] = [[...top]];
  for (const unit of [...units, ...(tail.length ? [tail] : [])]) {
    const current = messages[messages.length - 1] ?? [];
    // Later messages start with a "continued" line: one block less room.
    const room = messages.length === 1 ? LIMITS.blocks : LIMITS.blocks - 1;
    if (current.length + unit.length > room) messages.push([...unit]);
    else current.push(...unit);
  }
  const text = fallbackText(report, opts);
  return messages.map((blocks, i) => ({
    text: i === 0 ? text : `${text} (part ${i + 1} of ${messages.length})`,
    blocks:
      i === 0
        ? blocks
        : [
            {
              type: "context",
              block_id: "continued",
              elements: [
                { type: "mrkdwn", text: `Campaign report, continued (part ${i + 1} of ${messages.length})` },
              ],
            },
            ...blocks,
          ],
    ...(i === 0 && opts.chart ? { file: opts.chart } : {}),
  }));
}
