// The card redrawn after its desk changed (assigned, resolved, reopened: the
// `inbox assign|resolve|reopen` commands call it through InboxDeps.redraw).
// One chat.update of the thread's parent, through the engine's one redraw
// (redrawCard, src/inbox/cards.ts): a card it draws with the window closed is
// not drawn again by the poller. A failure is logged, the change stays.
import type { webApi } from "@slack/bolt";
import { redrawCard } from "../../../inbox/cards.ts";
import type { Logger } from "../../../platform/log.ts";
import type { CardMarks } from "../../../store/card-marks.ts";
import type { InboxStore } from "../../../store/inbox.ts";
import { slackCode } from "../../io/slack-errors.ts";
import { cardMessage, deskOf } from "./render.ts";

export function cardRedrawer(
  client: webApi.WebClient,
  store: InboxStore,
  marks: CardMarks,
  logger: Pick<Logger, "warn">,
  now: () => Date = () => new Date(),
): (channel: string, chatUserId: number) => Promise<void> {
  return async (channel, chatUserId) => {
    const t = await store.thread(channel, chatUserId);
    if (!t?.threadTs || !t.card) return;
    try {
      await redrawCard(
        {
          marks,
          update: async (ch, ts, id, card, desk) => {
            await client.chat.update({ channel: ch, ts, ...cardMessage(id, card, deskOf(desk, desk.now)) });
          },
        },
        t,
        t.threadTs,
        t.card,
        now(),
      );
    } catch (err) {
      logger.warn({ channel, code: slackCode(err) }, "could not update an inbox card");
    }
  };
}
