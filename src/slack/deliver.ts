// Turns the core's Reply into Slack calls, after the request was acked:
// a modal through views.open, an ephemeral answer through response_url, and an
// in-channel answer through chat.postMessage (queued per channel) naming who
// did it. Any failure becomes a short message with a reference; the details
// go to the log only.
import type { RespondFn, webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { ACTION, type Actor, type Reply } from "../commands/types.ts";
import type { OneWorkspaceWork } from "./context.ts";
import { campaignCardPosted, campaignCardsRedrawn } from "./features/campaign-cards.ts";
import { keepFormChannel } from "./io/event-store.ts";
import { channelClosed, slackCode, triggerExpired } from "./io/slack-errors.ts";
import { errorRef } from "./listeners/middleware.ts";

export { errorRef };

export const MAX_MESSAGE_BLOCKS = 50;
const MAX_BUTTON_VALUE = 2000;

export interface Target {
  client: webApi.WebClient;
  /** The response_url of the command or action; absent for buttons on the Home tab. */
  respond?: RespondFn;
  actor: Actor;
  triggerId?: string;
  /** Replace the message the clicked button is on (paging an ephemeral list). */
  replaceOriginal?: boolean;
  /** The command line that produced the reply: re-run from a button when a modal could not open. */
  line?: string;
}

/** Keeps a message within Slack's 50 blocks, saying what was left out. */
export function fitBlocks(blocks: KnownBlock[], max = MAX_MESSAGE_BLOCKS): KnownBlock[] {
  if (blocks.length <= max) return blocks;
  const kept = blocks.slice(0, max - 1);
  kept.push({
    type: "context",
    elements: [{ type: "mrkdwn", text: `_${blocks.length - kept.length} more blocks not shown._` }],
  });
  return kept;
}

function fallbackText(reply: Reply): string {
  return reply.text.trim() || "Switchboard";
}

function attributed(reply: Reply, actor: Actor): { text: string; blocks: KnownBlock[] } {
  // Who did it is said once: a reply that names them already (a campaign card's "Launched by") gets no second line.
  const mention = `<@${actor.userId}>`;
  if (reply.text.includes(mention) || JSON.stringify(reply.blocks).includes(mention))
    return { text: fallbackText(reply), blocks: fitBlocks(reply.blocks) };
  const by: KnownBlock = { type: "context", elements: [{ type: "mrkdwn", text: `by <@${actor.userId}>` }] };
  return {
    text: `${fallbackText(reply)} (by <@${actor.userId}>)`,
    blocks: [...fitBlocks(reply.blocks, MAX_MESSAGE_BLOCKS - 1), by],
  };
}

export async function deliver(reply: Reply, target: Target, deps: OneWorkspaceWork): Promise<void> {
  if (reply.form) {
    if (target.triggerId) {
      try {
        const opened = await target.client.views.open({
          trigger_id: target.triggerId,
          view: await deps.formView(reply.form, target.actor, target.client),
        });
        // The channel it was opened from, kept with the view: the submission's outcome may go only there.
        await keepFormChannel(deps.events, opened.view?.id, target.actor.channelId);
        return;
      } catch (err) {
        if (!triggerExpired(err)) throw err;
        deps.logger.info({ code: slackCode(err) }, "modal trigger no longer valid; offering a button");
      }
    }
    // The 3 s trigger ran out (slow lookups): a click gives a fresh one.
    const blocks: KnownBlock[] = [{ type: "section", text: { type: "mrkdwn", text: fallbackText(reply) } }];
    if (target.line && target.line.length <= MAX_BUTTON_VALUE) {
      blocks.push({
        type: "actions",
        elements: [
          {
            type: "button",
            action_id: ACTION.run,
            text: { type: "plain_text", text: "Open the form" },
            value: target.line,
          },
        ],
      });
    }
    return sendEphemeral({ ...reply, form: undefined, blocks }, target, deps);
  }
  if (reply.visibility === "ephemeral") await sendEphemeral(reply, target, deps);
  else await sendInChannel(reply, target, deps);
  // The campaign changed without a new card (an approval asked for, given or refused): its cards redrawn.
  await campaignCardsRedrawn(deps, target.client, reply);
}

async function sendEphemeral(reply: Reply, target: Target, deps: OneWorkspaceWork): Promise<void> {
  const message = { text: fallbackText(reply), blocks: fitBlocks(reply.blocks) };
  if (target.respond) {
    await target.respond({
      response_type: "ephemeral",
      replace_original: target.replaceOriginal === true,
      ...message,
    });
    return;
  }
  // No response_url (a Home tab button): the app's DM with the user.
  await deps.posts.post(target.client, { channel: target.actor.userId, ...message });
}

async function sendInChannel(reply: Reply, target: Target, deps: OneWorkspaceWork): Promise<void> {
  const message = attributed(reply, target.actor);
  const asked = target.actor.channelId ?? target.actor.userId;
  const channel = reply.origin?.postIn ?? asked;
  // A held start cancelled: its card, kept since it was posted, is edited to say so.
  if (reply.origin?.command === "campaign.cancelStart" && reply.origin.heldStart && deps.stores) {
    const held = await deps.stores.heldStarts.get(reply.origin.heldStart);
    if (held?.channel && held.ts) {
      const edited = await target.client.chat
        .update({ channel: held.channel, ts: held.ts, text: message.text, blocks: message.blocks })
        .then(
          () => true,
          () => false,
        );
      if (edited) return;
    }
  }
  try {
    const res = await deps.posts.post(target.client, { channel, ...message });
    // A campaign's card becomes its current one (older ones finished); the live card is followed.
    if (res.ts)
      await campaignCardPosted(deps, target.client, {
        channel,
        ts: res.ts,
        text: message.text,
        reply,
        by: target.actor.via === "shell" ? "shell" : target.actor.userId,
      });
    // A held start's card: kept, to be edited when the start's state changes.
    if (res.ts && reply.origin?.heldStart && deps.stores)
      await deps.stores.heldStarts.setCard(reply.origin.heldStart, channel, res.ts);
    // Posted elsewhere than where it was asked (a send started from the approval DM): the DM says where.
    if (res.ts && channel !== asked) {
      const where = `:white_check_mark: Started. Its card, with the live figures, is in <#${channel}>.`;
      await sendEphemeral(
        {
          visibility: "ephemeral",
          text: where,
          blocks: [{ type: "section", text: { type: "mrkdwn", text: where } }],
        },
        target,
        deps,
      ).catch(() => undefined);
    }
  } catch (err) {
    // A private channel or a DM the bot is not in: the response_url still reaches it.
    if (target.respond && channelClosed(err)) {
      await target.respond({ response_type: "in_channel", replace_original: false, ...message });
      return;
    }
    throw err;
  }
}
