// The buttons of an inbox card (src/slack/inbox/render.ts): Reply and Send
// template open the send form prefilled with this chat user (as a text, or a
// template); the waiting list's "Open thread" is a link, acknowledged only.
import type { BlockAction, ButtonAction } from "@slack/bolt";
import { channelFormData, recipientLabel } from "../../../commands/lookups.ts";
import type { SlackDeps } from "../../deps.ts";
import { formView } from "../../forms/index.ts";
import { onClick } from "../prologue.ts";

export function inboxSendForm(deps: SlackDeps, type: "text" | "template") {
  return onClick<ButtonAction>(deps, `inbox ${type}`, async ({ actor, action, body, client }) => {
    const chatUserId = Number(action.value);
    if (!Number.isSafeInteger(chatUserId) || chatUserId <= 0) return;
    const [data, label] = await deps.core.perform!(actor, { scope: "read", command: "send" }, (api) =>
      Promise.all([
        channelFormData(api, deps.config.MESSAGING_CHANNEL_ID, deps.core.channelNames),
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
  });
}

/** "Open thread" is a link button: Slack still sends the click, which wants an ack. */
export function inboxOpenThread() {
  return async ({ ack }: { ack: () => Promise<void> }) => {
    await ack();
  };
}
