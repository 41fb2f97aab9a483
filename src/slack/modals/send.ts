// `/sb send` with no arguments: the message form. A recipient (a phone number,
// or a contact or chat user searched as the user types), the type, and only
// the fields that type needs; a template shows one input per placeholder.

import type { KnownBlock, ModalView } from "@slack/types";
import type { SendMessageInput } from "../../api/schemas.ts";
import {
  describeIssues,
  type FieldProblem,
  MESSAGE_TYPES,
  sendMessageSchema,
  toE164,
} from "../../api/schemas.ts";
import type { ChosenTemplate } from "../../commands/lookups.ts";
import { fieldErrors } from "./errors.ts";
import {
  checkedOf,
  context,
  cut,
  input,
  modal,
  option,
  plain,
  type StateValues,
  selectedOf,
  selectedOptionOf,
  staticSelect,
  textInput,
  textOf,
} from "./kit.ts";
import { channelOptions } from "./lookups.ts";

export const SEND_CALLBACK = "sb_send";
export const SEND_ACTIONS = { recipient: "sb_recipient", type: "sb_type", template: "sb_tpl" } as const;

export interface SendMeta {
  ch?: string;
  /** Channels offered, and the default one. */
  chs?: number[];
  def?: number;
  tpl?: Omit<ChosenTemplate, "body"> & { body?: string };
}

export interface SendData {
  channels: number[];
  defaultChannelId?: number;
  channelNames?: Record<number, string>;
}

const TYPE_LABELS: Record<(typeof MESSAGE_TYPES)[number], string> = {
  text: "Text",
  template: "Template",
  image: "Image",
  document: "Document",
};

export function sendModal(data: SendData, meta: SendMeta, state?: StateValues): ModalView {
  const type = (selectedOf(state, "type") ?? "text") as (typeof MESSAGE_TYPES)[number];
  const blocks: KnownBlock[] = [];
  if (data.channels.length > 1) {
    const initial = selectedOf(state, "channel") ?? String(data.defaultChannelId ?? data.channels[0]);
    blocks.push(
      input(
        "channel",
        "Channel",
        staticSelect("channel", channelOptions(data.channels, data.defaultChannelId, data.channelNames), {
          initial,
        }),
      ),
    );
  }
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
    const tpl = selectedOptionOf(state, "template");
    blocks.push(
      input(
        "template",
        "Template",
        {
          type: "external_select",
          action_id: SEND_ACTIONS.template,
          min_query_length: 0,
          placeholder: plain("Search approved templates"),
          ...(tpl ? { initial_option: tpl } : {}),
        },
        { dispatch: true },
      ),
    );
    if (meta.tpl) {
      if (meta.tpl.body)
        blocks.push(context(`>${cut(meta.tpl.body, 2900).replace(/\n/g, "\n>")}`, "template_body"));
      for (const p of meta.tpl.placeholders.slice(0, 30)) {
        blocks.push(
          input(
            `param:${p}`,
            `{{${p}}}`,
            textInput(`param:${p}`, { initial: textOf(state, `param:${p}`), max: 1000 }),
          ),
        );
      }
    }
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
      const parameters: Record<string, string> = {};
      for (const p of meta.tpl.placeholders) {
        const v = textOf(state, `param:${p}`);
        if (v === undefined) problems.push({ field: `template.parameters.${p}`, rule: "needs a value" });
        else parameters[p] = v;
      }
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
    problems.push({ field: "channelId", rule: "is unknown: set MESSAGING_CHANNEL_ID, or choose a channel" });

  const check = { ...body, channelId: body.channelId ?? 1 };
  const parsed = sendMessageSchema.safeParse(check);
  if (!problems.length && !parsed.success) problems.push(...describeIssues(parsed.error, check));
  if (problems.length || !parsed.success) return { errors: fieldErrors(problems, sendBlockFor(type), "to") };
  return { body: parsed.data, type };
}
