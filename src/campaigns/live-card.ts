// The launched campaign's message while it sends: the campaign card
// (src/campaigns/card.ts), the one message of the launch, updated in place with
// one progress bar and the figures until the campaign is completed, failed or
// cancelled, then the final figures.
import type { KnownBlock } from "@slack/types";
import { truncate as clip, esc, num } from "../blocks/blocks.ts";
import type { CampaignSummary } from "../domain/campaign-summary.ts";
import { campaignCard, FINAL_STATUSES, finishedOf } from "./card.ts";

export { FINAL_STATUSES, finishedOf };

/** Slack shows this in each reader's own time zone. */
const slackTime = (at: Date) =>
  `<!date^${Math.floor(at.getTime() / 1000)}^{time_secs}|${at.toISOString().slice(11, 19)} UTC>`;

export interface ProgressView {
  /** The card's facts line as posted at the launch (template, tag, channel, who launched it). */
  intro: string;
  campaignId: number;
  at: Date;
  /** Live: about how often it refreshes. */
  everyMs?: number;
  /** Why it stopped updating, when it did so before the campaign finished. */
  stopped?: string;
}

/** Messages posted before the card (`Campaign #2 “X” launched (status running)`) kept that line: not facts. */
const factsOf = (intro: string) => (/^Campaign #\d+/.test(intro) ? undefined : intro);

export function progressMessage(s: CampaignSummary, v: ProgressView): { text: string; blocks: KnownBlock[] } {
  const final = FINAL_STATUSES.has(s.status);
  const when = final
    ? `Final figures, ${slackTime(v.at)}`
    : v.stopped
      ? `${esc(v.stopped)} (last figures ${slackTime(v.at)})`
      : `Updated ${slackTime(v.at)}${v.everyMs ? `, about every ${Math.max(1, Math.round(v.everyMs / 1000))} s` : ""}`;
  const partial = s.partial
    ? ` · :warning: only the first ${num(s.total)} recipients are counted (the API gives no totals)`
    : "";
  const card = campaignCard({
    id: s.id,
    name: s.name,
    status: s.status,
    summary: s,
    facts: factsOf(v.intro),
    footer: `${when}${partial}`,
  });
  const done = s.total > 0 ? Math.floor((finishedOf(s) / s.total) * 100) : final ? 100 : 0;
  return { text: clip(`${card.text} (${done}% done${final ? ", final" : ""})`, 3000), blocks: card.blocks };
}

/** The message once the campaign cannot be read any more (deleted). */
export function goneMessage(v: ProgressView, reason: string): { text: string; blocks: KnownBlock[] } {
  const line = `:grey_question: Campaign ${v.campaignId}: ${esc(reason)} No more updates.`;
  const facts = factsOf(v.intro);
  return {
    text: clip(`Campaign ${v.campaignId}: ${reason}`, 3000),
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: line } },
      ...(facts
        ? [{ type: "context" as const, elements: [{ type: "mrkdwn" as const, text: clip(facts, 3000) }] }]
        : []),
    ],
  };
}
