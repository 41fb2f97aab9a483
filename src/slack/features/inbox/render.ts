// What an inbox shows in Slack: the thread's parent card (who, where, whether
// a human is needed, tags, buttons) and one reply per message. Everything a
// customer wrote (text, name, file links) goes through esc(): a customer
// writing `<!channel>` pings nobody.
import type { KnownBlock } from "@slack/types";
import { type Direction, messageCaption, messageFileName, messageMediaUrl } from "../../../api/inbox.ts";
import type { Message } from "../../../api/types.ts";
import { ACTION } from "../../../blocks/actions.ts";
import { actions, context, esc, section, truncate } from "../../../blocks/blocks.ts";
import { durationWords } from "../../../domain/business-hours.ts";
import { chatTypeLabel } from "../../../domain/chat-types.ts";
import type { TargetNotice } from "../../../inbox/io.ts";
import {
  type CardState,
  type DeskState,
  REPLY_WINDOW_MS,
  type ThreadDesk,
  type ThreadDue,
} from "../../../store/inbox.ts";
import { storable } from "../../../store/text.ts";

/** Slack message metadata: how a post is found again after a crash (docs/inbox.md). */
export const CARD_EVENT = "switchboard_inbox_card";
export const MESSAGE_EVENT = "switchboard_inbox_message";
/** A customer's text longer than this (escaped) is posted in several replies. */
export const PART_CHARS = 2800;

export const channelTypeLabel = (type: string | undefined) =>
  type ? esc(chatTypeLabel(type)) : "unknown channel";

