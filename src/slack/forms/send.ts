// `/sb send` with no arguments: the message form. A recipient (a phone number,
// or a contact or chat user searched as the user types), the type, and only
// the fields that type needs; a template shows one input per placeholder.
// Submitted: checked before any request, then sent. Free text outside the
// 24-hour window (the API answers 422) comes back as an error on the message
// field, with the hint to send a template.
import type { KnownBlock, ModalView } from "@slack/types";
import { ValidationError } from "../../api/errors.ts";
import type { SendMessageInput } from "../../api/schemas.ts";
import {
  describeIssues,
  type FieldProblem,
  MESSAGE_TYPES,
  sendMessageSchema,
  toE164,
} from "../../api/schemas.ts";
import { actions, esc } from "../../blocks/blocks.ts";
import type { Recipient } from "../../commands/args.ts";
import { sentAnswer } from "../../commands/defs/messages.ts";
import type { ChannelsFormData, SendPrefill } from "../../commands/form-kinds.ts";
import { type LaterMessage, laterSendsOf, laterTime, laterWhom } from "../../commands/later-message.ts";
import { UserError } from "../../commands/registry.ts";
import { ACTION } from "../../commands/types.ts";
import { dateToken, typedStartAt } from "../../domain/start-time.ts";
import { withApi } from "../perform.ts";
import { recipientSuggestions } from "./choices.ts";
import { errorsFor, fieldErrors } from "./field-errors.ts";
import { type FormOutcome, SHORTCUTS, type SlackForm, type Submission } from "./form.ts";
import {
  checkedOf,
  context,
  cut,
  dateTimeOf,
  fieldError,
  input,
  modal,
  option,
  plain,
  type StateValues,
  sectionText,
  selectedOf,
  selectedOptionOf,
  staticSelect,
  textInput,
  textOf,
  VIEW_LIMITS,
} from "./kit.ts";
import {
  channelInput,
  chosenTemplateMeta,
  paramValues,
  TEMPLATE_MENU,
  type TemplateChoice,
  templateMenu,
  templateOptions,
  templateParams,
} from "./parts.ts";
import { postOutcome, refused } from "./submission.ts";

export const SEND_CALLBACK = "sb_send";
export const SEND_ACTIONS = { recipient: "sb_recipient", type: "sb_type", template: TEMPLATE_MENU } as const;

export interface SendMeta {
  ch?: string;
  /** Channels offered, and the default one. */
  chs?: number[];
  def?: number;
  tpl?: TemplateChoice;
}

export type SendData = ChannelsFormData;

const TYPE_LABELS: Record<(typeof MESSAGE_TYPES)[number], string> = {
  text: "Text",
  template: "Template",
  image: "Image",
  document: "Document",
};

