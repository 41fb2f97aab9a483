// Saved replies (issue 29 §1): a workspace's named texts for answering
// customers, with placeholders from the customer's record ({first_name},
// {last_name}, {name}, {phone}, a custom field by its key, and a fallback:
// `{first_name|there}`), filled by src/domain/saved-reply.ts when used.
// Anyone lists them; writers add, edit and delete them, each change audited.
// Kept per workspace in src/store/saved-replies.ts (schema `saved`).
import { z } from "zod";
import { describeIssues } from "../../api/schemas.ts";
import { context, esc, section } from "../../blocks/blocks.ts";
import { replyPlaceholders, SAVED_REPLY_MAX, savedReplyTooLong } from "../../domain/saved-reply.ts";
import { requiredText } from "../args.ts";
import { errorReply, inputErrorReply } from "../errors.ts";
import { formReply } from "../forms.ts";
import { type CommandContext, UserError } from "../registry.ts";
import { pageReply, show } from "../render.ts";
import type { Reply } from "../types.ts";
import { announce } from "./common.ts";
import { about, inTopic, listing } from "./shapes.ts";

const command = inTopic("inbox");

/** A name people type: one word, or quoted (`"Where is my order"`), up to 60 characters. */
const NAME_MAX = 60;

const nameArg = requiredText("the reply's name").pipe(
  z.string().max(NAME_MAX, { error: `is too long: at most ${NAME_MAX} characters` }),
);
// Its length is checked once the inbox's channel is taken off (savedText).
const textArg = requiredText("what the reply says");

/** The text, refused in words when longer than a saved reply may be (one limit, the forms' too). */
function savedText(text: string): string {
  const long = savedReplyTooLong(text);
  if (long) throw new UserError(`The text ${long}. Nothing was changed.`);
  return text;
}

function savedOf(ctx: CommandContext) {
  if (!ctx.inbox) throw new UserError("Saved replies are not set up in this Switchboard.", false);
  return ctx.inbox.savedReplies;
}

/**
 * A text that starts with a channel (`#support`: Slack's `<#C…|support>`, or
 * its id in the shell) belongs to that channel's inbox; the rest is the text.
 * A channel that has no inbox is refused.
 */
async function inboxAndText(
  ctx: CommandContext,
  typed: string,
): Promise<{ inbox: string | null; text: string }> {
  // Slack's `<#C…|name>` reaches the command as the bare id; an id has a digit (a word like "CAN" is text).
  const m = /^#?([CG](?=[A-Z0-9]*\d)[A-Z0-9]{2,})\s+([\s\S]+)$/.exec(typed.trim());
  if (!m) return { inbox: null, text: typed };
  const inbox = m[1] as string;
  if (!(await ctx.inbox?.store.inbox(inbox)))
    throw new UserError(
      `<#${inbox}> has no inbox: a saved reply can belong to an inbox's channel, or to every inbox (name no channel). Nothing was changed.`,
    );
  return { inbox, text: m[2] as string };
}

/**
 * `reply add` alone and `reply edit <name>` alone open the saved reply form in
 * Slack (a text on several lines); typed in full, or in the shell, the
 * command's own arguments are required as before.
 */
const strictArgs = z.object({ name: nameArg, text: textArg });

function missingArgs(ctx: CommandContext, id: string, a: Record<string, unknown>): Reply | undefined {
  const parsed = strictArgs.safeParse(a);
  const spec = ctx.registry.get(id);
  if (parsed.success || !spec) return undefined;
  return inputErrorReply(spec, describeIssues(parsed.error, a), ctx.line);
}

const inboxWords = (inbox: string | null) =>
  inbox ? `Offered in <#${inbox}>'s conversations only.` : "Offered in every inbox.";

