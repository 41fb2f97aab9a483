// One current card per campaign (issue 37 §4). Every card posted in a
// channel — the launch's live card, a held start's card, the campaign form's
// post, a cancel's card — is kept (store/campaign-cards.ts); posting a newer
// one finishes every older one: redrawn as the campaign stands now, without
// buttons, with a last line saying where it went ("Started at 06:29 by @ana:
// the live card is below"). A finished live card is followed no more, so one
// campaign never has two live progress cards. Posting and editing reach this
// module as ports: it imports no Slack.
import type { KnownBlock } from "@slack/types";
import { esc } from "../blocks/blocks.ts";
import type { CampaignCards, CardRole, PostedCard } from "../store/campaign-cards.ts";
import type { ProgressStore } from "../store/progress.ts";
import { CARD_STATUS } from "./card.ts";

export type { CardRole };

export interface CardMessage {
  text: string;
  blocks: KnownBlock[];
}

/** The new card, as it was posted: where, what it is, by whom, and the campaign as it stands now. */
export interface NewCard {
  campaignId: number;
  channel: string;
  ts: string;
  role: CardRole;
  /** Slack user id, or `shell`. */
  by?: string;
  name: string;
  /** The campaign's status now (`running`, `draft`, `cancelled`…). */
  status: string;
  at: Date;
}

export interface CardPorts {
  cards: CampaignCards;
  /** The workspace's followed live cards: a finished one is followed no more. */
  progress?: Pick<ProgressStore, "stop">;
  /** chat.update of one card; throws Slack's error. */
  update: (channel: string, ts: string, message: CardMessage) => Promise<void>;
  warn?: (obj: object, msg: string) => void;
}

const person = (id: string | undefined) => (!id ? "someone" : id === "shell" ? "the shell" : `<@${id}>`);
const time = (at: Date) =>
  `<!date^${Math.floor(at.getTime() / 1000)}^{time}|${at.toISOString().slice(11, 16)} UTC>`;
const isDm = (channel: string) => /^[DU]/.test(channel);

/** Where the newer card is, from where the older one is. */
function whereOf(old: Pick<PostedCard, "channel">, card: Pick<NewCard, "channel">): string {
  if (old.channel === card.channel) return "below";
  return isDm(card.channel) ? "in a direct message" : `in <#${card.channel}>`;
}

/** The last line of a finished card: what happened, by whom, when, and where the current card is. */
export function supersededLine(old: Pick<PostedCard, "channel">, card: NewCard): string {
  const who = person(card.by);
  const where = whereOf(old, card);
  switch (card.role) {
    case "live":
      return `:arrow_heading_down: Started at ${time(card.at)} by ${who}: the live card is ${where}.`;
    case "held":
      return `:arrow_heading_down: Its start was set again by ${who} at ${time(card.at)}: the current card is ${where}.`;
    case "card": {
      const label = (CARD_STATUS[card.status]?.label ?? card.status).toLowerCase();
      return `:arrow_heading_down: Now ${esc(label)} (${who}, ${time(card.at)}): the current card is ${where}.`;
    }
  }
}

/**
 * A finished card: the campaign's name and the line that says where it went, no buttons. No status and no
 * figures: they would be out of date by the next tick; the current card has them.
 */
export function finishedCard(old: Pick<PostedCard, "channel">, card: NewCard): CardMessage {
  const line = supersededLine(old, card);
  return {
    text: `${esc(card.name)}: ${line.replace(/^:[a-z_]+: /, "").replace(/<!date\^\d+\^\{time\}\|([^>]*)>/g, "$1")}`.slice(
      0,
      3000,
    ),
    blocks: [
      {
        type: "section",
        block_id: "card_head",
        text: { type: "mrkdwn", text: `*${esc(card.name)}*\n${line}`.slice(0, 3000) },
      },
    ],
  };
}

/**
 * A card was posted: it becomes the campaign's current card, and every older
 * open card is finished (once, whichever replica gets there first) and
 * redrawn. Returns the cards finished.
 */
export async function cardPosted(ports: CardPorts, card: NewCard): Promise<PostedCard[]> {
  const older = await ports.cards.posted(
    {
      campaignId: card.campaignId,
      channel: card.channel,
      ts: card.ts,
      role: card.role,
      ...(card.by ? { postedBy: card.by } : {}),
    },
    card.at,
  );
  for (const old of older) {
    // Followed no more before it is redrawn: a poll under way does not draw figures on it again.
    await ports.progress?.stop(old.channel, old.ts, card.at).catch(() => false);
    await ports.update(old.channel, old.ts, finishedCard(old, card)).catch((err: unknown) => {
      ports.warn?.(
        { err: err instanceof Error ? err.message : String(err) },
        "an older campaign card could not be finished",
      );
    });
  }
  return older;
}
