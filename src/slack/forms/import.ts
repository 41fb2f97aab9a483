// `/sb import` in Slack: a form with a file input (CSV or xlsx), the group to
// add the contacts to, and whether existing contacts are updated. Submitting
// posts the preview; nothing is imported before Import is clicked there.
import type { ModalView } from "@slack/types";
import type { Group } from "../../api/types.ts";
import { previewUpload } from "../features/uploads/flow.ts";
import { groupOptions } from "../features/uploads/message.ts";
import { askedIn, SHORTCUTS, type SlackForm } from "./form.ts";
import { context, filesOf, input, modal, option, selectedOf, staticSelect } from "./kit.ts";

export const IMPORT_CALLBACK = "sb_import";

export interface ImportMeta {
  ch?: string;
}

export function importModal(groups: Group[], meta: ImportMeta): ModalView {
  const groupOpts = groupOptions(groups, "the file").filter((o) => o.value !== "new");
  return modal({
    callbackId: IMPORT_CALLBACK,
    title: "Import contacts",
    submit: "Preview",
    metadata: meta,
    blocks: [
      input(
        "file",
        "CSV or xlsx file",
        { type: "file_input", action_id: "file", filetypes: ["csv", "xlsx", "tsv", "txt"], max_files: 1 },
        {
          hint: "Columns such as phone, first_name, last_name, email and custom field keys; Google, Outlook and HubSpot exports work as they are.",
        },
      ),
      input(
        "group",
        "Add them to a group",
        staticSelect("group", [option("New group named after the file", "new"), ...groupOpts], {
          initial: "none",
        }),
        {
          optional: true,
        },
      ),
      input(
        "update",
        "Contacts that already exist",
        {
          type: "radio_buttons",
          action_id: "update",
          options: [option("Skip them", "no"), option("Update them", "yes")],
          initial_option: option("Skip them", "no"),
        },
        { optional: true },
      ),
      context(
        "You get a preview first (rows, columns, sample rows and the rows that will fail); nothing is imported before you click Import.",
      ),
    ],
  });
}

interface ImportPlan {
  fileId: string;
  group?: { newName: string } | { id: number };
  updateExisting: boolean;
}

export const importForm: SlackForm<"import", ImportMeta, ImportPlan> = {
  name: "import form",
  ...askedIn("import", IMPORT_CALLBACK, (data, { ch }) => importModal(data.groups, { ch })),
  submit: {
    check: ({ state }) => {
      const file = filesOf(state, "file")[0];
      if (!file) return { errors: { file: "Choose a CSV or xlsx file." } };
      const group = selectedOf(state, "group");
      return {
        plan: {
          fileId: file.id,
          group:
            group === "new" ? { newName: "" } : group && group !== "none" ? { id: Number(group) } : undefined,
          updateExisting: selectedOf(state, "update") === "yes",
        },
      };
    },
    // The form closes at once; the preview is posted where it was opened.
    run: async (plan, { ctx, client, meta, actor }) => ({
      after: () =>
        previewUpload(ctx, client, { ...plan, userId: actor.userId, channelId: meta.ch, via: "form" }),
    }),
  },
  shortcuts: [{ callbackId: SHORTCUTS.import, type: "global", line: "import", title: "Import contacts" }],
};
