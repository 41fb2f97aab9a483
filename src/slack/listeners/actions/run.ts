// A button whose value is a command line (next/previous page, "open", "refresh"):
// run it as the clicking user. Paging replaces the ephemeral list in place.
import type { ButtonAction } from "@slack/bolt";
import { personOf } from "../../context.ts";
import { deliver } from "../../deliver.ts";
import { type Click, tellOf } from "./click.ts";

export async function runAction({ ack, action, body, client, respond, ctx }: Click<ButtonAction>) {
  await ack();
  const actor = personOf(ctx);
  const line = action.value ?? "";
  const reply = await ctx.core.run(line, actor);
  const onEphemeral = body.container?.type === "message" && body.container?.is_ephemeral === true;
  await deliver(
    reply,
    {
      client,
      respond: tellOf(body, respond),
      actor,
      triggerId: body.trigger_id,
      line,
      replaceOriginal: onEphemeral && reply.visibility === "ephemeral",
    },
    ctx,
  );
}
