// A button whose value is a command line (next/previous page, "open", "refresh"):
// run it as the clicking user. Paging replaces the ephemeral list in place.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { deliver, guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { actionActor } from "../actor.ts";

export function runAction(deps: SlackDeps) {
  return async ({
    body,
    action,
    ack,
    respond,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const actor = actionActor(body);
    const line = action.value ?? "";
    await guarded(deps, "run", body.response_url ? respond : undefined, async () => {
      const reply = await deps.core.run(line, actor);
      const onEphemeral = body.container?.type === "message" && body.container?.is_ephemeral === true;
      await deliver(
        reply,
        {
          client,
          respond: body.response_url ? respond : undefined,
          actor,
          triggerId: body.trigger_id,
          line,
          replaceOriginal: onEphemeral && reply.visibility === "ephemeral",
        },
        deps,
      );
    });
  };
}