export function sendModal(data: SendData, meta: SendMeta, state?: StateValues): ModalView {
  const type = (selectedOf(state, "type") ?? "text") as (typeof MESSAGE_TYPES)[number];
  const blocks: KnownBlock[] = [];
  // One channel known goes without asking.
  if (data.channels.length > 1) blocks.push(channelInput(data, state, { idHint: "" }));
  blocks.push(
    input(
      "to",
      "Phone number",
      textInput("to", { initial: textOf(state, "to"), placeholder: "+1 415 555 0123", max: 40 }),
      {
        optional: true,
        hint: "With its country code; spaces and dashes are fine. Or choose a contact or chat user below.",
      },
    ),
  );
  const recipient = selectedOptionOf(state, "recipient");
  blocks.push(
    input(
      "recipient",
      "Or a contact or chat user",
      {
        type: "external_select",
        action_id: SEND_ACTIONS.recipient,
        min_query_length: 1,
        placeholder: plain("Search by name, phone or e-mail"),
        ...(recipient ? { initial_option: recipient } : {}),
      },
      { optional: true },
    ),
  );
  blocks.push(
    input(
      "type",
      "Type",
      staticSelect(
        SEND_ACTIONS.type,
        MESSAGE_TYPES.map((t) => option(TYPE_LABELS[t], t)),
        { initial: type },
      ),
      { dispatch: true },
    ),
  );
  if (type === "text") {
    blocks.push(
      input(
        "text",
        "Message",
        textInput("text", { initial: textOf(state, "text"), multiline: true, max: 4096 }),
        {
          hint: "Free text reaches a contact only within 24 hours of their last message; otherwise send a template.",
        },
      ),
    );
  } else if (type === "template") {
    blocks.push(templateMenu(state), ...templateParams(meta.tpl, state));
  } else {
    blocks.push(
      input(
        "media",
        type === "image" ? "Image URL" : "Document URL",
        {
          type: "url_text_input",
          action_id: "media",
          ...(textOf(state, "media") ? { initial_value: textOf(state, "media") } : {}),
        },
        { hint: "An http or https address the messaging service can fetch." },
      ),
      input(
        "caption",
        "Caption",
        textInput("caption", { initial: textOf(state, "caption"), multiline: true, max: 1024 }),
        { optional: true },
      ),
    );
  }
  const human = checkedOf(state, "human");
  const humanOption = option("Assign the conversation to a human agent", "yes");
  blocks.push(
    input(
      "human",
      "Hand-off",
      {
        type: "checkboxes",
        action_id: "human",
        options: [humanOption],
        ...(human.includes("yes") ? { initial_options: [humanOption] } : {}),
      },
      { optional: true },
    ),
  );
  // Send at… (issue 40 §2): a time, and it is sent then, once, as the person (docs/automations.md).
  const when = dateTimeOf(state, "when");
  blocks.push(
    input(
      "when",
      "Send at… (optional)",
      { type: "datetimepicker", action_id: "when", ...(when ? { initial_date_time: when } : {}) },
      {
        optional: true,
        hint: "Leave it empty to send now. In your own time zone; until it goes, the scheduled messages list it, to edit or cancel.",
      },
    ),
  );
  return modal({
    callbackId: SEND_CALLBACK,
    title: "Send a message",
    submit: "Send",
    blocks,
    metadata: meta,
  });
}

const SEND_BLOCKS: Record<string, string> = {
  to: "to",
  contactId: "recipient",
  chatUserId: "recipient",
  type: "type",
  mediaUrl: "media",
  channelId: "channel",
  template: "template",
};

export function sendBlockFor(type: string) {
  return (field: string): string | undefined => {
    const parts = field.split(".");
    if (parts[0] === "template" && parts[1] === "parameters" && parts[2]) return `param:${parts[2]}`;
    if (parts[0] === "text") return type === "text" ? "text" : "caption";
    return SEND_BLOCKS[parts[0] ?? ""];
  };
}

export function planSend(
  state: StateValues,
  meta: SendMeta,
  opts: { defaultCountry?: string; channelId?: number },
): { body: SendMessageInput; type: string } | { errors: Record<string, string> } {
  const type = selectedOf(state, "type") ?? "text";
  const problems: FieldProblem[] = [];
  const body: Record<string, unknown> = { type };
  const phone = textOf(state, "to");
  const picked = selectedOf(state, "recipient");
  if (phone && picked) {
    problems.push({ field: "contactId", rule: "choose a phone number or a contact/chat user, not both" });
  } else if (phone) {
    const e164 = toE164(phone, opts.defaultCountry);
    if (e164) body.to = e164;
    else
      problems.push({
        field: "to",
        rule: `"${cut(phone, 40)}" is not a phone number: write it with its country code, for example +14155550123`,
      });
  } else if (picked?.startsWith("contact:")) body.contactId = Number(picked.slice(8));
  else if (picked?.startsWith("user:")) body.chatUserId = Number(picked.slice(5));
  else problems.push({ field: "to", rule: "give a phone number, or choose a contact or chat user" });

  const channel = selectedOf(state, "channel");
  body.channelId = channel !== undefined ? Number(channel) : (opts.channelId ?? meta.tpl?.channel);
  if (type === "text") body.text = textOf(state, "text");
  else if (type === "template") {
    if (!meta.tpl || selectedOf(state, "template") !== String(meta.tpl.id)) {
      problems.push({ field: "template", rule: "choose an approved template" });
    } else {
      const { values: parameters, problems: missing } = paramValues(
        state,
        meta.tpl,
        (p) => `template.parameters.${p}`,
      );
      problems.push(...missing);
      body.template = {
        name: meta.tpl.name,
        language: meta.tpl.language,
        ...(Object.keys(parameters).length ? { parameters } : {}),
      };
    }
  } else {
    body.mediaUrl = textOf(state, "media");
    const caption = textOf(state, "caption");
    if (caption) body.text = caption;
  }
  if (checkedOf(state, "human").includes("yes")) body.assignToHuman = true;
  if (body.channelId === undefined)
    problems.push({
      field: "channelId",
      rule: "is not chosen, and this workspace has no default one (an admin sets it in Settings): choose a channel",
    });

  const check = { ...body, channelId: body.channelId ?? 1 };
  const parsed = sendMessageSchema.safeParse(check);
  if (!problems.length && !parsed.success) problems.push(...describeIssues(parsed.error, check));
  if (problems.length || !parsed.success) return { errors: fieldErrors(problems, sendBlockFor(type), "to") };
  return { body: parsed.data, type };
}

