// Cancel on a confirmation prompt: drop it and replace the prompt, buttons gone.
import type { ButtonAction } from "@slack/bolt";
import { deliver } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { onClick } from "../prologue.ts";

export function dismissAction(deps: SlackDeps) {
  return onClick<ButtonAction>(deps, "dismiss", async ({ actor, action, client, tell }) => {
    const reply = await deps.core.dismiss(action.value ?? "", actor);
    await deliver(reply, { client, respond: tell, actor, replaceOriginal: true }, deps);
  });
}
