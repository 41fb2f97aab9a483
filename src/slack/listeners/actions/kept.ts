// Got it on the Home tab's kept outcomes (issue 27 §4): the clicker's kept
// outcomes of the request's workspace taken, the tab published again without
// them (src/slack/outcomes.ts takeSeen).
import type { ButtonAction } from "@slack/bolt";
import { personOf } from "../../context.ts";
import { takeSeen } from "../../outcomes.ts";
import type { Click } from "./click.ts";

export async function keptSeenAction({ ack, action, client, ctx }: Click<ButtonAction>) {
  await ack();
  const actor = personOf(ctx);
  await takeSeen(ctx, client, actor.userId, Number(action.value));
}
