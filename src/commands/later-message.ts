// A message sent later (issue 40 §2), what it keeps and how it is said: the
// payload of its claimed-once timer (src/store/timers.ts, kind
// `message.later`), whom and what in words, when in the workspace's zone.
// Shared by the commands (defs/scheduled.ts) and the runner (later-sends.ts).
import { parsePhoneNumberFromString } from "libphonenumber-js";
import type { SendMessageInput } from "../api/schemas.ts";
import { localParts, localText, parseStartAt } from "../domain/start-time.ts";
import type { Timer, Timers } from "../store/timers.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";

/** The timer kind of a message sent later. */
export const LATER_KIND = "message.later";

/** What a message sent later keeps until its time. */
export interface LaterMessage {
  /** The request, channel included, as checked when it was set. */
  body: SendMessageInput;
  /** The recipient as a command line writes it: `+34600111222`, `contact:12`, `user:4`. */
  ref: string;
  /** Whom, by name, as read when it was set. */
  toName?: string;
}

export type LaterSend = Timer<LaterMessage>;

/** One workspace's messages sent later. */
export const laterSendsOf = (stores: Pick<WorkspaceStores, "timers">): Timers<LaterMessage> =>
  stores.timers<LaterMessage>(LATER_KIND);

/** "Madrid time" for Europe/Madrid; "UTC" without a zone. */
export const zoneWords = (tz: string | undefined): string =>
  tz ? `${(tz.split("/").pop() ?? tz).replace(/_/g, " ")} time` : "UTC";

/** `09:00 Madrid time` today, `2026-12-01 09:00 Madrid time` another day (in the workspace's zone). */
export function laterWhen(at: Date, now: Date, tz: string | undefined): string {
  const a = localParts(at, tz ?? "UTC");
  const n = localParts(now, tz ?? "UTC");
  const sameDay = a.year === n.year && a.month === n.month && a.day === n.day;
  const text = localText(at, tz).replace(/ UTC$/, "");
  return `${sameDay ? text.slice(11) : text} ${zoneWords(tz)}`;
}

/** What the customer will read, in short. */
export function laterSaid(m: LaterMessage): string {
  const b = m.body as Record<string, unknown>;
  if (b.type === "text") return String(b.text ?? "");
  if (b.type === "template") return `the template “${String((b.template as { name?: string })?.name ?? "")}”`;
  const what = b.type === "image" ? "an image" : b.type === "document" ? "a document" : String(b.type);
  return `${what}${b.text ? `: ${String(b.text)}` : ""}`;
}

/** Whom: the name read when it was set, else the recipient as written. */
export const laterWhom = (m: LaterMessage): string =>
  m.toName ??
  (m.ref.startsWith("contact:")
    ? `contact #${m.ref.slice(8)}`
    : m.ref.startsWith("user:")
      ? `chat user #${m.ref.slice(5)}`
      : phoneWords(m.ref));

/** `+34600111222` → `+34 600 11 12 22`; as written when it is not a number libphonenumber reads. */
function phoneWords(phone: string): string {
  const parsed = parsePhoneNumberFromString(phone);
  return parsed?.isValid() ? parsed.formatInternational() : phone;
}

/** The line the send is audited as: the recipient, its number and when it was set (the audit's sentence reads it). */
export const laterLine = (s: LaterSend): string =>
  `send ${s.payload.ref} (later #${s.number}, set at ${s.createdAt.toISOString()})`;

/**
 * A time given for a message sent later, read as `at=` is (the rule of campaign starts; quiet hours do not
 * apply): the moment, or the refusal as a form's field says it ("This time is in the past"). The send form's
 * Send at… and the Edit… form share it.
 */
export function laterTime(
  text: string,
  now: Date,
  tz: string | undefined,
): { at: Date } | { problem: string } {
  const raw = text.trim();
  const parsed = parseStartAt(raw, now, tz);
  if (!("problem" in parsed)) return parsed;
  const p = parsed.problem;
  const rest = p.startsWith(raw)
    ? p.slice(raw.length)
    : p.startsWith(raw.slice(0, 10))
      ? p.slice(10)
      : `: ${p}`;
  // A time past: what to do about it too.
  return { problem: `This time${rest}${/is in the past$/.test(rest) ? ": choose a later one" : ""}` };
}

/** Why a message sent later is no longer waiting, in words: "it was sent", "it is being sent now"… */
export function notWaitingWords(s: Pick<LaterSend, "state" | "decidedBy">): string {
  switch (s.state) {
    case "done":
      return "it was sent";
    case "running":
      return "it is being sent now";
    case "cancelled":
      return !s.decidedBy
        ? "it was cancelled"
        : `it was cancelled ${s.decidedBy === "shell" ? "in the shell" : `by <@${s.decidedBy}>`}`;
    case "failed":
      return "it could not be sent, and will not be";
    case "unknown":
      return "it may have been sent (Switchboard stopped while sending it), and will not be sent again";
    default:
      return "it is waiting";
  }
}
