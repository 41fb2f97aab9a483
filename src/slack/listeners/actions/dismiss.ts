// Cancel on a confirmation prompt: drop it and replace the prompt, buttons gone.
import type { ButtonAction } from "@slack/bolt";
import { personOf } from "../../context.ts";
import { deliver } from "../../deliver.ts";
import { type Click, tellOf } from "./click.ts";

export async function dismissAction({ ack, action, body, client, respond, ctx }: Click<ButtonAction>) {
  await ack();
  const actor = personOf(ctx);
  const reply = await ctx.core.dismiss(action.value ?? "", actor);
  await deliver(reply, { client, respond: tellOf(body, respond), actor, replaceOriginal: true }, ctx);
}
