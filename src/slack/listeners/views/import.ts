// The /sb import form (a file, a group, update-existing) and the column
// mapping form of an upload's preview.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { contactFields } from "../../../commands/lookups.ts";
import type { ColumnMapping } from "../../../imports/index.ts";
import { ImportStore } from "../../../store/imports.ts";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { errorsFor } from "../../modals/errors.ts";
import type { ImportMeta } from "../../modals/import.ts";
import { filesOf, readMetadata, type StateValues, selectedOf } from "../../modals/kit.ts";
import { type MappingMeta, planMapping } from "../../modals/mapping.ts";
import { withApi } from "../../perform.ts";
import { previewUpload, remapImport } from "../../uploads/flow.ts";
import { viewActor } from "./forms.ts";

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

export function importSubmitted(deps: SlackDeps) {
  return async ({ ack, body, view, client }: Args) => {
    const meta = readMetadata<ImportMeta>(view.private_metadata);
    const state = view.state.values as StateValues;
    const file = filesOf(state, "file")[0];
    if (!file) {
      await ack({ response_action: "errors", errors: { file: "Choose a CSV or xlsx file." } });
      return;
    }
    await ack();
    const actor = viewActor(body, meta.ch);
    const group = selectedOf(state, "group");
    await guarded(deps, "import form", undefined, () =>
      previewUpload(deps, client, {
        fileId: file.id,
        userId: actor.userId,
        channelId: meta.ch,
        via: "form",
        group:
          group === "new" ? { newName: "" } : group && group !== "none" ? { id: Number(group) } : undefined,
        updateExisting: selectedOf(state, "update") === "yes",
      }),
    );
  };
}

export function mappingSubmitted(deps: SlackDeps) {
  return async ({ ack, body, view, client }: Args) => {
    const meta = readMetadata<MappingMeta>(view.private_metadata);
    const actor = viewActor(body);
    const p = deps.db && meta.id ? await new ImportStore(deps.db).get(meta.id) : undefined;
    if (p?.state !== "pending") {
      await ack({
        response_action: "errors",
        errors: errorsFor({ "col:0": "This import is no longer pending." }, view),
      });
      return;
    }
    const fields = (await withApi(deps, actor, "read", "import mapping", (api) => contactFields(api))).map(
      (f) => ({
        key: f.key as string,
        label: f.label,
        type: f.type,
      }),
    );
    const planned = planMapping(view.state.values as StateValues, p.headers, fields);
    if ("errors" in planned) {
      await ack({ response_action: "errors", errors: errorsFor(planned.errors, view) });
      return;
    }
    await ack();
    await guarded(deps, "import mapping", undefined, async () => {
      const answer = await remapImport(deps, client, p.id, planned.mapping as ColumnMapping, actor);
      if (answer) await deps.posts.post(client, { channel: actor.userId, text: answer });
    });
  };
}
