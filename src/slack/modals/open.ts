// The core asks for a form by kind and data (src/commands/forms.ts); this is
// where the Slack app picks the modal that shows it. The Slack channel the
// form was opened from rides in the view's metadata: results are posted there.
import type { ModalView } from "@slack/types";
import type { FormRequest } from "../../commands/forms.ts";
import type { Actor } from "../../commands/types.ts";
import { campaignModal } from "./campaign.ts";
import { importModal } from "./import.ts";
import { contactEditModal, userEditModal } from "./record-edit.ts";
import { sendModal } from "./send.ts";
import { templateModal } from "./template.ts";

export function modalFor(form: FormRequest, actor: Actor): ModalView {
  const ch = actor.channelId;
  switch (form.kind) {
    case "campaign":
      return campaignModal(form.data, { ch });
    case "send": {
      const { channels: chs, defaultChannelId: def } = form.data;
      return sendModal(form.data, { ch, chs, def });
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
