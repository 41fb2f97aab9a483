// The contact and chat-user edit forms submitted. Custom fields of a contact
// are merged with what it has now, because the API replaces them whole.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { pick } from "../../../commands/render.ts";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { errorsFor } from "../../modals/errors.ts";
import { readMetadata, sectionText } from "../../modals/kit.ts";
import { type EditMeta, editBlockFor, planContactEdit, planUserEdit } from "../../modals/record-edit.ts";
import { withApi } from "../../perform.ts";
import { answerSubmission, postOutcome, refusalErrors, viewActor } from "./forms.ts";

type Args = SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs;

/** The outcome posted where the form was opened: "… changed". */
async function changed(
  deps: SlackDeps,
  client: Args["client"],
  channel: string | undefined,
  userId: string,
  text: string,
): Promise<void> {
  await postOutcome(deps, client, { channel, userId }, { text, blocks: [sectionText(`:pencil2: ${text}`)] });
}

export function contactEditSubmitted(deps: SlackDeps) {
  return async ({ ack, body, view, client }: Args) => {
    const meta = readMetadata<EditMeta>(view.private_metadata);
    const actor = viewActor(body, meta.ch);
    const id = Number(meta.id);
    // Checked with no custom fields first, so bad input makes no request at all.
    const first = planContactEdit(view.state.values, meta, {}, deps.config.DEFAULT_COUNTRY);
    if ("errors" in first) {
      await ack({ response_action: "errors", errors: errorsFor(first.errors, view) });
      return;
    }
    await guarded(deps, "contact edit form", undefined, () =>
      answerSubmission(deps, client, view, ack, async () => {
        try {
          await withApi(deps, actor, "write", `contact edit ${id} (form)`, async (api) => {
            const current = await api.getContact(id);
            const planned = planContactEdit(
              view.state.values,
              meta,
              (pick(current, "custom_fields") ?? {}) as Record<string, unknown>,
              deps.config.DEFAULT_COUNTRY,
            );
            if ("errors" in planned) throw new Error("contact edit: the form changed between checks");
            return api.updateContact(id, planned.body);
          });
          return { after: () => changed(deps, client, meta.ch, actor.userId, `Contact #${id} changed`) };
        } catch (err) {
          return {
            answer: { response_action: "errors", errors: refusalErrors(err, editBlockFor, "phone", view) },
          };
        }
      }),
    );
  };
}

export function userEditSubmitted(deps: SlackDeps) {
  return async ({ ack, body, view, client }: Args) => {
    const meta = readMetadata<EditMeta>(view.private_metadata);
    const actor = viewActor(body, meta.ch);
    const id = Number(meta.id);
    const planned = planUserEdit(view.state.values, meta, deps.config.DEFAULT_COUNTRY);
    if ("errors" in planned) {
      await ack({ response_action: "errors", errors: errorsFor(planned.errors, view) });
      return;
    }
    await guarded(deps, "user edit form", undefined, () =>
      answerSubmission(deps, client, view, ack, async () => {
        try {
          await withApi(deps, actor, "write", `user edit ${id} (form)`, (api) =>
            api.updateChatUser(id, planned.body),
          );
          return { after: () => changed(deps, client, meta.ch, actor.userId, `Chat user #${id} changed`) };
        } catch (err) {
          return {
            answer: { response_action: "errors", errors: refusalErrors(err, editBlockFor, "name", view) },
          };
        }
      }),
    );
  };
}
