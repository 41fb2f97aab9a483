// Confirm on a "really send / cancel / delete?" prompt. The core runs the
// write at most once (across restarts too); here the buttons are taken away
// before the work starts, and a second click while the first is running is
// told so instead of reaching the core.
import type { ButtonAction } from "@slack/bolt";
import { personOf } from "../../context.ts";
import { deliver } from "../../deliver.ts";
import { tellAccepted } from "../../outcomes.ts";
import { type Click, tellOf } from "./click.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function confirmAction({ ack, action, body, client, respond, ctx }: Click<ButtonAction>) {
  await ack();
  const actor = personOf(ctx);
  const tell = tellOf(body, respond);
  const id = action.value ?? "";
  // Another workspace's confirmation (a forged or pasted button): said before anything, nothing done.
  if (ctx.stores && (!UUID.test(id) || !(await ctx.stores.confirmations.get(id)))) {
    await tell?.({
      response_type: "ephemeral",
      replace_original: false,
      text: "That button is not from this workspace, or its request no longer exists: nothing was done.",
    });
    return;
  }
  // In flight in this workspace (ctx.inFlight holds this workspace's confirmations only).
  const key = id;
  if (ctx.inFlight.has(key)) {
    await tell?.({
      response_type: "ephemeral",
      replace_original: false,
      text: "Already on it: this confirmation is being handled.",
    });
    return;
  }
  ctx.inFlight.add(key);
  try {
    // Kept first: a process killed while this runs tells the clicker at its next start (confirm-notices.ts).
    if (ctx.stores)
      await ctx.stores.confirmations.keepReplyTarget(id, {
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
    const reply = await ctx.core.confirm(id, actor);
    // The write is done (or settled): a failure to say so keeps the outcome for the person, never "try again".
    const posted = await tellAccepted(
      ctx,
      actor.userId,
      reply.text,
      () =>
        deliver(
          reply,
          { client, respond: tell, actor, triggerId: body.trigger_id, replaceOriginal: true },
          ctx,
        ),
      tell,
    );
    // One event, one message: the channel has the outcome (a launch: the campaign's live card),
    // so the prompt, seen by one person only, goes away rather than repeating it.
    if (posted && reply.visibility === "in_channel" && tell) await tell({ delete_original: true });
  } finally {
    ctx.inFlight.delete(key);
  }
}
