// The message form submitted: checked before any request, then sent. Free
// text outside the 24-hour window (the API answers 422) comes back as an
// error on the message field, with the hint to send a template.
import type { AllMiddlewareArgs, SlackViewMiddlewareArgs, ViewSubmitAction } from "@slack/bolt";
import { ValidationError } from "../../../api/errors.ts";
import { esc } from "../../../blocks/blocks.ts";
import { pick } from "../../../commands/render.ts";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";
import { errorsFor } from "../../modals/errors.ts";
import { fieldError, readMetadata, sectionText } from "../../modals/kit.ts";
import { planSend, type SendMeta, sendBlockFor } from "../../modals/send.ts";
import { withApi } from "../../perform.ts";
import { answerSubmission, postOutcome, refusalErrors, viewActor } from "./forms.ts";

const outsideWindow = (err: unknown) =>
  err instanceof ValidationError &&
  [err.message, ...err.problems.map((p) => p.rule)].some((m) => /24-hour|conversation window/i.test(m));

export function sendSubmitted(deps: SlackDeps) {
  return async ({
    ack,
    body,
    view,
    client,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const meta = readMetadata<SendMeta & { def?: number }>(view.private_metadata);
    const actor = viewActor(body, meta.ch);
    const planned = planSend(view.state.values, meta, {
      defaultCountry: deps.config.DEFAULT_COUNTRY,
      channelId: meta.def,
    });
    if ("errors" in planned) {
      await ack({ response_action: "errors", errors: errorsFor(planned.errors, view) });
      return;
    }
    const { body: message, type } = planned;
    await guarded(deps, "send form", undefined, () =>
      answerSubmission(deps, client, view, ack, async () => {
        try {
          const sent = await withApi(deps, actor, "write", `send (form) ${type}`, (api) =>
            api.sendMessage(message),
          );
          return {
            after: async () => {
              const to =
                message.to ??
                (message.contactId ? `contact #${message.contactId}` : `chat user #${message.chatUserId}`);
              const status = pick(sent, "status");
              const text = `Message${sent.id !== undefined ? ` #${sent.id}` : ""} (${type}) sent to ${esc(to)}${status ? `, status ${esc(status)}` : ""}`;
              await postOutcome(
                deps,
                client,
                { channel: meta.ch, userId: actor.userId },
                { text, blocks: [sectionText(`:outbox_tray: ${text}`)] },
              );
            },
          };
        } catch (err) {
          if (type === "text" && outsideWindow(err)) {
            const rule = (err as ValidationError).problems[0]?.rule ?? (err as Error).message;
            return {
              answer: {
                response_action: "errors",
                errors: errorsFor(
                  { text: fieldError(`${rule}. Choose Type: Template to reach them.`.replace(/\.\./g, ".")) },
                  view,
                ),
              },
            };
          }
          return {
            answer: {
              response_action: "errors",
              errors: refusalErrors(err, sendBlockFor(type), type === "text" ? "text" : "to", view),
            },
          };
        }
      }),
    );
  };
}