/** A time in each reader's zone; the fallback (shell, notifications) is UTC. */
export function timeOf(at: Date): string {
  const fallback = `${at.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return `<!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} {time}|${fallback}>`;
}

/** The desk part of a card (issue 20): state, who has it, the 24-hour window. */
export interface DeskView {
  state: DeskState;
  assignee: string | null;
  /** The customer's last message: free text reaches them until 24 hours after it. */
  customerWroteAt: Date | null;
  /** Now, to tell whether the window is closed (an open one is shown as a Slack date: no redraw). */
  now: Date;
  /** Snoozed (issue 29 §3): until a time, or until the customer writes (`reply`); by whom. */
  snooze?: { until: Date | "reply"; by: string | null };
  /** The customer's rating after Resolve (issue 29 §4). */
  rating?: string;
  /** The reply target running (issue 29 §2): when a reply is due, shown as a Slack date (no countdown), or missed. */
  due?: ThreadDue | null;
}

export const deskOf = (t: ThreadDesk, now: Date): DeskView => ({
  state: t.deskState,
  assignee: t.assignee,
  customerWroteAt: t.customerWroteAt,
  now,
  ...(t.snoozeUntilReply || t.snoozedUntil
    ? { snooze: { until: t.snoozeUntilReply ? "reply" : (t.snoozedUntil as Date), by: t.snoozedBy ?? null } }
    : {}),
  ...(t.rating ? { rating: t.rating } : {}),
  ...(t.due ? { due: t.due } : {}),
});

/** The snooze choices of the card's menu (the value is what `inbox snooze … until=` takes). */
export const SNOOZE_CHOICES: ReadonlyArray<{ text: string; value: string }> = [
  { text: "For 1 hour", value: "1h" },
  { text: "Until tomorrow 9:00", value: "tomorrow" },
  { text: "Until next Monday 9:00", value: "monday" },
  { text: "Until the customer writes", value: "reply" },
  { text: "Until a time you choose…", value: "pick" },
];

/** "Snoozed until <date> by @ana" (each reader's zone), or until the customer writes. */
export function snoozeLine(s: NonNullable<DeskView["snooze"]>): string {
  const by = s.by ? ` by <@${s.by}>` : "";
  return s.until === "reply"
    ? `:zzz: *Snoozed until the customer writes*${by}`
    : `:zzz: *Snoozed until ${timeOf(s.until)}*${by}`;
}

/** A time in each reader's zone, the time first: "14:05 today" (fallback in UTC). */
export function dueTimeOf(at: Date): string {
  const fallback = `${at.toISOString().slice(11, 16)} UTC ${at.toISOString().slice(0, 10)}`;
  return `<!date^${Math.floor(at.getTime() / 1000)}^{time} {date_short_pretty}|${fallback}>`;
}

const TARGET_NAME = { first: "first reply", next: "next reply" } as const;

/** The card's target line: "Reply due by 14:05 today", or the target missed (the one redraw it makes). */
export function dueLine(due: ThreadDue): string {
  return due.missed
    ? `:rotating_light: *Reply target missed*: a ${TARGET_NAME[due.kind]} was due by ${dueTimeOf(due.at)}`
    : `:alarm_clock: Reply due by ${dueTimeOf(due.at)} (${TARGET_NAME[due.kind]})`;
}

/**
 * A reply target's warning (80%) or breach (100%) in the thread: who has it
 * (named, so told), else that nobody has it (the warning then also shown in
 * the channel, with @here when the inbox asked for it).
 */
export function targetNoticeMessage(n: TargetNotice): { text: string; blocks: KnownBlock[] } {
  const name = esc(storable(n.name));
  const target = `${TARGET_NAME[n.kind]} target, ${durationWords(n.targetSecs)}`;
  const who = n.holder ? `<@${n.holder}> has it.` : "Nobody has it yet: *Assign to me* on the card takes it.";
  const here = n.here ? "<!here> " : "";
  const text =
    n.what === "warning"
      ? `${here}:hourglass_flowing_sand: ${name} is waiting: a reply is due by ${dueTimeOf(n.dueAt)} (${target}). ${who}`
      : `:rotating_light: ${capital(TARGET_NAME[n.kind])} target missed: ${name} has waited since ${dueTimeOf(n.startedAt)} (${target}, due by ${dueTimeOf(n.dueAt)}). ${who}`;
  return { text, blocks: [section(text)] };
}

const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Whether free text can reach the customer: unknown (no customer message seen) counts as open. */
export const windowOpen = (customerWroteAt: Date | null, now: Date): boolean =>
  !customerWroteAt || now.getTime() - customerWroteAt.getTime() < REPLY_WINDOW_MS;

export const WINDOW_CLOSED = "Window closed: only a template can start the conversation again";

/** The state as people say it: Open, Waiting for the customer (answered last), Resolved. */
export function deskStateLabel(state: DeskState, answered: boolean): string {
  if (state === "resolved") return "Resolved";
  return answered ? "Waiting for the customer" : "Open";
}

function deskBlocks(
  chatUserId: number,
  s: CardState,
  d: DeskView,
): { line: KnownBlock; buttons: KnownBlock } {
  const label = deskStateLabel(d.state, s.answered);
  const icon =
    d.state === "resolved" ? ":white_check_mark:" : s.answered ? ":hourglass:" : ":large_green_circle:";
  const who = d.assignee ? `Assigned to <@${d.assignee}>` : "Nobody has it yet";
  const open = windowOpen(d.customerWroteAt, d.now);
  const window = !d.customerWroteAt
    ? ""
    : open
      ? `:stopwatch: Reply window open until ${timeOf(new Date(d.customerWroteAt.getTime() + REPLY_WINDOW_MS))}`
      : `:lock: ${WINDOW_CLOSED}`;
  const id = String(chatUserId);
  // The buttons follow the state: nobody has it, Assign to me; someone has it, Unassign;
  // the person list either way; resolved, Reopen only (a resolved conversation is nobody's task).
  const select = {
    type: "users_select",
    action_id: ACTION.inboxAssign,
    placeholder: { type: "plain_text", text: d.assignee ? "Reassign to…" : "Assign to…" },
    ...(d.assignee ? { initial_user: d.assignee } : {}),
  };
  const desk =
    d.state === "resolved"
      ? (actions([{ text: "Reopen", actionId: ACTION.inboxReopen, value: id }]) as { elements: unknown[] })
      : (actions([
          d.assignee
            ? { text: "Unassign", actionId: ACTION.inboxUnassign, value: id }
            : { text: "Assign to me", actionId: ACTION.inboxAssignMe, value: id },
          { text: "Resolve", actionId: ACTION.inboxResolve, value: id },
          ...(d.snooze ? [{ text: "Wake up", actionId: ACTION.inboxWake, value: id }] : []),
        ]) as { elements: unknown[] });
  if (d.state !== "resolved") desk.elements.splice(1, 0, select);
  // Snooze… only while open and not snoozed (a snoozed one shows Wake up instead).
  if (d.state !== "resolved" && !d.snooze)
    desk.elements.push({
      type: "static_select",
      action_id: ACTION.inboxSnooze,
      placeholder: { type: "plain_text", text: "Snooze…" },
      options: SNOOZE_CHOICES.map((c) => ({ text: { type: "plain_text", text: c.text }, value: c.value })),
    });
  // Snoozed: said instead of the state ("Snoozed until Tue 09:00 by @ana"); rated: under it.
  const head = d.snooze && d.state !== "resolved" ? snoozeLine(d.snooze) : `${icon} *${label}*`;
  const rated = d.rating ? `\n:star: Rated: *${esc(storable(d.rating))}*` : "";
  // A reply target: shown while open and awake (a date, no countdown); its miss is the one redraw it makes.
  const due = d.due && d.state === "open" && !d.snooze ? `\n${dueLine(d.due)}` : "";
  return {
    line: section(`${head} · ${who}${due}${window ? `\n${window}` : ""}${rated}`),
    buttons: { ...desk, block_id: `sb_inbox_desk:${id}` } as KnownBlock,
  };
}

export function cardMessage(
  chatUserId: number,
  card: CardState,
  desk?: DeskView,
): { text: string; blocks: KnownBlock[] } {
  const s: CardState = {
    ...card,
    name: storable(card.name),
    ...(card.contact ? { contact: storable(card.contact) } : {}),
    tags: card.tags.map(storable),
  };
  const who = `*${esc(s.name)}*${s.contact ? ` · ${esc(s.contact)}` : ""}`;
  const state = s.needHuman
    ? ":raising_hand: *Needs a human*"
    : s.answered
      ? ":white_check_mark: Answered"
      : ":speech_balloon: Waiting for an answer";
  const facts = [channelTypeLabel(s.type)];
  // With the desk, its line says open/waiting/resolved; a need for a human is still told here.
  if (!desk || s.needHuman) facts.push(state);
  if (s.tags.length) facts.push(`Tags: ${s.tags.map(esc).join(", ")}`);
  if (s.lastActivity) facts.push(`Last activity ${timeOf(new Date(s.lastActivity))}`);
  const contactLine = s.contactId ? `contact ${s.contactId}` : `user ${chatUserId}`;
  // Window closed: a template is the only way to reach them, so it is the primary button.
  const closed = desk ? !windowOpen(desk.customerWroteAt, desk.now) : false;
  const d = desk ? deskBlocks(chatUserId, s, desk) : undefined;
  return {
    text: `Conversation with ${esc(s.name)}${s.contact ? ` (${esc(s.contact)})` : ""}${s.needHuman ? ": needs a human" : ""}`,
    blocks: [
      section(`:incoming_envelope: ${who}`),
      context(facts.join("  ·  ")),
      ...(d ? [d.line] : []),
      actions([
        {
          text: "Reply",
          actionId: ACTION.inboxReply,
          value: String(chatUserId),
          ...(closed ? {} : { style: "primary" as const }),
        },
        {
          text: "Send template",
          actionId: ACTION.inboxTemplate,
          value: String(chatUserId),
          ...(closed ? { style: "primary" as const } : {}),
        },
        ...(desk ? [{ text: "Saved reply…", actionId: ACTION.inboxSaved, value: String(chatUserId) }] : []),
        { text: "Contact", actionId: ACTION.run, value: contactLine },
      ]),
      ...(d ? [d.buttons] : []),
      context(
        closed
          ? "A thread reply cannot reach the customer until they write again: use Send template. Start with `//` or `note:` for a note the customer does not see."
          : "Reply in this thread to answer the customer; start with `//` or `note:` for a note the customer does not see.",
      ),
    ],
  };
}

