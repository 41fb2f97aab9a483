// The card redrawn after its desk changed (assigned, resolved, reopened: the
// `inbox assign|resolve|reopen` commands call it through InboxAccess.redraw).
// One chat.update of the thread's parent; a failure is logged, the change stays.
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../../platform/log.ts";
import type { InboxStore } from "../../../store/inbox.ts";
import { slackCode } from "../../io/slack-errors.ts";
import { cardMessage, deskOf } from "./render.ts";

export function cardRedrawer(
  client: webApi.WebClient,
  store: InboxStore,
  logger: Pick<Logger, "warn">,
  now: () => Date = () => new Date(),
): (channel: string, chatUserId: number) => Promise<void> {
  return async (channel, chatUserId) => {
    const t = await store.thread(channel, chatUserId);
    if (!t?.threadTs || !t.card) return;
    try {
      await client.chat.update({
        channel,
        ts: t.threadTs,
        ...cardMessage(chatUserId, t.card, deskOf(t, now())),
      });
    } catch (err) {
      logger.warn({ channel, code: slackCode(err) }, "could not update an inbox card");
    }
  };
}
