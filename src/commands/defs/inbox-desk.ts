// The inbox as a desk (issue 20, docs/inbox.md): who has a conversation and
// whether it is resolved, kept by Switchboard per thread (the API has no such
// state). The card's buttons run these (src/slack/listeners/actions/inbox.ts),
// so a click and a typed command are one path: writers only, each change
// audited. Not listed in help: the card's buttons are the way in (a typed
// line needs the channel and the chat user's number). `assign me` is one statement that only takes a thread nobody has:
// of two people clicking at once, one gets it, the other is told who has it.
import { z } from "zod";
import { esc, section } from "../../blocks/blocks.ts";
import { snoozeEnd } from "../../domain/snooze-time.ts";
import { apiErrorReply, errorReply } from "../errors.ts";
import type { InboxDeps } from "../inbox.ts";
import { askRating } from "../rating.ts";
import { type AnySpec, type CommandContext, type Positional, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import { about, inTopic } from "./shapes.ts";

const command = inTopic("inbox");

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

async function changed(inbox: InboxDeps, channel: string, chatUserId: number, text: string): Promise<Reply> {
  await inbox.redraw?.(channel, chatUserId);
  return { visibility: "ephemeral", text, blocks: [section(text)] };
}

const target = z.object({ channel: z.string(), user: z.string() });
const positionals: Positional[] = [{ name: "channel" }, { name: "user" }];

type Desk = Awaited<ReturnType<typeof threadOf>> & { name: string };

/**
 * `inbox <word> <#channel> <chat user> …`: writers only, not in help (the
 * card's buttons run it), on the conversation the line names.
 */
function deskCommand<A extends { channel: string; user: string }>(spec: {
  word: string;
  positionals?: Positional[];
  options?: Record<string, string>;
  schema: z.ZodType<A>;
  usage: string;
  summary: string;
  help: string;
  example: string;
  run: (a: A, ctx: CommandContext, desk: Desk) => Promise<Reply>;
}): AnySpec {
  const { word, run, ...rest } = spec;
  return command({
    id: `inbox.${word}`,
    words: ["inbox", word],
    positionals,
    ...rest,
    access: "write",
    operations: [],
    hidden: true,
    run: async (a, ctx) => {
      const t = await threadOf(a, ctx);
      return run(a, ctx, { ...t, name: nameOf(t.thread) });
    },
  });
}

const assignSpec = deskCommand({
  word: "assign",
  positionals: [...positionals, { name: "person", optional: true }],
  schema: target.extend({ person: z.string().optional() }),
  usage: "inbox assign <#channel> <chat user> [me|@person|nobody]",
  ...about("Give an inbox conversation to someone (default: you)", "inbox assign C0123ABCD 42 me"),
  help: "`me` takes it only if nobody has it; naming someone gives it to them whoever had it; `nobody` lets go. The card shows who has it.",
  run: async (a, ctx, { inbox, thread, channel, chatUserId, name }): Promise<Reply> => {
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
  return deskCommand({
    word,
    schema: target,
    usage: `inbox ${word} <#channel> <chat user>`,
    summary:
      state === "resolved"
        ? "Mark an inbox conversation done (a new customer message reopens it)"
        : "Open a resolved inbox conversation again",
    help: "The card shows the state: Open, Waiting for the customer, Resolved.",
    example: `inbox ${word} C0123ABCD 42`,
    run: async (_a, ctx, { inbox, thread, channel, chatUserId, name }): Promise<Reply> => {
      const now = inbox.now?.() ?? new Date();
      if (!(await inbox.store.setDeskState(channel, chatUserId, state, ctx.actor.userId, now)))
        return errorReply(
          `The conversation with ${name} is ${state === "resolved" ? "resolved" : "open"} already: nothing was changed.`,
        );
      await ctx.audit(`inbox.${word}`, true, { channel, chatUserId, customer: thread.card?.name });
      // Resolved: the inbox's rating template, when it has one, asks the customer (issue 29 §4).
      const rating =
        state === "resolved"
          ? await askRating(ctx.api, inbox, ctx.actor, {
              channel,
              chatUserId,
              channelId: thread.card?.channelId ?? ctx.defaultChannelId ?? 1,
              now,
            }).catch((err) => `No rating was asked: ${apiErrorReply(err).text}`)
          : undefined;
      return changed(
        inbox,
        channel,
        chatUserId,
        `The conversation with ${name} is ${state === "resolved" ? "resolved" : "open again"} (by ${ctx.who}).${rating ? ` ${rating}` : ""}`,
      );
    },
  });
}

/** "Tue 1 Dec, 09:00" in the zone, for the shell and the answer's fallback. */
const whenInWords = (at: Date, zone: string) =>
  `${at.toLocaleString("en-GB", { timeZone: zone, weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit" })}${zone === "UTC" ? " UTC" : ""}`;

/** A Slack date (each reader's zone), with the words as its fallback. */
const slackDate = (at: Date, zone: string) =>
  `<!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} {time}|${whenInWords(at, zone)}>`;

const snoozeSpec = deskCommand({
  word: "snooze",
  options: {
    until:
      "`1h` (or `30m`, `2d`), `tomorrow` (9:00), `monday` (next Monday 9:00), a time (`17:00`, `2026-12-01 14:30`) in your zone, or `reply` (until the customer writes, the default)",
  },
  schema: target.extend({ until: z.string().optional() }),
  usage: "inbox snooze <#channel> <chat user> [until=<time>|until=reply]",
  ...about(
    "Put an open inbox conversation aside until a time, or until the customer writes",
    "inbox snooze C0123ABCD 42 until=tomorrow",
  ),
  help: "A snoozed conversation leaves the open list; it comes back at that time (the card updated, whoever has it told in the thread), or at once when the customer writes. The card's *Snooze…* does it for you.",
  run: async (a, ctx, { inbox, thread, channel, chatUserId, name }): Promise<Reply> => {
    const now = inbox.now?.() ?? new Date();
    const zone = (await inbox.userTz?.(ctx.actor).catch(() => undefined)) ?? "UTC";
    const until = snoozeEnd(a.until ?? "reply", now, zone);
    if (!until)
      throw new UserError(
        `*until* \`${esc(a.until ?? "")}\` is not a time: give \`1h\`, \`tomorrow\`, \`monday\`, a time such as \`17:00\` or \`2026-12-01 14:30\` (your zone), or \`reply\` (until the customer writes).`,
      );
    if (until !== "reply" && until.getTime() <= now.getTime())
      throw new UserError(`*until* ${whenInWords(until, zone)} has passed: give a time to come.`);
    if (thread.deskState === "resolved")
      return errorReply(
        `The conversation with ${name} is resolved: only an open one can be snoozed. Nothing was changed.`,
      );
    if (!(await inbox.store.snooze(channel, chatUserId, until, ctx.actor.userId, now)))
      return errorReply(
        `The conversation with ${name} could not be snoozed: it is no longer open. Nothing was changed.`,
      );
    await ctx.audit("inbox.snooze", true, {
      channel,
      chatUserId,
      customer: thread.card?.name,
      until: until === "reply" ? "reply" : until.toISOString(),
    });
    const when = until === "reply" ? "the customer writes" : slackDate(until, zone);
    return changed(
      inbox,
      channel,
      chatUserId,
      `:zzz: The conversation with ${name} is snoozed until ${when} (by ${ctx.who}); it comes back at once if the customer writes.`,
    );
  },
});

const wakeSpec = deskCommand({
  word: "wake",
  schema: target,
  usage: "inbox wake <#channel> <chat user>",
  ...about("Bring a snoozed inbox conversation back now", "inbox wake C0123ABCD 42"),
  help: "The card's *Wake up* does it for you.",
  run: async (_a, ctx, { inbox, thread, channel, chatUserId, name }): Promise<Reply> => {
    if (!(await inbox.store.unsnooze(channel, chatUserId)))
      return errorReply(`The conversation with ${name} is not snoozed: nothing was changed.`);
    await ctx.audit("inbox.wake", true, { channel, chatUserId, customer: thread.card?.name });
    return changed(inbox, channel, chatUserId, `The conversation with ${name} is back (by ${ctx.who}).`);
  },
});

export const INBOX_DESK_COMMANDS: AnySpec[] = [
  assignSpec,
  stateSpec("resolved"),
  stateSpec("open"),
  snoozeSpec,
  wakeSpec,
];
