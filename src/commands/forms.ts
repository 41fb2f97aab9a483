// A reply that needs a form says which form and with what data; the Slack app
// picks the modal that shows it (src/slack/forms/). The shell has no
// forms: it gets the usage and an example of the command line that does the
// same (`instead`).
import type { ApiRecord } from "../api/types.ts";
import { usageLines } from "./errors.ts";
import type { FormKind, FormKinds, FormRequest } from "./form-kinds.ts";
import { contactFields } from "./lookups.ts";
import { type CommandContext, UserError } from "./registry.ts";
import type { Reply } from "./types.ts";

export type { SendPrefill } from "./form-kinds.ts";

/**
 * The reply of a command that opens a form. The shell has no forms: there it
 * answers, without any request, with an example (the form that fits) of the command
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
      `This opens a form in Slack. Here, type the command line instead.${spec ? `\n${usageLines(spec, ctx.line)}` : ""}`,
      false,
    );
  }
  const request = { kind: form.kind, data: await form.load() } as FormRequest;
  return { visibility: "ephemeral", text, blocks: [], form: request };
}

/** The edit forms of records: how each record is read, its noun, and the command line that does the same. */
const RECORD_FORMS: Record<
  "contact" | "chat-user",
  { get: (ctx: CommandContext, id: number) => Promise<ApiRecord>; noun: string; instead: string }
> = {
  contact: { get: (ctx, id) => ctx.api.getContact(id), noun: "contact", instead: "contact.edit" },
  "chat-user": { get: (ctx, id) => ctx.api.getChatUser(id), noun: "chat user", instead: "user.edit" },
};

/**
 * The edit form of one record, a contact or a chat user: the record and the
 * contact fields, read together once the form is to be shown.
 */
export function recordFormReply(
  ctx: CommandContext,
  kind: "contact" | "chat-user",
  id: number,
): Promise<Reply> {
  const { get, noun, instead } = RECORD_FORMS[kind];
  const load = async () => {
    const [record, fields] = await Promise.all([get(ctx, id), contactFields(ctx.api)]);
    return { id, record, fields };
  };
  return formReply(ctx, { kind, load, instead }, `Opening the form of ${noun} #${id}…`);
}
