// The registry of forms: one line per form. From the list it registers each
// form's view_submission (by callback id), its choices that rebuild it and the
// options it loads (by callback id and action id), and the shortcuts that open
// it; it builds the view of the core's form requests (`formView`). A form's
// own module holds everything else (form.ts says what a form is).
import type {
  AllMiddlewareArgs,
  BlockAction,
  MessageShortcut,
  SlackActionMiddlewareArgs,
  SlackOptionsMiddlewareArgs,
  SlackShortcutMiddlewareArgs,
  SlackViewMiddlewareArgs,
  ViewSubmitAction,
} from "@slack/bolt";
import type { ModalView, PlainTextOption } from "@slack/types";
import type { MessagingApi } from "../../api/types.ts";
import type { FormKind, FormRequest } from "../../commands/form-kinds.ts";
import type { Actor } from "../../commands/types.ts";
import type { SlackDeps } from "../context.ts";
import { personOf, type SlackBolt, type SlackContext } from "../context.ts";
import { slackCode } from "../io/slack-errors.ts";
import { withApi } from "../perform.ts";
import { campaignForm } from "./campaign.ts";
import { connectForm } from "./connect.ts";
import { errorsFor } from "./field-errors.ts";
import type { FormShortcut, SlackForm, Suggest } from "./form.ts";
import { importForm } from "./import.ts";
import { modal, readMetadata, type StateValues, sectionText } from "./kit.ts";
import { mappingForm } from "./mapping.ts";
import { contactEditForm, userEditForm } from "./record-edit.ts";
import { sendForm } from "./send.ts";
import { settingsForm } from "./settings.ts";
import { answerSubmission, viewActor } from "./submission.ts";
import { templateForm } from "./template.ts";

export { SHORTCUTS } from "./form.ts";

// biome-ignore lint/suspicious/noExplicitAny: the list holds forms of every kind, meta and plan.
type AnyForm = SlackForm<any, any, any>;

/** The form of each kind the core asks for: a kind without its form fails type-checking. */
// biome-ignore lint/suspicious/noExplicitAny: each form's meta and plan are its own.
const BY_KIND: { [K in FormKind]: SlackForm<K, any, any> } = {
  campaign: campaignForm,
  send: sendForm,
  template: templateForm,
  contact: contactEditForm,
  "chat-user": userEditForm,
  import: importForm,
  connect: connectForm,
  settings: settingsForm,
};

/** Every form: those the core asks for, and those the Slack side opens itself. */
export const FORMS: AnyForm[] = [...Object.values(BY_KIND), mappingForm];

/** The view of the core's form request; `prefill.text` fills the message form (a message shortcut). */
export function formView(request: FormRequest, actor: Actor, prefill?: { text?: string }): ModalView {
  const form = BY_KIND[request.kind] as AnyForm;
  if (!form.build) throw new Error(`the ${form.name} has no builder`);
  return form.build(request.data, { actor, prefill });
}

export function registerForms(app: SlackBolt, deps: SlackDeps): void {
  for (const form of FORMS) {
    app.view(form.callbackId, submitted(deps, form));
    for (const actionId of form.refresh?.actions ?? [])
      app.action<BlockAction>(
        { type: "block_actions", callback_id: form.callbackId, action_id: actionId },
        refreshed(deps, form),
      );
    for (const [actionId, load] of Object.entries(form.options ?? {}))
      app.options(
        { type: "block_suggestion", callback_id: form.callbackId, action_id: actionId },
        suggested(deps, actionId, load),
      );
    for (const shortcut of form.shortcuts ?? [])
      app.shortcut(
        {
          callback_id: shortcut.callbackId,
          type: shortcut.type === "message" ? "message_action" : "shortcut",
        },
        shortcutUsed(deps, shortcut),
      );
  }
}

// ---------------------------------------------------------------- the listeners, written once

/**
 * A submission: checked before any request (errors keep the user's input),
 * then the form's work, answered within Slack's 3 s (submission.ts).
 */
