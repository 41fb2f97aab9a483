// The registry of forms: one line per form. From the list it registers each
// form's view_submission (by callback id), its choices that rebuild it and the
// options it loads (by callback id and action id), and the shortcuts that open
// it; it builds the view of the core's form requests (`formView`). A form's
// own module holds everything else (form.ts says what a form is).
import { createHash } from "node:crypto";
import type {
  BlockAction,
  MessageShortcut,
  SlackShortcutMiddlewareArgs,
  ViewSubmitAction,
  webApi,
} from "@slack/bolt";
import type { ModalView, PlainTextOption } from "@slack/types";
import { isApiError } from "../../api/errors.ts";
import type { MessagingApi } from "../../api/types.ts";
import { apiErrorReply } from "../../commands/errors.ts";
import type { FormKind, FormRequest } from "../../commands/form-kinds.ts";
import type { Actor } from "../../commands/types.ts";
import { errorRef, isSwitchboardError } from "../../platform/errors.ts";
import { personOf } from "../context.ts";
import { formChannel, keepFormChannel } from "../io/event-store.ts";
import { slackCode } from "../io/slack-errors.ts";
import {
  type ActionArgs,
  type ViewArgs as BoltViewArgs,
  type OptionsArgs,
  onAction,
  onOptions,
  onShortcut,
  onView,
  type ShortcutArgs,
} from "../listeners/on.ts";
import type { Listeners } from "../listeners/routes.ts";
import { withApi } from "../perform.ts";
import { formLine } from "../recovery/interrupted-commands.ts";
import { approvalRejectForm } from "./approval-reject.ts";
import { campaignForm } from "./campaign.ts";
import { connectForm } from "./connect.ts";
import { errorsFor } from "./field-errors.ts";
import type { FormAnswer, FormShortcut, SlackForm, SlackSuggest, Suggest } from "./form.ts";
import { importForm } from "./import.ts";
import { inboxForm } from "./inbox.ts";
import { cut, modal, option, readMetadata, type StateValues, sectionText } from "./kit.ts";
import { mappingForm } from "./mapping.ts";
import { TEMPLATE_MENU } from "./parts.ts";
import { contactEditForm, userEditForm } from "./record-edit.ts";
import { savedReplyForm } from "./saved-reply.ts";
import { savedReplyEditForm } from "./saved-reply-edit.ts";
import { scheduledEditForm } from "./scheduled-edit.ts";
import { sendForm } from "./send.ts";
import { sendAtForm } from "./send-at.ts";
import { settingsForm } from "./settings.ts";
import { snoozeForm } from "./snooze.ts";
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
  "send-at": sendAtForm,
  inbox: inboxForm,
  "approval-reject": approvalRejectForm,
  "saved-reply-edit": savedReplyEditForm,
  "scheduled-edit": scheduledEditForm,
};

/** Every form: those the core asks for, and those the Slack side opens itself. */
export const FORMS: AnyForm[] = [...Object.values(BY_KIND), mappingForm, snoozeForm, savedReplyForm];

/** The view of the core's form request; `prefill.text` fills the message form (a message shortcut). */
export function formView(request: FormRequest, actor: Actor, prefill?: { text?: string }): ModalView {
  const form = BY_KIND[request.kind] as AnyForm;
  if (!form.build) throw new Error(`the ${form.name} has no builder`);
  return form.build(request.data, { actor, prefill });
}

/** The view to open: the form's own Slack data first (prepare), then its view. */
export async function openableView(
  request: FormRequest,
  actor: Actor,
  client?: webApi.WebClient,
): Promise<ModalView> {
  const form = BY_KIND[request.kind] as AnyForm;
  const data = client && form.prepare ? await form.prepare(request.data, { client, actor }) : request.data;
  return formView({ ...request, data } as FormRequest, actor);
}

/** Registers every form's listeners (listeners/on.ts): each gets the request's Reach, `ctx`. */
export function registerForms(app: Listeners): void {
  for (const form of FORMS) {
    onView<ViewSubmitAction>(app, form.callbackId, submitted(form));
    for (const actionId of form.refresh?.actions ?? [])
      onAction<BlockAction>(
        app,
        { type: "block_actions", callback_id: form.callbackId, action_id: actionId },
        refreshed(form),
      );
    for (const [actionId, load] of Object.entries(form.options ?? {}))
      onOptions(
        app,
        { type: "block_suggestion", callback_id: form.callbackId, action_id: actionId },
        suggested(actionId, load),
      );
    for (const [actionId, load] of Object.entries(form.slackOptions ?? {}))
      onOptions(
        app,
        { type: "block_suggestion", callback_id: form.callbackId, action_id: actionId },
        slackSuggested(actionId, load),
      );
    for (const shortcut of form.shortcuts ?? [])
      onShortcut(
        app,
        {
          callback_id: shortcut.callbackId,
          type: shortcut.type === "message" ? "message_action" : "shortcut",
        },
        shortcutUsed(shortcut),
      );
  }
}

