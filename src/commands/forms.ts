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
