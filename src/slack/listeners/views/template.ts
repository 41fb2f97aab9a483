// The template form submitted: the client's own rules (createTemplateSchema)
// first, each problem at its field; then the template is submitted for approval.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { esc } from "../../../blocks/blocks.ts";
import { pick } from "../../../commands/render.ts";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { errorsFor } from "../../modals/errors.ts";
import { readMetadata, sectionText } from "../../modals/kit.ts";
import { planTemplate, type TemplateMeta, templateBlockFor } from "../../modals/template.ts";
import { withApi } from "../../perform.ts";
import { answerSubmission, postOutcome, refusalErrors, viewActor } from "./forms.ts";

export function templateSubmitted(deps: SlackDeps) {
  return async ({
    ack,
    body,
    view,
    client,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const meta = readMetadata<TemplateMeta>(view.private_metadata);
    const actor = viewActor(body, meta.ch);
    const planned = planTemplate(view.state.values, meta);
    if ("errors" in planned) {
      await ack({ response_action: "errors", errors: errorsFor(planned.errors, view) });
      return;
    }
    const name = String(planned.body.name);
    await guarded(deps, "template form", undefined, () =>
      answerSubmission(deps, client, view, ack, async () => {
        try {
          const t = await withApi(deps, actor, "write", `template new (form) "${name}"`, (api) =>
            api.createTemplate(planned.body),
          );
          return {
            after: async () => {
              const status = pick(t, "status");
              const text = `Template #${t.id ?? "?"} “${esc(pick(t, "name") ?? name)}” submitted for approval${status ? ` (status ${esc(status)})` : ""}`;
              await postOutcome(
                deps,
                client,
                { channel: meta.ch, userId: actor.userId },
                { text, blocks: [sectionText(`:page_facing_up: ${text}`)] },
              );
            },
          };
        } catch (err) {
          return {
            answer: { response_action: "errors", errors: refusalErrors(err, templateBlockFor, "name", view) },
          };
        }
      }),
    );
  };
}