/** The message form holds at most this many characters. */
const MAX_TEXT = 4096;

/** A message's text with Slack's markup made plain (entities, links), as the form's message. */
export function plainMessageText(text: string): string {
  return text
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, "$2 ($1)")
    .replace(/<((?:https?|mailto):[^>]+)>/g, "$1")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .slice(0, MAX_TEXT);
}

/** What is known already, as the form's state: as if the person had typed or picked it. */
function prefilledState(chosen: SendPrefill | undefined, text: string | undefined): StateValues | undefined {
  const state: StateValues = {
    ...(text ? { text: { text: { type: "plain_text_input", value: text } } } : {}),
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
    ...(chosen?.type
      ? {
          type: {
            [SEND_ACTIONS.type]: {
              type: "static_select",
              selected_option: { text: { type: "plain_text", text: chosen.type }, value: chosen.type },
            },
          },
        }
      : {}),
  };
  return Object.keys(state).length ? state : undefined;
}

const outsideWindow = (err: unknown) =>
  err instanceof ValidationError &&
  [err.message, ...err.problems.map((p) => p.rule)].some((m) => /24-hour|conversation window/i.test(m));

/** The person as the form showed them ("Ana García", not "Ana García · +1… (contact #3)"), for the words. */
const shownWhom = (state: StateValues): string | undefined =>
  (selectedOptionOf(state, "recipient")?.text.text ?? "")
    .replace(/ \((contact|chat user) #\d+\)$/, "")
    .split(" · ")[0]
    ?.replace(/"/g, "'")
    .trim();

/** The answer, posted where the person asked once the form has closed. */
const toldAfter = (s: Submission<SendMeta>, m: { text: string; blocks: KnownBlock[] }): FormOutcome => ({
  after: () =>
    postOutcome(s.ctx, s.client, { channel: s.meta.ch, userId: s.actor.userId }, m).then(() => undefined),
});

/** What the form sends; `at` (Unix seconds): later, on the claimed-once timer. */
type SendPlan = { body: SendMessageInput; type: string; at?: number };

/** A time chosen in Send at…: the refusal in words (the `at=` rule), or undefined when it may be sent then. */
function laterRefusal(at: number, now: Date): string | undefined {
  const parsed = laterTime(typedStartAt(new Date(at * 1000), undefined), now, undefined);
  return "problem" in parsed ? parsed.problem : undefined;
}

/** Send at…: set on the claimed-once timer as the person (who may write checked), audited, told where they asked. */
async function sendLater(plan: SendPlan, s: Submission<SendMeta>): Promise<FormOutcome> {
  const { ctx, actor } = s;
  const at = new Date((plan.at as number) * 1000);
  const message = plan.body;
  const ref =
    message.to ??
    (message.contactId !== undefined ? `contact:${message.contactId}` : `user:${message.chatUserId}`);
  const picked = shownWhom(s.state);
  const payload: LaterMessage = { body: message, ref, ...(picked && !message.to ? { toName: picked } : {}) };
  const line = `send (form) ${plan.type} at=${at.toISOString()}`;
  const stores = ctx.stores;
  if (!stores) throw new UserError("Sending later is not set up here.");
  const set = await ctx.core.perform(actor, { access: "write", command: line }, async () =>
    laterSendsOf(stores).set({
      at,
      setBy: actor.userId,
      via: actor.via,
      payload,
      now: new Date(),
    }),
  );
  await ctx.core.audit(actor, {
    command: line,
    operation: "message.later",
    ok: true,
    answer: { to: laterWhom(payload), at: at.toISOString(), number: set.number },
  });
  const text = `:alarm_clock: Message ${set.number} to *${esc(laterWhom(payload))}* will be sent at ${dateToken(at)}.`;
  return toldAfter(s, {
    text: text.replace(/<!date\^[^|]*\|([^>]*)>/g, "$1"),
    // Where to change it: the list, as a button (no command to learn).
    blocks: [
      sectionText(text),
      actions([{ text: "Scheduled messages", actionId: ACTION.run, value: "scheduled" }]),
    ],
  });
}

export const sendForm: SlackForm<"send", SendMeta, SendPlan> = {
  name: "send form",
  kind: "send",
  callbackId: SEND_CALLBACK,
  build: (data, { actor, prefill }) =>
    sendModal(
      data,
      { ch: actor.channelId, chs: data.channels, def: data.defaultChannelId },
      prefilledState(data.prefill, prefill?.text),
    ),
  refresh: {
    actions: [SEND_ACTIONS.template, SEND_ACTIONS.type],
    view: async ({ ctx, actor, meta, state, action }) => {
      if (action.action_id === SEND_ACTIONS.template) meta.tpl = await chosenTemplateMeta(ctx, actor, state);
      if (selectedOf(state, "type") !== "template") meta.tpl = undefined;
      const channelNames = await ctx.core.channelNames();
      return sendModal({ channels: meta.chs ?? [], defaultChannelId: meta.def, channelNames }, meta, state);
    },
  },
  options: {
    [SEND_ACTIONS.template]: templateOptions,
    [SEND_ACTIONS.recipient]: (api, { query }) => recipientSuggestions(api, query, { users: true }),
  },
  submit: {
    check: ({ ctx, state, meta }) => {
      const planned = planSend(state, meta, {
        defaultCountry: ctx.core.defaultCountry,
        channelId: meta.def,
      });
      if ("errors" in planned) return planned;
      const at = dateTimeOf(state, "when");
      if (at === undefined) return { plan: planned };
      const problem = ctx.stores ? laterRefusal(at, new Date()) : "Sending later is not set up here";
      return problem ? { errors: { when: problem } } : { plan: { ...planned, at } };
    },
    run: async (plan, s) => {
      if (plan.at !== undefined) return sendLater(plan, s);
      const { body: message, type } = plan;
      const { ctx, view, actor } = s;
      try {
        const recipient: Recipient = message.to
          ? { kind: "phone", to: message.to }
          : message.contactId !== undefined
            ? { kind: "contact", contactId: Number(message.contactId) }
            : { kind: "user", chatUserId: Number(message.chatUserId) };
        // The person as the form showed them, for the audit's sentence ("sent a message to *Ana García*").
        const whom = shownWhom(s.state);
        const line = `send (form) ${type}${whom && !message.to ? ` to "${whom}"` : ""}`;
        // Sent, then told as `/sb send` tells it: the person by name and what they will read.
        const sent = await withApi(ctx, actor, "write", line, async (api) => {
          const m = await api.sendMessage(message);
          // Switchboard's own send: the inbox's thread shows who sent it (docs/inbox.md).
          if (ctx.stores && typeof m.id === "number")
            await ctx.stores.ownSends.record(m.id, actor.userId, "form").catch(() => {});
          return sentAnswer(api, recipient, message, m, s.meta.tpl?.body);
        });
        return toldAfter(s, { text: sent.text, blocks: [sectionText(sent.line), context(sent.detail)] });
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
        return refused(err, sendBlockFor(type), type === "text" ? "text" : "to", view);
      }
    },
  },
  shortcuts: [
    { callbackId: SHORTCUTS.send, type: "global", line: "send", title: "Send a message" },
    {
      callbackId: SHORTCUTS.sendToCustomer,
      type: "message",
      line: "send",
      title: "Send a message",
      prefill: (message) => {
        const text = plainMessageText(typeof message?.text === "string" ? message.text : "");
        return text.trim() ? { text } : undefined;
      },
    },
  ],
};
