// The inbox: customers' conversations mirrored into Slack threads
// (docs/inbox.md). `inbox on|off` change a channel's inbox (writers only,
// audited); `inbox` lists the inboxes and the conversations waiting for an
// answer. The poller and the thread replies live in the Slack app
// (src/slack/features/inbox/); the shell shows `/sb inbox` as text.
import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { context, count, esc, section, truncate } from "../../blocks/blocks.ts";
import { CHAT_TYPES, overlaps, typesInWords } from "../../domain/inbox-routing.ts";
import {
  type Inbox,
  type InboxFilter,
  type InboxReplies,
  isSnoozed,
  type Thread,
} from "../../store/inbox.ts";
import { optionalTexts } from "../args.ts";
import { errorReply } from "../errors.ts";
import { formReply } from "../forms.ts";
import { findTemplate, quickReplies } from "../rating.ts";
import { type AnySpec, type CommandContext, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import { awaySpec } from "./inbox-away.ts";
import { channelOf, channelRef, inboxOf } from "./inbox-common.ts";
import { dueWords } from "./inbox-report.ts";
import { inboxFormData, targetsInWords, targetsOf } from "./inbox-targets.ts";
import { about, bare, inTopic, listing } from "./shapes.ts";

const command = inTopic("inbox");

const FILTER_WORDS: Record<InboxFilter, string> = {
  all: "every conversation with a new customer message",
  need_human: "only conversations that need a human",
};

/**
 * `rating=<template>`: an approved template with quick-reply buttons (the
 * answers the customer taps), checked now; `none` (or left out): no rating.
 */
async function ratingTemplateOf(typed: string | undefined, ctx: CommandContext): Promise<string | null> {
  const name = typed?.trim();
  if (!name || /^(none|no|off)$/i.test(name)) return null;
  const t = await findTemplate(ctx.api, name);
  if (!t)
    throw new UserError(
      `*rating* \`${esc(name)}\` is not an approved template: \`/sb templates\` lists them; the rating template needs quick-reply buttons (for example “Great”, “OK”, “Poor”).`,
    );
  if (!quickReplies(t).length)
    throw new UserError(
      `*rating* \`${esc(name)}\` has no quick-reply buttons: the customer answers by tapping one (for example “Great”, “OK”, “Poor”), so the rating template needs them.`,
    );
  return String(t.name);
}

/** `every conversation … (Phone chat)` with `; thread replies are notes` when they are. */
function settingsInWords(
  i: Pick<Inbox, "filter" | "types" | "replies"> & Partial<Pick<Inbox, "ratingTemplate" | "away">>,
): string {
  const types = i.types.length ? ` (${typesInWords(i.types)})` : "";
  const replies = i.replies === "notes" ? "; thread replies are notes (send with the card's *Reply*)" : "";
  const rating = i.ratingTemplate
    ? `; on Resolve, the customer is asked for a rating (template ${esc(i.ratingTemplate)})`
    : "";
  const away = i.away === false ? "; no away message" : "";
  return `${FILTER_WORDS[i.filter]}${types}${replies}${rating}${away}`;
}

/** `type=phonechat,chat_web` (or `all`): the chat types, as the API names them. */
function typesOf(typed: string | undefined): string[] {
  if (typed === undefined || typed.trim().toLowerCase() === "all") return [];
  const types = [
    ...new Set(
      typed
        .split(",")
        .map((t) => t.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  const unknown = types.filter((t) => !CHAT_TYPES.includes(t));
  if (unknown.length || !types.length)
    throw new UserError(
      `*type* \`${esc(unknown.join(",") || typed)}\` is not a chat type. Give one or more, separated by commas: ${CHAT_TYPES.map((t) => `\`${t}\` (${typesInWords([t])})`).join(", ")}; or \`all\`.`,
    );
  return types;
}

function repliesOf(typed: string | undefined): InboxReplies {
  const v = typed?.trim().toLowerCase();
  if (v === undefined || v === "send") return "send";
  if (v === "notes" || v === "note") return "notes";
  throw new UserError(
    `*replies* \`${esc(typed ?? "")}\` is not a choice: \`replies=notes\` makes every thread reply a note (send with the card's *Reply*), \`replies=send\` sends them (the default).`,
  );
}

/** Inboxes that take the same conversations: where those go (one inbox each, never two). */
function overlapLines(inboxes: Inbox[]): string[] {
  return overlaps(inboxes).map((o) => {
    const what = `${o.types.length ? `${typesInWords(o.types)} conversations` : "Conversations"}${o.needHuman ? " that need a human" : ""}`;
    const loser = o.winner === o.a ? o.b : o.a;
    return `• ${what} match both ${channelRef(o.a.channel)} and ${channelRef(o.b.channel)}: a new one goes to ${channelRef(o.winner.channel)} only, not ${channelRef(loser.channel)}.`;
  });
}

/** "just now", "5 minutes ago", "3 hours ago", "2 days ago". */
export function ago(at: Date, now: Date): string {
  const s = Math.max(0, Math.round((now.getTime() - at.getTime()) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${count(Math.floor(s / 60), "minute")} ago`;
  if (s < 86_400) return `${count(Math.floor(s / 3600), "hour")} ago`;
  return `${count(Math.floor(s / 86_400), "day")} ago`;
}

/** Slack opens a message (and its thread) from this link. */
export const threadLink = (channel: string, ts: string) =>
  `https://slack.com/archives/${channel}/p${ts.replace(".", "")}`;

/** The desk's states, as the card says them (Open: the customer wrote last). */
const DESK_GROUPS = ["Open", "Waiting for the customer", "Snoozed", "Resolved"] as const;

function deskGroup(t: Thread): (typeof DESK_GROUPS)[number] {
  if (t.deskState === "resolved") return "Resolved";
  // Snoozed: out of the open list until it comes back (issue 29 §3).
  if (isSnoozed(t)) return "Snoozed";
  return t.lastDirection === "outbound" ? "Waiting for the customer" : "Open";
}

/**
 * The conversations by state (Open, Waiting for the customer, Resolved),
 * each with who has it; at most WAITING_SHOWN lines a state.
 */
function deskBlocks(threads: Thread[], now: Date, empty: string): { blocks: KnownBlock[]; summary: string } {
  const blocks: KnownBlock[] = [];
  const counts: string[] = [];
  let i = 0;
  for (const group of DESK_GROUPS) {
    const mine = threads.filter((t) => deskGroup(t) === group);
    if (!mine.length) continue;
    counts.push(`${mine.length} ${group.toLowerCase()}`);
    blocks.push(
      section(
        `*${group}:* ${mine.length > WAITING_SHOWN ? `the ${WAITING_SHOWN} most recent` : count(mine.length, "conversation")}`,
      ),
    );
    for (const t of mine.slice(0, WAITING_SHOWN)) blocks.push(waitingBlock(t, i++, now));
  }
  if (!blocks.length) blocks.push(context(empty));
  return { blocks, summary: counts.length ? counts.join(", ") : empty };
}

function waitingBlock(t: Thread, i: number, now: Date): KnownBlock {
  const name = esc(t.card?.name ?? `Chat user #${t.chatUserId}`);
  const when = t.lastMessageAt ? ago(t.lastMessageAt, now) : "";
  const last = t.lastText ? `\n>${esc(truncate(t.lastText.replace(/\s+/g, " "), 150))}` : "";
  const human = `${t.card?.needHuman ? " · :raising_hand: needs a human" : ""} · ${t.assignee ? `<@${t.assignee}>` : "nobody has it"}${t.due && t.deskState === "open" ? ` · ${dueWords(t.due, now)}` : ""}`;
  return {
    type: "section",
    text: {
      type: "mrkdwn",
      text: `*${name}* in ${channelRef(t.channel)}${when ? ` · ${when}` : ""}${human}${last}`,
    },
    ...(t.threadTs
      ? {
          accessory: {
            type: "button",
            text: { type: "plain_text", text: "Open thread" },
            url: threadLink(t.channel, t.threadTs),
            action_id: `sb_inbox_open:${i}`,
          },
        }
      : {}),
  } as KnownBlock;
}

const WAITING_SHOWN = 10;

const listSpec: AnySpec = command({
  ...listing("inbox"),
  summary: "The inboxes, and the conversations by state, what is due first",
  help: "An inbox mirrors customers' conversations into a channel, one thread per customer; a writer's reply in the thread goes to the customer. `inbox on` turns one on, `inbox off` turns it off.",
  operations: [],
  run: async (_a, ctx): Promise<Reply> => {
    const inbox = inboxOf(ctx);
    const inboxes = await inbox.store.inboxes();
    if (!inboxes.length) {
      const text = "No channel has an inbox.";
      return {
        visibility: "ephemeral",
        text,
        blocks: [
          section(text),
          context(
            "`/sb inbox on` in a channel mirrors customers' conversations there; `need-human` keeps only those that need a human; `type=phonechat` (or `chat_web`, …) only that chat type.",
          ),
        ],
      };
    }
    const now = new Date();
    const desk = deskBlocks(await inbox.store.desk({ limit: DESK_READ }), now, "No conversation yet.");
    const lines: string[] = [];
    for (const i of inboxes) {
      const targets = targetsInWords(await inbox.store.clocks.targets(i.channel), inbox.workClock);
      lines.push(
        `• ${channelRef(i.channel)}: ${settingsInWords(i)} (by <@${i.createdBy}>)${targets ? `\n    Reply targets: ${targets}` : ""}`,
      );
    }
    const blocks: KnownBlock[] = [
      section(`:inbox_tray: *${count(inboxes.length, "inbox", "inboxes")}*\n${lines.join("\n")}`),
    ];
    const overlap = overlapLines(inboxes);
    if (overlap.length)
      blocks.push(
        section(
          `*Overlapping inboxes* (a conversation goes to one: the most specific, with the fewest chat types, then need-human; else the oldest; a conversation stays where its thread is):\n${overlap.join("\n")}`,
        ),
      );
    blocks.push(...desk.blocks);
    return {
      visibility: "ephemeral",
      text: `${count(inboxes.length, "inbox", "inboxes")}; ${desk.summary}`,
      blocks,
    };
  },
});

/** Conversations read for the list (the latest ones; the desk is for the day's work). */
const DESK_READ = 200;

const mineSpec: AnySpec = command({
  ...bare(["inbox", "mine"]),
  summary: "The inbox conversations you have, by state",
  help: "The card's *Assign to me* gives you a conversation; `/sb inbox` lists everyone's.",
  operations: [],
  run: async (_a, ctx): Promise<Reply> => {
    const inbox = inboxOf(ctx);
    const threads = await inbox.store.desk({ assignee: ctx.actor.userId, limit: DESK_READ });
    const desk = deskBlocks(
      threads,
      new Date(),
      "You have no conversation: *Assign to me* on a card takes one.",
    );
    const head = `:inbox_tray: *Your conversations* (${count(threads.length, "conversation")})`;
    return {
      visibility: "ephemeral",
      text: `Your conversations: ${desk.summary}`,
      blocks: [section(head), ...desk.blocks],
    };
  },
});

const onSpec: AnySpec = command({
  words: ["inbox", "on"],
  positionals: [{ name: "channel", optional: true }],
  flags: { "need-human": "only conversations that need a human" },
  options: {
    type: "the chat types it takes, separated by commas (phonechat, chat_web, messenger, slack, telegram); default all",
    replies: "`notes`: every thread reply is a note, sending goes through the card's Reply; default `send`",
    rating:
      "an approved template with quick-reply buttons, sent to the customer on Resolve to ask for a rating; default none",
    first:
      "first-reply target, from the customer's first message to the team's first reply (15m, 1h, 1h30m); default none",
    next: "next-reply target, from a customer message to the next reply (15m, 1h); default none",
    here: "`yes`: a warning shown in the channel (nobody has the conversation) says @here; default `no`",
  },
  schema: z.object({
    channel: z.string().optional(),
    "need-human": z.boolean().optional(),
    ...optionalTexts("type", "replies", "rating", "first", "next", "here"),
  }),
  access: "write",
  usage:
    "inbox on [#channel] [need-human] [type=phonechat,chat_web,…] [replies=notes] [first=15m] [next=1h] [here=yes] [rating=<template>]",
  ...about(
    "Mirror customers' conversations into a channel (default: here), one thread per customer",
    "inbox on type=phonechat",
  ),
  help: "By default every conversation with a new customer message gets a thread; with `need-human`, only those that need a human; with `type=phonechat,chat_web`, only those chat types (web chat and phone chat can go to different channels). A conversation goes to one inbox only: the most specific that matches (fewest chat types, then need-human), else the oldest. A channel has one inbox: running it again sets it as typed. At first, one card for each conversation already unread or needing a human (at most 20). Reply in a thread to answer the customer (writers only); start with `//` or `note:` for an internal note. With `replies=notes` every thread reply is a note, and answers go through the card's *Reply*. Reply targets: `first=15m` (the customer's first message to the first reply), `next=1h` (a customer message to the next reply), counted in the workspace's business hours when set (`/sb settings`); at 80% a warning in the thread naming who has it (also in the channel when nobody has it, with @here when `here=yes`), at 100% a breach line. `/sb inbox on` alone opens the inbox form.",
  operations: [],
  run: async (a, ctx): Promise<Reply> => {
    const inbox = inboxOf(ctx);
    // Alone, in Slack: the inbox form, for this channel.
    const alone = Object.values(a).every((v) => v === undefined);
    if (alone && ctx.actor.via !== "shell")
      return formReply(
        ctx,
        { kind: "inbox", load: () => inboxFormData(inbox, ctx.actor.channelId), instead: "inbox.on" },
        "Opening the inbox form…",
      );
    const channel = channelOf(a.channel, ctx, "inbox on");
    const types = typesOf(a.type);
    const replies = repliesOf(a.replies);
    const ratingTemplate = await ratingTemplateOf(a.rating, ctx);
    const wanted = targetsOf(a);
    if (inbox.join) {
      const joined = await inbox.join(channel);
      if (joined === "invite")
        return errorReply(
          `Switchboard is not in ${channelRef(channel)}, a private channel: invite @Switchboard first (\`/invite @Switchboard\` there), then run \`/sb inbox on\` again. Nothing was changed.`,
        );
      if (joined === "not_found")
        return errorReply(
          `There is no channel ${esc(channel)} that Switchboard can see. Nothing was changed.`,
        );
      if (joined === "unknown")
        return errorReply(
          `Switchboard could not join ${channelRef(channel)}; Slack did not say why. Invite @Switchboard there and try again. Nothing was changed.`,
        );
    }
    const filter: InboxFilter = a["need-human"] ? "need_human" : "all";
    const r = await inbox.store.setInbox(channel, filter, ctx.actor.userId, new Date(), {
      types,
      replies,
      ratingTemplate,
    });
    const t = await inbox.store.clocks.setTargets(channel, wanted, ctx.actor.userId, new Date());
    await ctx.audit(r.created ? "inbox.on" : "inbox.filter", true, {
      channel,
      filter,
      types,
      replies,
      ratingTemplate,
      first: wanted.firstSecs,
      next: wanted.nextSecs,
      here: wanted.here,
    });
    inbox.wake?.();
    const targets = targetsInWords(t.targets, inbox.workClock);
    const settings = `${settingsInWords(r.inbox)}${targets ? `; reply targets: ${targets}` : ""}`;
    const targetsBefore = targetsInWords(t.before, inbox.workClock);
    const lead = r.created
      ? `:inbox_tray: Inbox on in ${channelRef(channel)} (by ${ctx.who}): ${settings}.`
      : r.before &&
          `${settingsInWords(r.before)}${targetsBefore ? `; reply targets: ${targetsBefore}` : ""}` ===
            settings
        ? `:inbox_tray: ${channelRef(channel)} already has this inbox: ${settings}.`
        : `:inbox_tray: The inbox in ${channelRef(channel)} now shows ${settings} (by ${ctx.who}).`;
    const how =
      replies === "notes"
        ? "Every reply in a thread is a note the customer does not see; *Reply* on the card sends to the customer."
        : "A writer's reply in the thread goes to the customer; start with `//` or `note:` for a note the customer does not see.";
    const overlap = overlapLines(await inbox.store.inboxes()).filter((l) => l.includes(channelRef(channel)));
    const notes = [
      r.created ? `Each customer gets one thread here, with a card on top. ${how}` : how,
      ...(overlap.length
        ? [`Overlaps another inbox (a conversation goes to one only):\n${overlap.join("\n")}`]
        : []),
      "`/sb inbox off` stops it.",
    ].join("\n");
    return { visibility: "in_channel", text: lead, blocks: [section(lead), context(notes)] };
  },
});

const offSpec: AnySpec = command({
  words: ["inbox", "off"],
  positionals: [{ name: "channel", optional: true }],
  schema: z.object({ channel: z.string().optional() }),
  access: "write",
  usage: "inbox off [#channel]",
  ...about("Stop mirroring conversations into a channel (default: here)", "inbox off"),
  help: "The threads stay; turning the inbox on again finds them.",
  operations: [],
  run: async (a, ctx): Promise<Reply> => {
    const inbox = inboxOf(ctx);
    const channel = channelOf(a.channel, ctx, "inbox off");
    if (!(await inbox.store.removeInbox(channel)))
      return errorReply(
        `There is no inbox in ${channelRef(channel)}: nothing was changed.`,
        "`/sb inbox` lists the inboxes.",
      );
    // Its reply targets stop: nothing comes due while it is off.
    await inbox.store.clocks.stopAll(channel, new Date());
    await ctx.audit("inbox.off", true, { channel });
    const text = `:inbox_tray: Inbox off in ${channelRef(channel)} (by ${ctx.who}). Its threads stay.`;
    return { visibility: "in_channel", text, blocks: [section(text)] };
  },
});

// `inbox away` between on and off: help lists it, and its example runs, while the inbox is on.
export const INBOX_COMMANDS: AnySpec[] = [listSpec, mineSpec, onSpec, awaySpec, offSpec];
