// A reply that needs a form says which form and with what data; the Slack app
// picks the modal that shows it (src/slack/modals/open.ts). The shell has no
// forms: it gets the usage and an example of the command line that does the
// same (`instead`).
import type { ApiRecord, ContactField, Group } from "../api/types.ts";
import { usageLines } from "./errors.ts";
import { type CampaignFormData, contactFields } from "./lookups.ts";
import { type CommandContext, UserError } from "./registry.ts";
import type { Reply } from "./types.ts";

export interface ChannelsFormData {
  /** Channels to offer, the default first. */
  channels: number[];
  defaultChannelId?: number;
  /** The channels' names by id, where people gave one. */
  channelNames?: Record<number, string>;
}

/** The message form opened for someone already chosen (a card's "Send message"). */
export interface SendPrefill {
  /** A phone number, in the phone field. */
  to?: string;
  /** A contact or chat user, chosen: `contact:12` / `user:4`, with the text the menu shows. */
  recipient?: { value: string; label: string };
}

/** Every form the core can ask for, by kind, with the data it opens with. */
export interface FormKinds {
  campaign: CampaignFormData;
  send: ChannelsFormData & { prefill?: SendPrefill };
  template: ChannelsFormData;
  contact: { id: number; record: ApiRecord; fields: ContactField[] };
  "chat-user": { id: number; record: ApiRecord; fields: ContactField[] };
  import: { groups: Group[] };
}
export type FormKind = keyof FormKinds;

export type FormRequest = { [K in FormKind]: { kind: K; data: FormKinds[K] } }[FormKind];

/**
 * The reply of a command that opens a form. The shell has no forms: there it
 * answers, without any request, with the usage and an example of the command
 * named by `instead` (by id), which does the same from a line.
 */
export async function formReply<K extends FormKind>(
  ctx: CommandContext,
  form: { kind: K; load: () => Promise<FormKinds[K]>; instead: string },
  text: string,
): Promise<Reply> {
  if (ctx.actor.via === "shell") {
    const spec = ctx.registry.get(form.instead);
    throw new UserError(
      `This opens a form in Slack. Here, type the command line instead.${spec ? `\n${usageLines(spec)}` : ""}`,
      false,
    );
  }
  const request = { kind: form.kind, data: await form.load() } as FormRequest;
  return { visibility: "ephemeral", text, blocks: [], form: request };
}

/**
 * The edit form of one record, a contact or a chat user: the record and the
 * contact fields, read together once the form is to be shown.
 */
export function recordFormReply(
  ctx: CommandContext,
  form: { kind: "contact" | "chat-user"; id: number; get: () => Promise<ApiRecord>; instead: string },
  text: string,
): Promise<Reply> {
  const load = async () => {
    const [record, fields] = await Promise.all([form.get(), contactFields(ctx.api)]);
    return { id: form.id, record, fields };
  };
  return formReply(ctx, { kind: form.kind, load, instead: form.instead }, text);
}
