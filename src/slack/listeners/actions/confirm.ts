// Confirm on a "really send / cancel / delete?" prompt. The core runs the
// write at most once (across restarts too); here the buttons are taken away
// before the work starts, and a second click while the first is running is
// told so instead of reaching the core.
import type { ButtonAction } from "@slack/bolt";
import { keepReplyTarget } from "../../../store/confirmations.ts";
import { deliver } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { onClick } from "../prologue.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function confirmAction(deps: SlackDeps) {
  return onClick<ButtonAction>(deps, "confirm", async ({ actor, action, body, client, tell }) => {
    const id = action.value ?? "";
    if (deps.inFlight.has(id)) {
      await tell?.({
        response_type: "ephemeral",
        replace_original: false,
        text: "Already on it: this confirmation is being handled.",
      });
      return;
    }
    deps.inFlight.add(id);
    try {
      // Kept first: a process killed while this runs tells the clicker at its next start (confirm-notices.ts).
      if (deps.db && UUID.test(id))
        await keepReplyTarget(deps.db, id, {
          user: actor.userId,
          responseUrl: body.response_url,
          at: new Date().toISOString(),
        });
      await tell?.({
        replace_original: true,
        text: `Confirmed by <@${actor.userId}>, working on it…`,
        blocks: [
          {
            type: "context",
            elements: [
              {
                type: "mrkdwn",
                text: `:hourglass_flowing_sand: Confirmed by <@${actor.userId}>, working on it…`,
              },
            ],
          },
        ],
      });
      const reply = await deps.core.confirm(id, actor);
      await deliver(
        reply,
        { client, respond: tell, actor, triggerId: body.trigger_id, replaceOriginal: true },
        deps,
      );
      // One event, one message: the channel has the outcome (a launch: the campaign's live card),
      // so the prompt, seen by one person only, goes away rather than repeating it.
      if (reply.visibility === "in_channel" && tell) await tell({ delete_original: true });
    } finally {
      deps.inFlight.delete(id);
    }
  });
}
