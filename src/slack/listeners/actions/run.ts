// A button whose value is a command line (next/previous page, "open", "refresh"):
// run it as the clicking user. Paging replaces the ephemeral list in place.
import type { ButtonAction } from "@slack/bolt";
import { deliver } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { onClick } from "../prologue.ts";

export function runAction(deps: SlackDeps) {
  return onClick<ButtonAction>(deps, "run", async ({ actor, action, body, client, tell }) => {
    const line = action.value ?? "";
    const reply = await deps.core.run(line, actor);
    const onEphemeral = body.container?.type === "message" && body.container?.is_ephemeral === true;
    await deliver(
      reply,
      {
        client,
        respond: tell,
        actor,
        triggerId: body.trigger_id,
        line,
        replaceOriginal: onEphemeral && reply.visibility === "ephemeral",
      },
      deps,
    );
  });
}