/** Said in the thread when a customer writes in a resolved conversation. */
export function reopenedMessage(name: string): { text: string; blocks: KnownBlock[] } {
  const text = `:leftwards_arrow_with_hook: Reopened: ${esc(storable(name))} wrote again.`;
  return { text, blocks: [context(text)] };
}

/** Said in the thread when a snoozed conversation is back (its time came, or the customer wrote). */
export function wokenMessage(
  name: string,
  tell: string | null,
  why: "time" | "customer",
): { text: string; blocks: KnownBlock[] } {
  const who = tell ? `<@${tell}>, ` : "";
  const text =
    why === "time"
      ? `:alarm_clock: ${who}the conversation with ${esc(storable(name))} is back from its snooze.`
      : `:alarm_clock: ${who}${esc(storable(name))} wrote: the conversation is back from its snooze.`;
  return { text, blocks: [section(text)] };
}

export interface MirroredMessage {
  direction: "inbound" | "outbound" | undefined;
  at: Date | undefined;
  text: string;
  type?: string;
  mediaUrl?: string;
  /** A document's file name, shown as its link's label. */
  fileName?: string;
  /** An outgoing message Switchboard sent (the send form, `/sb send`, a thread reply, a campaign's test): who sent it. */
  sentBy?: { userId: string; via?: string; campaign?: { name: string } };
}

