// `/sb …` (or whatever the workspace renamed it to): ack at once, then run
// the line through the core and answer through response_url or the channel.
import type { AllMiddlewareArgs, SlackCommandMiddlewareArgs } from "@slack/bolt";
import { deliver, guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { trackCommand } from "../../interrupted-commands.ts";
import { commandActor } from "../actor.ts";

export function sbCommand(deps: SlackDeps) {
  return async ({ command, ack, respond, client }: SlackCommandMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const actor = commandActor(command);
    await guarded(deps, "command", respond, async () => {
      // Noted until answered: if this process is killed meanwhile, the next start tells the person.
      const done = await trackCommand(deps, {
        userId: actor.userId,
        line: command.text,
        responseUrl: command.response_url,
      });
      try {
        const reply = await deps.core.run(command.text, actor);
        await deliver(
          reply,
          { client, respond, actor, triggerId: command.trigger_id, line: command.text },
          deps,
        );
      } finally {
        await done();
      }
    });
  };
}
