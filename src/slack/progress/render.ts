// The launched campaign's message while it sends: the line that announced it,
// a progress bar of finished recipients, the bars per status (the report's
// own, src/reports/render.ts), the rates, and when it was last updated. Once
// the campaign is completed, failed or cancelled: the final figures.
import type { KnownBlock } from "@slack/types";
import { esc, num } from "../../blocks/blocks.ts";
import { ACTION } from "../../commands/types.ts";
import { bar, clip, STATUS_ICON as ICON, pct, statusLines } from "../../reports/render.ts";
import type { CampaignSummary } from "../../reports/summary.ts";

export const FINAL_STATUSES = new Set(["completed", "failed", "cancelled"]);

/** Slack shows this in each reader's own time zone. */
const slackTime = (at: Date) =>
  `<!date^${Math.floor(at.getTime() / 1000)}^{time_secs}|${at.toISOString().slice(11, 19)} UTC>`;

export interface ProgressView {
  /** The announcing line as first posted (mrkdwn). */
  intro: string;
  campaignId: number;
  at: Date;
  /** Live: about how often it refreshes. */
  everyMs?: number;
  /** Why it stopped updating, when it did so before the campaign finished. */
  stopped?: string;
}

/** The launch line without the status it had then (the bar below says the current one). */
const introOf = (intro: string) => intro.replace(/ \(status [a-z_]+\)/, "");

/** Recipients whose send is over one way or the other (not pending, not sending). */
export const finishedOf = (s: CampaignSummary) => s.total - s.counts.pending - s.counts.sending;

export function progressMessage(s: CampaignSummary, v: ProgressView): { text: string; blocks: KnownBlock[] } {
  const final = FINAL_STATUSES.has(s.status);
  const finished = finishedOf(s);
  const share = s.total > 0 ? finished / s.total : final ? 1 : 0;
  const icon = ICON[s.status] ?? ":grey_question:";
  const head: KnownBlock = {
    type: "section",
    text: {
      type: "mrkdwn",
      text: clip(
        `${icon} *${esc(s.name)}* · #${s.id} · *${esc(s.status)}*${final ? " — final figures" : ""}\n` +
          `${bar(share)}  *${Math.floor(share * 100)}%* done: ${num(finished)} of ${num(s.total)} recipients`,
        3000,
      ),
    },
  };
  const rates = `Delivered *${pct(s.rates.delivered)}* · Read *${pct(s.rates.read)}* · Failed *${pct(s.rates.failed)}*`;
  const when = final
    ? `Finished by ${slackTime(v.at)}`
    : v.stopped
      ? `${esc(v.stopped)} (last figures ${slackTime(v.at)})`
      : `Updated ${slackTime(v.at)}${v.everyMs ? `, about every ${Math.max(1, Math.round(v.everyMs / 1000))} s` : ""}`;
  const intro = introOf(v.intro);
  const blocks: KnownBlock[] = [
    { type: "section", text: { type: "mrkdwn", text: clip(intro, 3000) } },
    head,
    { type: "section", text: { type: "mrkdwn", text: `\`\`\`${statusLines(s)}\`\`\`` } },
    { type: "context", elements: [{ type: "mrkdwn", text: `${rates}  ·  ${when}` }] },
  ];
  if (s.partial) {
    blocks.push({
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: `:warning: Partial: the API gives no totals, so only the first ${num(s.total)} recipients are counted.`,
        },
      ],
    });
  }
  if (s.counts.failed > 0) {
    blocks.push({
      type: "actions",
      elements: [
        {
          type: "button",
          action_id: ACTION.run,
          text: { type: "plain_text", text: `Failed recipients (${num(s.counts.failed)})` },
          value: `campaign ${s.id} recipients status=failed`,
        },
      ],
    });
  }
  const plainIntro = intro.replace(/[*_`]/g, "");
  const figures = `${Math.floor(share * 100)}% done, ${num(finished)} of ${num(s.total)}; delivered ${pct(s.rates.delivered)}, failed ${pct(s.rates.failed)}`;
  return {
    text: clip(`${plainIntro} — ${s.status}${final ? " (final)" : ""}: ${figures}`, 3000),
    blocks,
  };
}

/** The message once the campaign cannot be read any more (deleted). */
export function goneMessage(v: ProgressView, reason: string): { text: string; blocks: KnownBlock[] } {
  const line = `:grey_question: Campaign #${v.campaignId}: ${esc(reason)} No more updates.`;
  return {
    text: clip(`${introOf(v.intro).replace(/[*_`]/g, "")} — ${reason}`, 3000),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: clip(introOf(v.intro), 3000) } },
      { type: "context", elements: [{ type: "mrkdwn", text: line }] },
    ],
  };
}
