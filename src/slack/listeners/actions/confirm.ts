// Confirm on a "really send / cancel / delete?" prompt. The core runs the
// write at most once (across restarts too); here the buttons are taken away
// before the work starts, and a second click while the first is running is
// told so instead of reaching the core.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { deliver, guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { actionActor } from "../actor.ts";

export function confirmAction(deps: SlackDeps) {
  return async ({
    body,
    action,
    ack,
    respond,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const actor = actionActor(body);
    const id = action.value ?? "";
    const tell = body.response_url ? respond : undefined;
    await guarded(deps, "confirm", tell, async () => {
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
        if (reply.visibility === "in_channel" && tell) {
          // The prompt keeps a one-line outcome; the channel gets the full answer.
          await tell({
            replace_original: true,
            text: reply.text,
            blocks: [
              {
                type: "context",
                elements: [{ type: "mrkdwn", text: `:white_check_mark: ${reply.text.slice(0, 2900)}` }],
              },
            ],
          });
        }
        await deliver(
          reply,
          { client, respond: tell, actor, triggerId: body.trigger_id, replaceOriginal: true },
          deps,
        );
      } finally {
        deps.inFlight.delete(id);
      }
    });
  };
}
