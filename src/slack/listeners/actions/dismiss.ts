// Cancel on a confirmation prompt: drop it and replace the prompt, buttons gone.
import type { AllMiddlewareArgs, BlockAction, ButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import { deliver, guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { actionActor } from "../actor.ts";

export function dismissAction(deps: SlackDeps) {
  return async ({
    body,
    action,
    ack,
    respond,
    client,
  }: SlackActionMiddlewareArgs<BlockAction<ButtonAction>> & AllMiddlewareArgs) => {
    await ack();
    const actor = actionActor(body);
    const tell = body.response_url ? respond : undefined;
    await guarded(deps, "dismiss", tell, async () => {
      const reply = await deps.core.dismiss(action.value ?? "", actor);
      await deliver(reply, { client, respond: tell, actor, replaceOriginal: true }, deps);
    });
  };
}