function submitted(deps: SlackDeps, form: AnyForm) {
  return async ({
    ack,
    body,
    view,
    client,
  }: SlackViewMiddlewareArgs<ViewSubmitAction> & AllMiddlewareArgs) => {
    const meta = readMetadata<{ ch?: string }>(view.private_metadata);
    const actor = viewActor(body, meta.ch);
    const s = { deps, client, body, view, meta, state: view.state.values as StateValues, actor };
    const checked = await form.submit.check(s);
    if ("errors" in checked) {
      await ack({ response_action: "errors", errors: errorsFor(checked.errors, view) });
      return;
    }
    // The guard middleware reports a failure (listeners/middleware.ts).
    await answerSubmission(deps, client, view, ack, () => form.submit.run(checked.plan, s));
  };
}

/** A choice that changes the form: rebuilt from its own state with views.update (a stale one is dropped). */
function refreshed(deps: SlackDeps, form: AnyForm) {
  return async ({
    ack,
    body,
    action,
    client,
    context,
  }: SlackActionMiddlewareArgs<BlockAction> & AllMiddlewareArgs<SlackContext>) => {
    await ack();
    const view = body.view;
    if (!view || !form.refresh) return;
    const act = action as { action_id: string; value?: string };
    try {
      const next = await form.refresh.view({
        deps,
        actor: personOf(context),
        meta: readMetadata(view.private_metadata),
        state: view.state.values as StateValues,
        action: act,
      });
      if (!next) return;
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (err) {
      // A newer change already updated the form: this one is stale, not a failure.
      if (slackCode(err) === "hash_conflict") return;
      deps.logger.error(
        { err, callback: view.callback_id, actionId: act.action_id },
        "could not update the form",
      );
    }
  };
}

/** Options as the user types (block_suggestion); none when they cannot be read. */
function suggested(
  deps: SlackDeps,
  actionId: string,
  load: (api: MessagingApi, s: Suggest) => Promise<PlainTextOption[]>,
) {
  return async ({ ack, body }: SlackOptionsMiddlewareArgs<"block_suggestion"> & AllMiddlewareArgs) => {
    const s = { query: body.value ?? "", state: body.view?.state?.values as StateValues | undefined };
    let options: PlainTextOption[] = [];
    try {
      options = await withApi(deps, viewActor(body), "read", "form", (api) => load(api, s));
    } catch (err) {
      deps.logger.warn({ err: String(err), actionId }, "could not load form options");
    }
    await ack({ options });
  };
}

type Shortcut = SlackShortcutMiddlewareArgs["shortcut"];

function shortcutActor(shortcut: Shortcut): Actor {
  return {
    userId: shortcut.user.id,
    userName: shortcut.user.username,
    teamId: shortcut.team?.id ?? shortcut.user.team_id,
    // A message shortcut's results go to the message's channel; a global one's to the app's DM.
    channelId: shortcut.type === "message_action" ? shortcut.channel.id : undefined,
    via: "slack",
  };
}

const waiting = (title: string, blocks = [sectionText("Opening the form…")]): ModalView =>
  modal({ callbackId: "sb_wait", title, close: "Close", blocks });

/**
 * A shortcut opens the same form as its command. Its trigger_id lasts 3 s and
 * the form's data may take longer to read, so a small modal opens at once and
 * the form replaces it (views.update) when the core answers; a refusal (not a
 * writer) shows there.
 */
function shortcutUsed(deps: SlackDeps, s: FormShortcut) {
  return async ({ ack, shortcut, client }: SlackShortcutMiddlewareArgs & AllMiddlewareArgs) => {
    await ack();
    const prefill = s.type === "message" ? s.prefill?.((shortcut as MessageShortcut).message) : undefined;
    // The guard middleware reports a failure, by the response_url of a message shortcut.
    const actor = shortcutActor(shortcut);
    const opened = await client.views.open({ trigger_id: shortcut.trigger_id, view: waiting(s.title) });
    const viewId = opened.view?.id;
    if (!viewId) throw new Error("views.open answered without the view's id");
    const reply = await deps.core.run(s.line, actor);
    const view = reply.form
      ? formView(reply.form, actor, prefill)
      : waiting(s.title, reply.blocks.length ? reply.blocks : [sectionText(reply.text)]);
    try {
      await client.views.update({ view_id: viewId, hash: opened.view?.hash, view });
    } catch (err) {
      // Closed while the form was being prepared: nothing to show, nothing went wrong.
      if (slackCode(err) !== "not_found") throw err;
      deps.logger.info({ line: s.line }, "shortcut's modal closed before the form was ready");
    }
  };
}
