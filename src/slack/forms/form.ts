// What a form is: one module under src/slack/forms/ holding its callback id,
// its builder (from the core's form request), its live refresh, the options
// it loads as the user types, its submission and the shortcuts that open it.
// The registry (index.ts) registers the views, actions, options and shortcuts
// from the list of forms.
import type { MessageShortcut, ViewOutput, ViewResponseAction, ViewSubmitAction, webApi } from "@slack/bolt";
import type { ModalView, PlainTextOption } from "@slack/types";
import type { MessagingApi } from "../../api/types.ts";
import type { FormKind, FormKinds } from "../../commands/form-kinds.ts";
import type { Actor } from "../../commands/types.ts";
import type { Reach } from "../context.ts";
import type { StateValues } from "./kit.ts";

/** The shortcuts' callback ids (manifest.yml `features.shortcuts`). */
export const SHORTCUTS = {
  sendToCustomer: "sb_send_to_customer",
  send: "sb_send",
  newCampaign: "sb_new_campaign",
  import: "sb_import",
  savedReply: "sb_saved_reply",
} as const;

/** Who the form is opened for; `prefill.text`: the message a shortcut was used on. */
export interface Opened {
  actor: Actor;
  prefill?: { text?: string };
}

/** A choice inside the open form (block_actions): the form is rebuilt from its own state. */
export interface Refresh<Meta> {
  ctx: Reach;
  actor: Actor;
  meta: Partial<Meta>;
  state: StateValues;
  action: { action_id: string; value?: string };
}

/** What the user typed in an external select (block_suggestion), and the form's state. */
export interface Suggest {
  query: string;
  state: StateValues | undefined;
  /** The request's services and workspace (a list kept in the store, not the API), and the form's metadata. */
  ctx?: Reach;
  meta?: Record<string, unknown>;
}

/** An external select over Slack's own lists: the workspace's client and who types. */
export interface SlackSuggest extends Suggest {
  client: webApi.WebClient;
  actor: Actor;
}

export interface Submission<Meta> {
  ctx: Reach;
  client: webApi.WebClient;
  body: ViewSubmitAction;
  view: ViewOutput;
  meta: Partial<Meta>;
  state: StateValues;
  /** Who submitted it, results going to the channel the form was opened from (`meta.ch`). */
  actor: Actor;
}

export type FormAnswer =
  | { response_action: "errors"; errors: Record<string, string> }
  | ViewResponseAction
  | undefined;

/** A submission's answer to Slack, and the work after it (posting the result). */
export interface FormOutcome {
  answer?: FormAnswer;
  after?: () => Promise<void>;
}

export type Checked<Plan> = { plan: Plan } | { errors: Record<string, string> };

/** A shortcut that opens the form: a small modal at once, replaced by the form of `line`. */
export interface FormShortcut {
  callbackId: string;
  type: "global" | "message";
  /** The command line whose form it opens, and the waiting modal's title. */
  line: string;
  title: string;
  /** What a message shortcut fills in. */
  prefill?: (message: MessageShortcut["message"]) => { text?: string } | undefined;
  /**
   * A form the Slack side builds itself (no command line): the view for this
   * message shortcut's message and channel, replacing the waiting modal.
   */
  view?: (ctx: Reach, actor: Actor, shortcut: MessageShortcut) => Promise<ModalView>;
}

/**
 * A form the core asks for by its kind, built for the channel it was asked
 * in: its kind, callback id and `build` (the modal from the core's data, the
 * channel kept in the view's metadata).
 */
export const askedIn = <K extends FormKind>(
  kind: K,
  callbackId: string,
  modal: (data: FormKinds[K], meta: { ch?: string }) => ModalView,
) => ({
  kind,
  callbackId,
  build: (data: FormKinds[K], { actor }: Opened) => modal(data, { ch: actor.channelId }),
});

export interface SlackForm<K extends FormKind = FormKind, Meta = unknown, Plan = unknown> {
  /** How logs name it ("campaign form"). */
  name: string;
  callbackId: string;
  /** The core's form kind it shows (`FormKinds`); none for a form the Slack side opens itself. */
  kind?: K;
  build?(data: FormKinds[K], opened: Opened): ModalView;
  /** Choices that rebuild the form (views.update): their action ids, and the next view. */
  refresh?: {
    actions: readonly string[];
    view(r: Refresh<Meta>): Promise<ModalView | undefined>;
  };
  /** Slack's own data the form needs before it is built (the workspace's user groups), added to the core's. */
  prepare?(data: FormKinds[K], p: { client: webApi.WebClient; actor: Actor }): Promise<FormKinds[K]>;
  /** Options loaded from Slack itself as the user types (not the messaging API), by action id. */
  slackOptions?: Record<string, (s: SlackSuggest) => Promise<PlainTextOption[]>>;
  /** Options loaded as the user types, by action id; `api` is the person's (read access). */
  options?: Record<string, (api: MessagingApi, s: Suggest) => Promise<PlainTextOption[]>>;
  submit: {
    /** Before any request: the plan, or errors by block id (the user's input is kept). */
    check(s: Submission<Meta>): Checked<Plan> | Promise<Checked<Plan>>;
    /** The work, answered within Slack's 3 s or with a "Working…" view (submission.ts). */
    run(plan: Plan, s: Submission<Meta>): Promise<FormOutcome>;
  };
  shortcuts?: FormShortcut[];
}
