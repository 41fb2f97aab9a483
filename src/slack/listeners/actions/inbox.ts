// The buttons of an inbox card (src/slack/inbox/render.ts): Reply and Send
// template open the send form prefilled with this chat user (as a text, or a
// template); the waiting list's "Open thread" is a link, acknowledged only.
import type { BlockAction, ButtonAction } from "@slack/bolt";
import { channelFormData, recipientLabel } from "../../../commands/lookups.ts";
import { personOf } from "../../context.ts";
import { cut, type StateValues, VIEW_LIMITS } from "../../modals/kit.ts";
import { SEND_ACTIONS, sendModal } from "../../modals/send.ts";
import type { Click } from "./click.ts";

/** The send form's state with the recipient (and the type) chosen, as if the person had picked them. */
export function prefilledSendState(
  chatUserId: number,
  type: "text" | "template",
  label = `Chat user #${chatUserId}`,
): StateValues {
  return {
    recipient: {
      [SEND_ACTIONS.recipient]: {
        type: "external_select",
        selected_option: {
          text: { type: "plain_text", text: cut(label, VIEW_LIMITS.optionText) },
          value: `user:${chatUserId}`,
        },
      },
    },
    type: {
      [SEND_ACTIONS.type]: {
        type: "static_select",
        selected_option: { text: { type: "plain_text", text: type }, value: type },
      },
    },
  };
}

export function inboxSendForm(type: "text" | "template") {
  return async ({ ack, action, body, client, context }: Click<ButtonAction>) => {
    await ack();
    const actor = personOf(context);
    const chatUserId = Number(action.value);
    if (!Number.isSafeInteger(chatUserId) || chatUserId <= 0) return;
    const [data, label] = await context.core.perform(actor, { scope: "read", command: "send" }, (api) =>
      Promise.all([
        channelFormData(api, context.config.MESSAGING_CHANNEL_ID, () => context.core.channelNames()),
        // The person by name in the form, as the card shows them (a nicety: the number otherwise).
        api.getChatUser(chatUserId).then(
          (u) => recipientLabel("user", chatUserId, u),
          () => undefined,
        ),
      ]),
    );
    await client.views.open({
      trigger_id: (body as BlockAction).trigger_id,
      view: sendModal(
        data,
        { ch: actor.channelId, chs: data.channels, def: data.defaultChannelId },
        prefilledSendState(chatUserId, type, label),
      ),
    });
  };
}

/** "Open thread" is a link button: Slack still sends the click, which wants an ack. */
export async function inboxOpenThread({ ack }: { ack: () => Promise<void> }): Promise<void> {
  await ack();
}
