// The core asks for a form by kind and data (src/commands/forms.ts); this is
// where the Slack app picks the modal that shows it. The Slack channel the
// form was opened from rides in the view's metadata: results are posted there.
import type { ModalView } from "@slack/types";
import type { FormRequest } from "../../commands/form-kinds.ts";
import type { Actor } from "../../commands/types.ts";
import { campaignModal } from "./campaign.ts";
import { importModal } from "./import.ts";
import { cut, VIEW_LIMITS } from "./kit.ts";
import { contactEditModal, userEditModal } from "./record-edit.ts";
import { SEND_ACTIONS, sendModal } from "./send.ts";
import { templateModal } from "./template.ts";

/** `prefill.text`: the send form's message, filled in (the "Send to a customer" shortcut). */
export function modalFor(form: FormRequest, actor: Actor, prefill?: { text?: string }): ModalView {
  const ch = actor.channelId;
  switch (form.kind) {
    case "campaign":
      return campaignModal(form.data, { ch });
    case "send": {
      const { channels: chs, defaultChannelId: def, prefill: chosen } = form.data;
      // What is known already, as if the person had typed or picked it.
      const state = {
        ...(prefill?.text ? { text: { text: { type: "plain_text_input", value: prefill.text } } } : {}),
        ...(chosen?.to ? { to: { to: { type: "plain_text_input", value: chosen.to } } } : {}),
        ...(chosen?.recipient
          ? {
              recipient: {
                [SEND_ACTIONS.recipient]: {
                  type: "external_select",
                  selected_option: {
                    text: { type: "plain_text", text: cut(chosen.recipient.label, VIEW_LIMITS.optionText) },
                    value: chosen.recipient.value,
                  },
                },
              },
            }
          : {}),
      };
      return sendModal(form.data, { ch, chs, def }, Object.keys(state).length ? state : undefined);
    }
    case "template": {
      const { channels: chs, defaultChannelId: def } = form.data;
      return templateModal(form.data, { ch, chs, def });
    }
    case "contact":
      return contactEditModal(form.data.record, form.data.fields, { ch, id: form.data.id });
    case "chat-user":
      return userEditModal(form.data.record, form.data.fields, { ch, id: form.data.id });
    case "import":
      return importModal(form.data.groups, { ch });
  }
}
