// The inbox engine's one door to the front end: the few calls it makes in an
// inbox's channel, passed in by the front end (Slack's:
// src/slack/features/inbox/io.ts). The engine knows no front end: it says what
// to show (a card, a customer's message, a reopening) and the front end draws
// and posts it, finds what a crash left posted, and says what its errors mean.
import type { Message } from "../api/types.ts";
import type { AwayRule } from "../domain/away.ts";
import type { ReplyRecord } from "../domain/saved-reply.ts";
import type { LogsAt } from "../platform/log.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { CardState, Thread } from "../store/inbox.ts";
import type { OwnSend } from "../store/own-sends.ts";

export type InboxLogger = LogsAt<"info" | "warn">;

/**
 * What a card's desk line shows: the thread's state, who has it, the
 * customer's last message, the reply target running (when a reply is due,
 * missed or not), a snooze, a rating; and now.
 */
export type CardDesk = Pick<Thread, "deskState" | "assignee" | "customerWroteAt" | "due"> &
  Partial<Pick<Thread, "snoozedUntil" | "snoozeUntilReply" | "snoozedBy" | "rating">> & { now: Date };

/** A reply target's warning (at 80%) or breach (at 100%), said in the conversation's thread. */
export interface TargetNotice {
  what: "warning" | "breach";
  kind: "first" | "next";
  dueAt: Date;
  /** When the clock started (the customer's message, or when the target was set). */
  startedAt: Date;
  targetSecs: number;
  /** Who has the conversation (named, so told); null: nobody. */
  holder: string | null;
  /** The customer's name as the card shows it. */
  name: string;
  /** Also shown in the channel (nobody has it). */
  broadcast: boolean;
  /** With @here (the inbox was turned on with `here=yes`). */
  here: boolean;
}

/**
 * What the engine tells the workspace's automations (issue 40 §3), once each,
 * after it claimed the work: a customer's message mirrored, a rating answered,
 * a reply target breached. Only in conversations an inbox polls (the API has no events).
 */
export type InboxEvent = { channel: string; chatUserId: number; customerName: string } & (
  | { type: "message.received"; messageId: number; text: string }
  | { type: "rating.received"; rating: string }
  | { type: "reply_target.breached"; target: "first" | "next"; targetSecs: number }
);

/**
 * What the away message (issue 40 §1) needs from the workspace: its rule as
 * set now, the customer's record its placeholders are filled from (as saved
 * replies'), and its audit (the row, then the audit channel).
 */
export interface AwayPort {
  rule(): AwayRule | undefined;
  record(chatUserId: number): Promise<ReplyRecord>;
  audit(entry: AuditEntry): Promise<void>;
}

/** Who sent an outgoing message through Switchboard (the send form, `/sb send`, a thread reply, a campaign's test). */
export type Sender = Pick<OwnSend, "userId" | "via" | "campaign">;

/**
 * The channel as the engine uses it. A post throws the front end's error;
 * `errorCode` and `channelClosed` tell the engine what it means.
 */
export interface InboxIo {
  /** Posts a conversation's card (its thread's parent); returns its ts. */
  postCard(channel: string, chatUserId: number, card: CardState, desk: CardDesk): Promise<string | undefined>;
  /** Draws a card again in place. */
  updateCard(channel: string, ts: string, chatUserId: number, card: CardState, desk: CardDesk): Promise<void>;
  /**
   * How many posts a message of the conversation takes in its thread (a long
   * text takes several). `sender`: an outgoing message Switchboard sent, shown by who sent it.
   */
  messageParts(name: string, message: Message, sender?: Sender): number;
  /** Posts part `part` (from 1) of a message in its thread; returns its ts. */
  postMessagePart(
    channel: string,
    threadTs: string,
    name: string,
    message: Message,
    part: number,
    sender?: Sender,
  ): Promise<string | undefined>;
  /** Posts a reply target's warning or breach in the thread (and in the channel when `broadcast`). */
  postTargetNotice(channel: string, threadTs: string, notice: TargetNotice): Promise<void>;
  /** Says in the thread that the customer wrote again in a resolved conversation. */
  postReopened(channel: string, threadTs: string, name: string): Promise<void>;
  /**
   * Says in the thread that a snoozed conversation is back (issue 29 §3): its
   * time came, or the customer wrote; `tell` is the person told (who has it, else who snoozed it).
   */
  postWoken?(
    channel: string,
    threadTs: string,
    name: string,
    tell: string | null,
    why: "time" | "customer",
  ): Promise<void>;
  /**
   * A card already posted for the chat user (its ts): read only after a crash,
   * for a claim with no post. Without it, such a card is posted again without looking.
   */
  findCard?(channel: string, chatUserId: number): Promise<string | undefined>;
  /** The parts of a message already in the thread (part → ts): read only after a crash, like findCard. */
  findParts?(channel: string, threadTs: string, messageId: number): Promise<Map<number, string>>;
  /** The front end's code when it answered with an error (what was asked is certainly not done); else undefined. */
  errorCode(err: unknown): string | undefined;
  /** The channel is gone or closed to the app: the inbox's pass stops. */
  channelClosed(err: unknown): boolean;
}