// ---------------------------------------------------------------- the listeners, written once

type ViewArgs = BoltViewArgs<ViewSubmitAction>;

/** The submissions being answered in this process, by view and hash: a repeat gets the first's answer. */
const answering = new Map<string, Promise<FormAnswer | undefined>>();

/**
 * A submission: checked before any request (errors keep the user's input),
 * then the form's work, answered within Slack's 3 s (submission.ts). The same
 * submission delivered twice (a double click on a slow form: the same view,
 * hash and values) does its work once.
 */
function submitted(form: AnyForm) {
  return async (args: ViewArgs) => {
    const { ack, view, body, ctx } = args;
    // The same view, hash and values: a repeat. A corrected submission after field errors has other values.
    const values = createHash("sha256")
      .update(JSON.stringify(view.state?.values ?? {}))
      .digest("base64url");
    const key = `view:${view.id}:${view.hash}:${values.slice(0, 22)}`;
    const first = answering.get(key);
    if (first) {
      await ack(await first.catch(() => alreadySubmitted()));
      return;
    }
    let answered: (answer: FormAnswer | undefined) => void = () => {};
    answering.set(
      key,
      new Promise((resolve) => {
        answered = resolve;
      }),
    );
    const once = async (answer?: FormAnswer) => {
      answered(answer);
      await ack(answer);
    };
    let done = async () => {};
    try {
      // Noted from before its claim to its answer: a process killed in between (kill -9, a crash) leaves the
      // note, and the next start, or on PostgreSQL another replica once this one stops beating, tells the person
      // that the form's outcome is not known (interrupted-commands.ts). Noted before the claim, so no claim is
      // ever left without its note: a repeat the other replica answers "Already submitted" is told in the end.
      done = await ctx.noted({
        userId: body.user.id,
        line: formLine(view.title?.text ?? "a form"),
      });
      if (!(await ctx.events.claim(key))) {
        // Another replica took it: its outcome shows there (or, if that one dies, its note is told).
        await once(alreadySubmitted());
        return;
      }
      await claimed(form, args, once);
    } finally {
      answered(alreadySubmitted());
      setTimeout(() => answering.delete(key), 60_000).unref();
      await done();
    }
  };
}

/** A submission this process claimed: checked before any request, then the form's work, answered once. */
async function claimed(
  form: AnyForm,
  { body, view, client, ctx }: ViewArgs,
  once: (answer?: FormAnswer) => Promise<void>,
): Promise<void> {
  const said = readMetadata<{ ch?: string }>(view.private_metadata);
  // Its outcome goes to the channel it was opened from, as kept with this view in this workspace; a channel
  // the metadata names otherwise (forged: another workspace's) is dropped, and the outcome goes by DM.
  const ch = await formChannel(ctx.events, view.id, said.ch);
  if (said.ch && !ch)
    ctx.logger.warn({ callback: view.callback_id }, "a form named a channel it was not opened from");
  const meta = { ...said, ch };
  const actor = viewActor(body, meta.ch);
  const s = { ctx: ctx, client, body, view, meta, state: view.state.values as StateValues, actor };
  const unavailable = unavailableChoices(s.state);
  const checked = unavailable ? { errors: unavailable } : await form.submit.check(s);
  if ("errors" in checked) {
    await once({ response_action: "errors", errors: errorsFor(checked.errors, view) });
    return;
  }
  await answerSubmission(ctx, client, view, once, () => form.submit.run(checked.plan, s));
}

const alreadySubmitted = (): FormAnswer => ({
  response_action: "update",
  view: modal({
    callbackId: "sb_done",
    title: "Already submitted",
    close: "Close",
    blocks: [
      sectionText(
        "This form was already submitted, and Switchboard does its work only once. Its outcome is posted in the conversation; if Switchboard was interrupted while doing it, you are told so by direct message.",
      ),
    ],
  }),
});

/** A choice that changes the form: rebuilt from its own state with views.update (a stale one is dropped). */
function refreshed(form: AnyForm) {
  return async ({ ack, body, action, client, ctx }: ActionArgs<BlockAction>) => {
    await ack();
    const view = body.view;
    if (!view || !form.refresh) return;
    const act = action as { action_id: string; value?: string };
    try {
      const next = await form.refresh.view({
        ctx: ctx,
        actor: personOf(ctx),
        meta: readMetadata(view.private_metadata),
        state: view.state.values as StateValues,
        action: act,
      });
      if (!next) return;
      await client.views.update({ view_id: view.id, hash: view.hash, view: next });
    } catch (err) {
      // A newer change already updated the form: this one is stale, not a failure.
      if (slackCode(err) === "hash_conflict") return;
      ctx.logger.error(
        { err, callback: view.callback_id, actionId: act.action_id },
        "could not update the form",
      );
    }
  };
}

/** The value of the one option a menu shows when its options could not be loaded (refused at submission). */
export const UNAVAILABLE = "sb_unavailable";