/**
 * Who sent an outgoing message: the person who sent it with Switchboard ("Test
 * of *Spring sale* by @ana" for a campaign's test), else "sent from elsewhere".
 */
export function outgoingLabel(sentBy: MirroredMessage["sentBy"]): { line: string; text: string } {
  if (!sentBy) return { line: ":outbox_tray: *Outgoing* (sent from elsewhere)", text: "Outgoing" };
  // The away message (issue 40 §1): Switchboard's own, no person's.
  if (sentBy.via === "away")
    return { line: ":zzz: *Away message sent* by Switchboard", text: "Away message sent by Switchboard" };
  const person = /^[UW][A-Z0-9]{2,}$/.test(sentBy.userId);
  if (sentBy.campaign) {
    const name = storable(sentBy.campaign.name) || "a campaign";
    const by = person ? `by <@${sentBy.userId}>` : "from Switchboard's shell";
    return { line: `:test_tube: Test of *${esc(name)}* ${by}`, text: `Test of ${esc(name)} ${by}` };
  }
  const text = person ? `Sent by <@${sentBy.userId}> with Switchboard` : "Sent from Switchboard's shell";
  return { line: `:outbox_tray: *${text}*`, text };
}

/** What a thread reply shows of an API message: an image's or document's caption, link and file name. */
export function mirroredOf(
  m: Message,
  direction: Direction | undefined,
  at: Date | undefined,
): MirroredMessage {
  const type = typeof m.type === "string" ? m.type : undefined;
  const media = type === "image" || type === "document";
  const fileName = type === "document" ? messageFileName(m) : undefined;
  return {
    direction,
    at,
    text: media ? messageCaption(m) : typeof m.text === "string" ? m.text : "",
    type,
    mediaUrl: messageMediaUrl(m),
    ...(fileName ? { fileName } : {}),
  };
}

/** How an image is shown: as an image block (Slack fetches it), or as a link when Slack could not. */
export interface ReplyOptions {
  images?: "blocks" | "links";
}

/**
 * One message of the conversation as thread replies: who, when, the text
 * quoted as written. A text too long for one reply is split into several, at
 * a space when one is near the cut, never inside a character (an emoji, a
 * surrogate pair, a letter and its accents); each part says which it is.
 */