/** What the placeholders of a text are, in words, for the answer. */
function placeholdersLine(text: string): string {
  const names = replyPlaceholders(text);
  return names.length
    ? `Filled from the customer's record: ${names.map((n) => `\`{${esc(n)}}\``).join(", ")}.`
    : "No placeholders: every customer reads it as written. `{first_name|there}` puts in the first name, or “there”.";
}

const quoted = (text: string) => `>${esc(show(text, 1500)).replace(/\n/g, "\n>")}`;

function changed(ctx: CommandContext, text: string, reply: string, inbox: string | null): Reply {
  const r = announce(ctx, text);
  r.blocks = [
    section(text),
    section(quoted(reply)),
    context(`${placeholdersLine(reply)} ${inboxWords(inbox)}`),
  ];
  return r;
}

export const REPLY_COMMANDS = [
  command({
    ...listing("replies"),
    summary: "The saved replies for answering customers",
    help: "A saved reply's text can hold placeholders from the customer's record: `{first_name}`, `{last_name}`, `{name}`, `{phone}`, a custom field by its key (`{order_id}`), and a fallback when there is no value: `{first_name|there}`.",
    operations: [],
    run: async (_a, ctx) => {
      const items = (await savedOf(ctx).list()).map((r) => ({ name: r.name, text: r.text, inbox: r.inbox }));
      return pageReply({
        title: "Saved replies",
        one: "saved reply",
        plural: "saved replies",
        page: { items, page: 1, limit: Math.max(1, items.length), total: items.length },
        line: (r) =>
          `*${esc(String(r.name))}*${r.inbox ? ` (<#${r.inbox}> only)` : ""} · ${esc(show(String(r.text).replace(/\s+/g, " "), 120))}`,
        empty:
          "No saved reply yet: `/sb reply add thanks Thank you {first_name|there}!` saves one (writers only).",
      });
    },
  }),
  command({
    words: ["reply", "add"],
    positionals: [{ name: "name" }, { name: "text", rest: "text" }],
    schema: z.object({ name: nameArg.optional(), text: textArg.optional() }),
    access: "write",
    usage: "reply add <name> [#inbox-channel] <text…>",
    ...about(
      "Save a reply for answering customers (placeholders: {first_name|there}…)",
      "reply add thanks Thank you {first_name|there}, your order is on its way.",
    ),
    help: `The name is one word, or quoted. Placeholders come from the customer's record: \`{first_name}\`, \`{last_name}\`, \`{name}\`, \`{phone}\`, a custom field by its key; \`{first_name|there}\` says “there” when there is no first name. A channel before the text (\`#support\`) offers it in that inbox only. The text is at most ${SAVED_REPLY_MAX.toLocaleString("en-US")} characters (the most a Slack form holds). \`/sb reply add\` alone opens the saved reply form (a text on several lines).`,
    operations: [],
    run: async (a, ctx) => {
      const saved = savedOf(ctx);
      if (a.name === undefined && a.text === undefined && ctx.actor.via !== "shell")
        return formReply(
          ctx,
          { kind: "saved-reply-edit", load: async () => ({}), instead: "reply.add" },
          "Opening the saved reply form…",
        );
      if (a.name === undefined || a.text === undefined) return missingArgs(ctx, "reply.add", a) as Reply;
      const { inbox, text } = await inboxAndText(ctx, a.text);
      savedText(text);
      if (!(await saved.add(a.name, text, ctx.actor.userId, new Date(), inbox))) {
        const name = esc((await saved.get(a.name))?.name ?? a.name);
        return errorReply(
          `There is a saved reply called *${name}* already: nothing was changed.`,
          `\`/sb reply edit ${name}\` followed by the new text changes it.`,
        );
      }
      await ctx.audit("reply.add", true, { name: a.name, inbox });
      return changed(ctx, `Saved reply *${esc(a.name)}* added.`, text, inbox);
    },
  }),
  command({
    words: ["reply", "edit"],
    positionals: [{ name: "name" }, { name: "text", rest: "text" }],
    schema: z.object({ name: nameArg, text: textArg.optional() }),
    access: "write",
    usage: "reply edit <name> [#inbox-channel] <text…>",
    ...about("Change a saved reply's text", "reply edit thanks Thanks {first_name|there}! It ships today."),
    help: "`/sb reply edit <name>` alone opens the saved reply form with its text (on several lines) and inbox.",
    operations: [],
    run: async (a, ctx) => {
      const saved = savedOf(ctx);
      if (a.text === undefined) {
        if (ctx.actor.via === "shell") return missingArgs(ctx, "reply.edit", a) as Reply;
        const found = await saved.get(a.name);
        if (!found) return unknownReply(a.name);
        // One saved before the limit was one may not fit the form's field: its new text is typed instead.
        const long = savedReplyTooLong(found.text);
        if (long)
          return errorReply(
            `The saved reply *${esc(found.name)}* ${long}, so it cannot open in the form.`,
            `Type a shorter text: \`/sb reply edit ${esc(found.name)} ${esc("<text…>")}\`.`,
          );
        const reply = { name: found.name, text: found.text, inbox: found.inbox };
        return formReply(
          ctx,
          { kind: "saved-reply-edit", load: async () => ({ reply }), instead: "reply.edit" },
          "Opening the saved reply form…",
        );
      }
      const { inbox, text } = await inboxAndText(ctx, a.text);
      savedText(text);
      const before = await saved.edit(a.name, text, ctx.actor.userId, new Date(), inbox);
      if (before === undefined) return unknownReply(a.name);
      const name = (await saved.get(a.name))?.name ?? a.name;
      await ctx.audit("reply.edit", true, { name, inbox });
      return changed(ctx, `Saved reply *${esc(name)}* changed.`, text, inbox);
    },
  }),
  command({
    words: ["reply", "delete"],
    positionals: [{ name: "name", rest: "text" }],
    schema: z.object({ name: nameArg }),
    access: "write",
    usage: "reply delete <name>",
    ...about("Delete a saved reply", "reply delete thanks"),
    operations: [],
    run: async (a, ctx) => {
      const removed = await savedOf(ctx).remove(a.name);
      if (!removed) return unknownReply(a.name);
      await ctx.audit("reply.delete", true, { name: removed.name });
      const text = `Saved reply *${esc(removed.name)}* deleted.`;
      const r = announce(ctx, text);
      r.blocks = [section(text), section(quoted(removed.text))];
      return r;
    },
  }),
];

function unknownReply(name: string): Reply {
  return errorReply(
    `There is no saved reply called *${esc(name)}*: nothing was changed.`,
    "`/sb replies` lists them.",
  );
}
