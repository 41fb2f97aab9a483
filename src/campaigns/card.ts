// The campaign card: one message per campaign, the same wherever it shows
// (`/sb campaign <id>`, the launch, which then updates in place as it sends,
// and App Home): its name, the status with an emoji, one progress bar while
// it sends, "720 of 900 processed: 680 sent, delivered or read · 22 failed ·
// 18 skipped · 180 to go", the template, tag and channel
// by name, who launched it, and the next action as the first button.
import type { KnownBlock } from "@slack/types";
import { ACTION } from "../blocks/actions.ts";
import { esc, num } from "../blocks/blocks.ts";
import type { CampaignSummary } from "../domain/campaign-summary.ts";

export const CARD_STATUS: Record<string, { icon: string; label: string }> = {
  draft: { icon: ":memo:", label: "Draft" },
  scheduled: { icon: ":calendar:", label: "Scheduled" },
  running: { icon: ":large_green_circle:", label: "Sending" },
  paused: { icon: ":double_vertical_bar:", label: "Paused" },
  completed: { icon: ":white_check_mark:", label: "Completed" },
  failed: { icon: ":red_circle:", label: "Failed" },
  cancelled: { icon: ":no_entry_sign:", label: "Cancelled" },
};
/** Statuses a campaign does not leave: nothing to send or cancel any more. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set(["completed", "failed", "cancelled"]);
const SENDING = new Set(["running", "paused"]);
const BAR = 20;

/** The facts line of a card: names, never ids. Values are plain text (escaped here) except `launchedBy` (mrkdwn). */
export interface CardFacts {
  template?: string;
  tag?: string;
  channel?: string;
  /** Who it goes to: group names. */
  audience?: string;
  /** mrkdwn: `<@U0ALICE>`, or `the shell`. */
  launchedBy?: string;
}

export interface CardInput {
  id: number;
  name: string;
  status: string;
  /** Recipients by status, when known (not for a draft). */
  summary?: CampaignSummary;
  /** The facts line as mrkdwn (factsLine()), kept as given. */
  facts?: string;
  /** A last small line: when it was updated, why it stopped. */
  footer?: string;
  /** Where its start stands (a held start: "Starts at …", "Start cancelled by …"), under the head. */
  startLine?: string;
  /** Buttons instead of the status's own (a held start: Cancel start, Send now anyway). */
  buttons?: Array<{ text: string; value: string; style?: "primary" }>;
  /**
   * Approval before a send (issue 28 §3): its status line (mrkdwn, "Waiting for
   * approval (asked by @ana)") and the draft's next button instead of Send…
   */
  approval?: { line?: string; next: "request" | "send" | "none" };
}

export function factsLine(f: CardFacts): string {
  return [
    f.template ? `Template *${esc(f.template)}*` : "",
    f.tag ? `Tag *${esc(f.tag)}*` : "",
    f.channel ? `Channel *${esc(f.channel)}*` : "",
    f.audience ? `To *${esc(f.audience)}*` : "",
    f.launchedBy ? `Launched by ${f.launchedBy}` : "",
  ]
    .filter(Boolean)
    .join("  ·  ");
}

/** Recipients whose send is over one way or the other (not pending, not sending). */
export const finishedOf = (s: CampaignSummary) => s.total - s.counts.pending - s.counts.sending;

/**
 * `720 of 900 processed: 680 sent, delivered or read · 22 failed · 18 skipped · 180 to go`:
 * every figure from the one summary, and they add up (processed = sent, delivered
 * or read + failed + skipped; processed + to go = all recipients).
 */
export function progressLine(s: CampaignSummary): string {
  if (s.total === 0) return "no recipients yet";
  const c = s.counts;
  const reached = c.sent + c.delivered + c.read;
  const toGo = c.pending + c.sending;
  const parts = [
    `${num(s.total - toGo)} of ${num(s.total)} processed: ${num(reached)} sent, delivered or read`,
  ];
  if (c.failed > 0) parts.push(`${num(c.failed)} failed`);
  if (c.skipped > 0) parts.push(`${num(c.skipped)} skipped`);
  if (toGo > 0) parts.push(`${num(toGo)} to go`);
  return parts.join(" · ");
}

export function progressBar(share: number): string {
  let filled = Math.round(share * BAR);
  if (share > 0 && filled === 0) filled = 1;
  return `${"▓".repeat(filled)}${"░".repeat(BAR - filled)}  *${Math.floor(share * 100)}%*`;
}