export function messageReplies(
  name: string,
  m: MirroredMessage,
  opts: ReplyOptions = {},
): Array<{ text: string; blocks: KnownBlock[] }> {
  const parts = splitText(storable(m.text), PART_CHARS);
  if (parts.length <= 1) return [messageReply(storable(name), { ...m, text: storable(m.text) }, opts)];
  return parts.map((part, i) =>
    messageReply(
      storable(name),
      {
        ...m,
        text: part,
        part: `${i + 1}/${parts.length}`,
        ...(i === parts.length - 1 ? {} : { mediaUrl: undefined }),
      },
      opts,
    ),
  );
}

/** A plain http(s) URL, the only kind shown as a link or an image (the link is the customer's too). */
const plainUrl = (url: string) => /^https?:\/\/[^\s<>|]+$/.test(url);
/** Slack's longest image_url. */
const IMAGE_URL_MAX = 3000;

/** The message's file as Block Kit: an image block, or a line with its link (or its text when not a plain URL). */
function mediaPart(
  name: string,
  m: MirroredMessage,
  opts: ReplyOptions,
): { line?: string; block?: KnownBlock; label: string } {
  const url = storable(m.mediaUrl ?? "");
  const label =
    m.type === "image" ? "image" : m.type === "document" ? storable(m.fileName ?? "") || "document" : "file";
  const icon = m.type === "document" ? ":page_facing_up:" : ":paperclip:";
  if (!plainUrl(url)) return { line: `${icon} ${esc(label)}: ${esc(url)}`, label };
  if (m.type === "image" && opts.images !== "links" && url.length <= IMAGE_URL_MAX)
    return {
      block: { type: "image", image_url: url, alt_text: truncate(`Image from ${name}`, 2000) },
      label,
    };
  return { line: `${icon} <${esc(url)}|${esc(label)}>`, label };
}

/** `text` in pieces whose escaped length is at most `max`, cut between grapheme clusters. */
export function splitText(text: string, max: number): string[] {
  if (esc(text).length <= max) return [text];
  const out: string[] = [];
  let piece = "";
  let size = 0;
  let lastSpace = -1;
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)) {
    const n = esc(segment).length;
    if (size + n > max && piece) {
      // At a space in the last fifth of the piece, if there is one: words stay whole.
      const cut = lastSpace > piece.length * 0.8 ? lastSpace + 1 : piece.length;
      out.push(piece.slice(0, cut));
      piece = piece.slice(cut);
      size = esc(piece).length;
      lastSpace = piece.search(/\s\S*$/);
    }
    if (/^\s+$/.test(segment)) lastSpace = piece.length;
    piece += segment;
    size += n;
  }
  if (piece) out.push(piece);
  return out;
}

function messageReply(
  name: string,
  m: MirroredMessage & { part?: string },
  opts: ReplyOptions,
): { text: string; blocks: KnownBlock[] } {
  const outgoing = m.direction === "outbound" ? outgoingLabel(m.sentBy) : undefined;
  const who = outgoing ? outgoing.line : `:bust_in_silhouette: *${esc(name)}*`;
  const when = `${m.at ? ` · ${timeOf(m.at)}` : ""}${m.part ? ` · part ${m.part}` : ""}`;
  const lines: string[] = [];
  if (m.text) lines.push(esc(m.text));
  const media = m.mediaUrl ? mediaPart(name, m, opts) : undefined;
  if (media?.line) lines.push(media.line);
  if (!lines.length && !media) lines.push(`_(${esc(m.type ?? "empty")} message)_`);
  const body = lines.join("\n");
  const summary = body || `[${esc(media?.label ?? "file")}]`;
  return {
    text: `${outgoing ? outgoing.text : esc(name)}: ${truncate(summary, 2900)}`,
    blocks: [
      context(`${who}${when}`),
      ...(body ? [section(body)] : []),
      ...(media?.block ? [media.block] : []),
    ],
  };
}