/** Options as the user types (block_suggestion); when they cannot be read, one option that says why. */
function suggested(actionId: string, load: (api: MessagingApi, s: Suggest) => Promise<PlainTextOption[]>) {
  return async ({ ack, body, ctx }: OptionsArgs) => {
    const s = {
      query: body.value ?? "",
      state: body.view?.state?.values as StateValues | undefined,
      ctx: ctx,
      meta: readMetadata<Record<string, unknown>>(body.view?.private_metadata),
    };
    let options: PlainTextOption[];
    try {
      options = await withApi(ctx, viewActor(body), "read", "form", (api) => load(api, s));
    } catch (err) {
      ctx.logger.warn({ err: String(err), actionId }, "could not load form options");
      options = [option(cut(`Could not load ${what(actionId)}: ${reasonOf(err)}`, 75), UNAVAILABLE)];
    }
    await ack({ options });
  };
}

/** Options from Slack's own lists (the workspace's user groups); when they cannot be read, one option that says so. */
function slackSuggested(actionId: string, load: (s: SlackSuggest) => Promise<PlainTextOption[]>) {
  return async ({ ack, body, client, ctx }: OptionsArgs) => {
    const state = body.view?.state?.values as StateValues | undefined;
    let options: PlainTextOption[];
    try {
      options = await load({
        query: body.value ?? "",
        state,
        client,
        actor: viewActor(body),
        ctx: ctx,
        meta: readMetadata<Record<string, unknown>>(body.view?.private_metadata),
      });
    } catch (err) {
      ctx.logger.warn({ err: String(err), actionId }, "could not load form options from Slack");
      options = [option("Could not load them from Slack: try again in a minute", UNAVAILABLE)];
    }
    await ack({ options });
  };
}

/** What a menu lists, in words, by its action id. */
const MENU_WORDS: Record<string, string> = {
  [TEMPLATE_MENU]: "templates",
  sb_contacts: "contacts",
  sb_recipient: "recipients",
};
const what = (actionId: string): string => MENU_WORDS[actionId] ?? "the choices";

/** Why a load failed, in a few words (the API's answer, else the core's refusal). */
function reasonOf(err: unknown): string {
  if (isApiError(err))
    return (
      apiErrorReply(err)
        .text.replace(/[*_`:]/g, "")
        .split(/[.\n]/)[0] ?? ""
    );
  if (isSwitchboardError(err)) return err.message.replace(/[*_`]/g, "").split(/[.\n]/)[0] ?? "";
  return "something went wrong";
}

/** Menus submitted with the "could not load" option: refused at their field. */
function unavailableChoices(state: StateValues): Record<string, string> | undefined {
  const errors: Record<string, string> = {};
  for (const [blockId, actions] of Object.entries(state ?? {}))
    for (const value of Object.values(actions ?? {})) {
      const v = value as {
        selected_option?: { value?: string };
        selected_options?: Array<{ value?: string }>;
      };
      const chosen = [v.selected_option, ...(v.selected_options ?? [])];
      if (chosen.some((o) => o?.value === UNAVAILABLE))
        errors[blockId] = "This list could not be loaded: choose again, or close the form and try later.";
    }
  return Object.keys(errors).length ? errors : undefined;
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
function shortcutUsed(s: FormShortcut) {
  return async ({ ack, shortcut, client, ctx }: ShortcutArgs) => {
    await ack();
    const prefill = s.type === "message" ? s.prefill?.((shortcut as MessageShortcut).message) : undefined;
    // The guard middleware reports a failure, by the response_url of a message shortcut.
    const actor = shortcutActor(shortcut);
    const opened = await client.views.open({ trigger_id: shortcut.trigger_id, view: waiting(s.title) });
    const viewId = opened.view?.id;
    if (!viewId) throw new Error("views.open answered without the view's id");
    let view: ModalView;
    try {
      if (s.view) view = await s.view(ctx, actor, shortcut as MessageShortcut);
      else {
        const reply = await ctx.core.run(s.line, actor);
        view = reply.form
          ? formView(reply.form, actor, prefill)
          : waiting(s.title, reply.blocks.length ? reply.blocks : [sectionText(reply.text)]);
      }
    } catch (err) {
      // The waiting modal must not stay "Opening the form…" forever: it says what happened.
      const ref = errorRef();
      ctx.logger.error({ err, ref, line: s.line }, "shortcut failed");
      view = waiting(s.title, [
        sectionText(`:warning: The form could not be opened (ref ${ref}). Nothing was done; try again.`),
      ]);
    }
    try {
      await client.views.update({ view_id: viewId, hash: opened.view?.hash, view });
      await keepFormChannel(ctx.events, viewId, actor.channelId);
    } catch (err) {
      // Closed while the form was being prepared: nothing to show, nothing went wrong.
      if (slackCode(err) !== "not_found") throw err;
      ctx.logger.info({ line: s.line }, "shortcut's modal closed before the form was ready");
    }
  };
}