/** The next actions, the likeliest first (a draft: Send…; sending: Cancel…; finished: Report). */
export function cardButtons(c: Pick<CardInput, "id" | "status" | "summary" | "approval">) {
  const failed = c.summary?.counts.failed ?? 0;
  const list: Array<{ text: string; value: string; style?: "primary" }> = [];
  // A draft: Send… and Send at…; with approval, Request approval first, Send now and Send at… once approved.
  const next = c.approval?.next;
  if ((c.status === "draft" || c.status === "scheduled") && next !== "none") {
    list.push(
      next === "request"
        ? { text: "Request approval", value: `campaign ${c.id} request`, style: "primary" }
        : { text: next === "send" ? "Send now" : "Send…", value: `campaign ${c.id} send`, style: "primary" },
    );
    if (next !== "request") list.push({ text: "Send at…", value: `campaign ${c.id} send-at` });
  }
  // Cancelling is never the green button: it comes first, plain, and asks to confirm.
  if (SENDING.has(c.status) || c.status === "scheduled")
    list.push({ text: "Cancel…", value: `campaign ${c.id} cancel` });
  if (SENDING.has(c.status) || FINAL_STATUSES.has(c.status))
    list.push({
      text: "Report",
      value: `report now ${c.id}`,
      ...(FINAL_STATUSES.has(c.status) ? { style: "primary" as const } : {}),
    });
  if (failed > 0)
    list.push({
      text: `Failed recipients (${num(failed)})`,
      value: `campaign ${c.id} recipients status=failed`,
    });
  if (FINAL_STATUSES.has(c.status)) list.push({ text: "Recipients", value: `campaign ${c.id} recipients` });
  return list;
}

const statusOf = (status: string) => CARD_STATUS[status] ?? { icon: ":grey_question:", label: status };
const figuresOf = (c: Pick<CardInput, "status" | "summary">) =>
  c.summary ? progressLine(c.summary) : c.status === "draft" ? "not sent yet" : "";

/** The card's first lines (mrkdwn): name, status and figures, the bar while sending. */
export function cardHead(c: Pick<CardInput, "name" | "status" | "summary" | "approval">): string {
  const st = statusOf(c.status);
  const s = c.summary;
  const figures = figuresOf(c);
  const lines = [`${st.icon} *${esc(c.name)}*`, `*${esc(st.label)}*${figures ? ` · ${figures}` : ""}`];
  if (c.approval?.line) lines.push(c.approval.line);
  if (s && SENDING.has(c.status)) lines.push(progressBar(s.total > 0 ? finishedOf(s) / s.total : 0));
  return lines.join("\n").slice(0, 3000);
}

export function campaignCard(c: CardInput): { text: string; blocks: KnownBlock[] } {
  const st = statusOf(c.status);
  const figures = figuresOf(c);
  const blocks: KnownBlock[] = [
    { type: "section", block_id: "card_head", text: { type: "mrkdwn", text: cardHead(c) } },
  ];
  if (c.startLine) {
    blocks.push({
      type: "context",
      block_id: "card_start",
      elements: [{ type: "mrkdwn", text: c.startLine.slice(0, 3000) }],
    });
  }
  if (c.facts) {
    blocks.push({
      type: "context",
      block_id: "card_facts",
      elements: [{ type: "mrkdwn", text: c.facts.slice(0, 3000) }],
    });
  }
  const buttons = c.buttons ?? cardButtons(c);
  if (buttons.length) {
    blocks.push({
      type: "actions",
      block_id: "card_actions",
      elements: buttons.map((b, i) => ({
        type: "button" as const,
        // Unique within the message; the run listener matches `sb_run` and its `:n` suffixes.
        action_id: i === 0 ? ACTION.run : `${ACTION.run}:${i + 1}`,
        text: { type: "plain_text" as const, text: b.text },
        value: b.value,
        ...(b.style ? { style: b.style } : {}),
      })),
    });
  }
  if (c.footer) {
    blocks.push({
      type: "context",
      block_id: "card_footer",
      elements: [{ type: "mrkdwn", text: c.footer.slice(0, 3000) }],
    });
  }
  const text = `${c.name}: ${st.label.toLowerCase()}${figures ? `, ${figures.replace(/ · /g, ", ")}` : ""}`;
  return { text: esc(text).slice(0, 3000), blocks };
}
