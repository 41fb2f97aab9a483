// The Slack side of one current card per campaign (src/campaigns/cards.ts):
// every road that posts a campaign card in a channel — a reply (deliver.ts),
// the campaign form's and Send at…'s posts, a held start that ran — ends
// here, so older cards are finished and a live card is followed.
import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { cardPosted, type NewCard, redrawOpenCards } from "../../campaigns/cards.ts";
import type { Reply } from "../../commands/types.ts";
import type { Logger } from "../../platform/log.ts";
import type { WorkspaceStores } from "../../store/workspace-stores.ts";
import type { SlackHooks } from "../context.ts";

export interface CardDeps {
  /** The workspace's cards and tracked progress; absent (no database): nothing kept. */
  stores?: Pick<WorkspaceStores, "campaignCards" | "progress">;
  logger: Pick<Logger, "warn">;
  hooks?: Pick<SlackHooks, "onPosted">;
}

/**
 * A message was posted for `reply`: when it is a campaign's card, it becomes
 * the current one (older ones finished); a live card is then followed
 * (the hooks' onPosted: live progress).
 */
export async function campaignCardPosted(
  deps: CardDeps,
  client: webApi.WebClient,
  posted: { channel: string; ts: string; text: string; reply: Reply; by?: string; at?: Date },
): Promise<void> {
  const origin = posted.reply.origin;
  const card = origin?.card;
  if (card && origin.id && deps.stores) {
    const input: NewCard = {
      campaignId: origin.id,
      channel: posted.channel,
      ts: posted.ts,
      role: card.role,
      ...(posted.by ? { by: posted.by } : {}),
      name: card.name,
      status: card.status,
      at: posted.at ?? new Date(),
    };
    await cardPosted(portsOf(deps.stores, deps.logger, client), input).catch((err: unknown) =>
      deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, "campaign cards not kept"),
    );
  }
  deps.hooks?.onPosted?.({ channel: posted.channel, ts: posted.ts, text: posted.text, reply: posted.reply });
}

/** A reply that changed its campaign without a new card (origin.redraw): the campaign's open cards redrawn. */
export async function campaignCardsRedrawn(
  deps: CardDeps,
  client: webApi.WebClient,
  reply: Reply,
): Promise<void> {
  const origin = reply.origin;
  if (!origin?.redraw || !origin.id || !deps.stores) return;
  await redrawOpenCards(portsOf(deps.stores, deps.logger, client), origin.id, origin.redraw).catch(
    (err: unknown) =>
      deps.logger.warn(
        { err: err instanceof Error ? err.message : String(err) },
        "campaign cards not redrawn",
      ),
  );
}

function portsOf(
  stores: NonNullable<CardDeps["stores"]>,
  logger: CardDeps["logger"],
  client: webApi.WebClient,
) {
  return {
    cards: stores.campaignCards,
    progress: stores.progress,
    update: async (channel: string, ts: string, m: { text: string; blocks: KnownBlock[] }) => {
      await client.chat.update({ channel, ts, text: m.text, blocks: m.blocks });
    },
    warn: (o: object, m: string) => logger.warn(o, m),
  };
}
