// The saved reply form (issue 29 §1, "the same in a form"): a saved reply
// added (`/sb reply add` alone) or edited (`/sb reply edit <name>` alone), its
// text on several lines (a typed command joins them into one), and the inbox
// it belongs to, or none. Writers only (checked again on Save); stored and
// audited as the commands `reply add` / `reply edit` are; the answer posted
// where the form was opened.
import type { KnownBlock, ModalView } from "@slack/types";
import { esc } from "../../blocks/blocks.ts";
import type { FormKinds } from "../../commands/form-kinds.ts";
import { replyPlaceholders, SAVED_REPLY_MAX } from "../../domain/saved-reply.ts";
import { askedIn, type FormOutcome, type SlackForm, type Submission } from "./form.ts";
import { context, input, modal, plain, sectionText, textInput, textOf } from "./kit.ts";
import { postOutcome } from "./submission.ts";

export const SAVED_REPLY_EDIT_CALLBACK = "sb_saved_reply_edit";

/** As the commands: a name up to 60 characters; the text as long as a saved reply may be (a view's text input's most). */
const NAME_MAX = 60;
const TEXT_MAX = SAVED_REPLY_MAX;

export interface SavedReplyEditMeta {
  ch?: string;
  /** The saved reply edited (its name); none: a new one. */
  name?: string;
}

interface Plan {
  name: string;
  text: string;
  inbox: string | null;
}

export function savedReplyEditModal(
  data: FormKinds["saved-reply-edit"],
  meta: SavedReplyEditMeta,
): ModalView {
  const r = data.reply;
  const blocks: KnownBlock[] = [
    r
      ? sectionText(`*Editing the saved reply ${esc(r.name)}.* Saving replaces its text and inbox.`)
      : input("name", "Name", textInput("name", { max: NAME_MAX, placeholder: "Order shipped" }), {
          hint: "What people search for in Saved reply… on an inbox card.",
        }),
    input(
      "text",
      "Text",
      textInput("text", {
        multiline: true,
        max: TEXT_MAX,
        ...(r ? { initial: r.text } : {}),
        placeholder: "Hi {first_name|there}, your order ships today.",
      }),
      {
        hint: "Line breaks are kept. Placeholders from the customer's record: {first_name}, {last_name}, {name}, {phone}, a custom field by its key; {first_name|there} says “there” when there is no first name.",
      },
    ),
    input(
      "inbox",
      "Inbox",
      {
        type: "conversations_select",
        action_id: "inbox",
        placeholder: plain("Every inbox"),
        filter: { include: ["public", "private"], exclude_bot_users: true },
        ...(r?.inbox ? { initial_conversation: r.inbox } : {}),
      },
      {
        optional: true,
        hint: "The channel of an inbox: offered in its conversations only. None: every inbox.",
      },
    ),
    context("Writers only. The change is recorded in the audit log."),
  ];
  return modal({
    callbackId: SAVED_REPLY_EDIT_CALLBACK,
    title: r ? "Edit saved reply" : "New saved reply",
    submit: "Save",
    metadata: { ...meta, ...(r ? { name: r.name } : {}) },
    blocks,
  });
}

const quoted = (text: string) =>
  `>${esc(text.length > 1500 ? `${text.slice(0, 1499)}…` : text).replace(/\n/g, "\n>")}`;

async function save(plan: Plan, s: Submission<SavedReplyEditMeta>): Promise<FormOutcome> {
  const errors = (e: Record<string, string>): FormOutcome => ({
    answer: { response_action: "errors", errors: e },
  });
  const { ctx, actor } = s;
  const editing = s.meta.name !== undefined;
  const where = editing ? "text" : "name";
  if (!ctx.stores) return errors({ text: "Saved replies are not set up in this Switchboard." });
  if (!(await ctx.core.may(actor, "write")))
    return errors({
      [where]: "Only writers may add or change saved replies: ask an admin to add you to those who may.",
    });
  if (plan.inbox && !(await ctx.stores.inbox.inbox(plan.inbox)))
    return errors({
      inbox:
        "This channel has no inbox: choose an inbox's channel, or none for every inbox. Nothing was saved.",
    });
  const saved = ctx.stores.savedReplies;
  const now = new Date();
  let name = plan.name;
  if (editing) {
    // As it was (text and inbox): nothing written, no audit row, and said.
    const current = await saved.get(plan.name);
    if (current && current.text === plan.text && current.inbox === plan.inbox)
      return {
        answer: {
          response_action: "update",
          view: modal({
            callbackId: "sb_reply_unchanged",
            title: "Saved reply",
            close: "Done",
            blocks: [sectionText(`*${esc(current.name)}*: nothing changed, so nothing was saved.`)],
          }),
        } as FormOutcome["answer"],
      };
    if ((await saved.edit(plan.name, plan.text, actor.userId, now, plan.inbox)) === undefined)
      return errors({ text: `The saved reply ${plan.name} no longer exists: nothing was saved.` });
    name = (await saved.get(plan.name))?.name ?? plan.name;
  } else if (!(await saved.add(plan.name, plan.text, actor.userId, now, plan.inbox))) {
    const other = (await saved.get(plan.name))?.name ?? plan.name;
    return errors({ name: `There is a saved reply called ${other} already: choose another name.` });
  }
  const operation = editing ? "reply.edit" : "reply.add";
  await ctx.core.audit(actor, {
    at: now,
    command: `${editing ? "reply edit" : "reply add"} (form) "${name}"`,
    operation,
    ok: true,
    answer: { name, inbox: plan.inbox },
  });
  const said = `Saved reply *${esc(name)}* ${editing ? "changed" : "added"}.`;
  const names = replyPlaceholders(plan.text);
  const blocks: KnownBlock[] = [
    sectionText(said),
    sectionText(quoted(plan.text)),
    context(
      `${names.length ? `Filled from the customer's record: ${names.map((n) => `\`{${esc(n)}}\``).join(", ")}.` : "No placeholders: every customer reads it as written."} ${plan.inbox ? `Offered in <#${plan.inbox}>'s conversations only.` : "Offered in every inbox."}`,
    ),
  ];
  return {
    after: async () => {
      await postOutcome(ctx, s.client, { channel: s.meta.ch, userId: actor.userId }, { text: said, blocks });
    },
    answer: { response_action: "clear" },
  };
}

export const savedReplyEditForm: SlackForm<"saved-reply-edit", SavedReplyEditMeta, Plan> = {
  ...askedIn("saved-reply-edit", SAVED_REPLY_EDIT_CALLBACK, savedReplyEditModal),
  name: "saved reply form",
  submit: {
    check: ({ state, meta }) => {
      const name = meta.name ?? textOf(state, "name")?.trim();
      const text = textOf(state, "text");
      const errors: Record<string, string> = {};
      if (!name) errors.name = "Give the reply a name.";
      else if (name.length > NAME_MAX) errors.name = `At most ${NAME_MAX} characters.`;
      if (!text) errors.text = "Write what the reply says.";
      if (!name || !text || Object.keys(errors).length) return { errors };
      const inbox = (state.inbox?.inbox?.selected_conversation as string | null | undefined) || null;
      return { plan: { name, text: text.replace(/\r\n/g, "\n"), inbox } };
    },
    run: save,
  },
};
