// The buttons of an inbox card (src/slack/inbox/render.ts): Reply and Send
// template open the send form prefilled with this chat user (as a text, or a
// template); the waiting list's "Open thread" is a link, acknowledged only.
import type { BlockAction, ButtonAction } from "@slack/bolt";
import { channelFormData, recipientLabel } from "../../../commands/lookups.ts";
import { personOf } from "../../context.ts";
import { formView } from "../../forms/index.ts";
import type { Click } from "./click.ts";

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
    const recipient = { value: `user:${chatUserId}`, label: label ?? `Chat user #${chatUserId}` };
    await client.views.open({
      trigger_id: (body as BlockAction).trigger_id,
      view: formView({ kind: "send", data: { ...data, prefill: { recipient, type } } }, actor),
    });
  };
}

/** "Open thread" is a link button: Slack still sends the click, which wants an ack. */
export async function inboxOpenThread({ ack }: { ack: () => Promise<void> }): Promise<void> {
  await ack();
}
