// The inbox as a desk (issue 20, docs/inbox.md): who has a conversation and
// whether it is resolved, kept by Switchboard per thread (the API has no such
// state). The card's buttons run these (src/slack/listeners/actions/inbox.ts),
// so a click and a typed command are one path: writers only, each change
// audited. Not listed in help: the card's buttons are the way in (a typed
// line needs the channel and the chat user's number). `assign me` is one statement that only takes a thread nobody has:
// of two people clicking at once, one gets it, the other is told who has it.
import { z } from "zod";
import { esc, section } from "../../blocks/blocks.ts";
import { errorReply } from "../errors.ts";
import type { InboxAccess } from "../inbox.ts";
import { type AnySpec, type CommandContext, defineCommand, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";

const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const USER_ID = /^<?@?([UW][A-Z0-9]{2,})(\|[^>]*)?>?$/;

const who = (userId: string) => `<@${userId}>`;

async function threadOf(a: { channel: string; user: string }, ctx: CommandContext) {
  if (!ctx.inbox) throw new UserError("The inbox is not set up in this Switchboard.", false);
  const channel = a.channel.replace(/^#/, "");
  const chatUserId = Number(a.user);
  if (!CHANNEL_ID.test(channel) || !Number.isSafeInteger(chatUserId) || chatUserId <= 0)
    throw new UserError(
      "Name the conversation by its inbox channel and chat user, for example `inbox resolve C0123ABCD 42`; the card's buttons do it for you.",
    );
  const thread = await ctx.inbox.store.thread(channel, chatUserId);
  if (!thread?.threadTs)
    throw new UserError(`There is no conversation of chat user ${chatUserId} in <#${channel}>.`);
  return { inbox: ctx.inbox, thread, channel, chatUserId };
}

const nameOf = (t: { card: { name: string } | null; chatUserId: number }) =>
  esc(t.card?.name ?? `chat user #${t.chatUserId}`);

async function changed(
  inbox: InboxAccess,
  channel: string,
  chatUserId: number,
  text: string,
): Promise<Reply> {
  await inbox.redraw?.(channel, chatUserId);
  return { visibility: "ephemeral", text, blocks: [section(text)] };
}

const target = z.object({ channel: z.string(), user: z.string() });
const positionals = [{ name: "channel" }, { name: "user" }];

const assignSpec: AnySpec = defineCommand({
  id: "inbox.assign",
  words: ["inbox", "assign"],
  positionals: [...positionals, { name: "person", optional: true }],
  schema: target.extend({ person: z.string().optional() }),
  scope: "write",
  usage: "inbox assign <#channel> <chat user> [me|@person|nobody]",
  summary: "Give an inbox conversation to someone (default: you)",
  help: "`me` takes it only if nobody has it; naming someone gives it to them whoever had it; `nobody` lets go. The card shows who has it.",
  example: "inbox assign C0123ABCD 42 me",
  topic: "inbox",
  operations: [],
  hidden: true,
  run: async (a, ctx): Promise<Reply> => {
    const { inbox, thread, channel, chatUserId } = await threadOf(a, ctx);
    const name = nameOf(thread);
    const typed = (a.person ?? "me").trim();
    const now = new Date();
    if (/^(nobody|none)$/i.test(typed)) {
      if (!(await inbox.store.unassign(channel, chatUserId, ctx.actor.userId, now)))
        return errorReply(`Nobody has the conversation with ${name}: nothing was changed.`);
      await ctx.audit("inbox.unassign", true, { channel, chatUserId, customer: thread.card?.name });
      return changed(inbox, channel, chatUserId, `Nobody has the conversation with ${name} now.`);
    }
    const me = /^me$/i.test(typed);
    const person = me ? ctx.actor.userId : USER_ID.exec(typed)?.[1];
    if (!person)
      throw new UserError(`*person* \`${esc(typed)}\` is not a person: type @ and pick them, or \`me\`.`);
    const r = await inbox.store.assign(channel, chatUserId, person, ctx.actor.userId, now, me);
    if (!r.changed)
      return r.holder === person
        ? errorReply(`${who(person)} already has the conversation with ${name}: nothing was changed.`)
        : errorReply(
            `${r.holder ? who(r.holder) : "Someone"} has the conversation with ${name} already: nothing was changed.`,
            "Pick yourself in the card's list to take it over.",
          );
    await ctx.audit("inbox.assign", true, {
      channel,
      chatUserId,
      assignee: person,
      customer: thread.card?.name,
    });
    return changed(
      inbox,
      channel,
      chatUserId,
      `${person === ctx.actor.userId ? "You have" : `${who(person)} has`} the conversation with ${name} (by ${ctx.who}).`,
    );
  },
});

function stateSpec(state: "resolved" | "open"): AnySpec {
  const word = state === "resolved" ? "resolve" : "reopen";
  return defineCommand({
    id: `inbox.${word}`,
    words: ["inbox", word],
    positionals,
    schema: target,
    scope: "write",
    usage: `inbox ${word} <#channel> <chat user>`,
    summary:
      state === "resolved"
        ? "Mark an inbox conversation done (a new customer message reopens it)"
        : "Open a resolved inbox conversation again",
    help: "The card shows the state: Open, Waiting for the customer, Resolved.",
    example: `inbox ${word} C0123ABCD 42`,
    topic: "inbox",
    operations: [],
    hidden: true,
    run: async (a, ctx): Promise<Reply> => {
      const { inbox, thread, channel, chatUserId } = await threadOf(a, ctx);
      const name = nameOf(thread);
      if (!(await inbox.store.setDeskState(channel, chatUserId, state, ctx.actor.userId, new Date())))
        return errorReply(
          `The conversation with ${name} is ${state === "resolved" ? "resolved" : "open"} already: nothing was changed.`,
        );
      await ctx.audit(`inbox.${word}`, true, { channel, chatUserId, customer: thread.card?.name });
      return changed(
        inbox,
        channel,
        chatUserId,
        `The conversation with ${name} is ${state === "resolved" ? "resolved" : "open again"} (by ${ctx.who}).`,
      );
    },
  });
}

export const INBOX_DESK_COMMANDS: AnySpec[] = [assignSpec, stateSpec("resolved"), stateSpec("open")];
