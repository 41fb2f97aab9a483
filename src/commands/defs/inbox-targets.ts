// An inbox's reply targets as typed (`inbox on … first=15m next=1h
// here=yes`, issue 29 §2) and in words; the data of the inbox form
// (`/sb inbox on` alone). docs/inbox.md, "Reply targets".
import { esc } from "../../blocks/blocks.ts";
import { durationWords, formatBusinessHours, parseTargetDuration } from "../../domain/business-hours.ts";
import { CHAT_TYPES, typesInWords } from "../../domain/inbox-routing.ts";
import type { InboxFormData } from "../form-kinds.ts";
import type { InboxDeps } from "../inbox.ts";
import { UserError } from "../registry.ts";

/** The shortest and longest target. */
const MIN_SECS = 60;
const MAX_SECS = 30 * 86_400;

export interface TypedTargets {
  firstSecs: number | null;
  nextSecs: number | null;
  here: boolean;
}

function durationOf(name: "first" | "next", typed: string | undefined): number | null {
  if (typed === undefined) return null;
  const secs = parseTargetDuration(typed);
  const what = name === "first" ? "first-reply target" : "next-reply target";
  if (secs === undefined)
    throw new UserError(
      `*${name}* \`${esc(typed)}\` is not a length of time: the ${what} is written like \`${name}=15m\`, \`${name}=1h\` or \`${name}=1h30m\` (\`${name}=off\`: none).`,
    );
  if (secs !== null && (secs < MIN_SECS || secs > MAX_SECS))
    throw new UserError(`*${name}* \`${esc(typed)}\`: the ${what} must be between 1 minute and 30 days.`);
  return secs;
}

function yesNo(typed: string | undefined): boolean {
  const v = typed?.trim().toLowerCase();
  if (v === undefined || v === "no" || v === "off" || v === "false") return false;
  if (v === "yes" || v === "on" || v === "true") return true;
  throw new UserError(
    `*here* \`${esc(typed ?? "")}\` is not a choice: \`here=yes\` adds @here to a warning shown in the channel (nobody has the conversation), \`here=no\` does not (the default).`,
  );
}

/** `first=`, `next=`, `here=` as typed; what is left out is none (a channel's inbox is set as typed). */
export function targetsOf(a: { first?: string; next?: string; here?: string }): TypedTargets {
  return {
    firstSecs: durationOf("first", a.first),
    nextSecs: durationOf("next", a.next),
    here: yesNo(a.here),
  };
}

/** "first reply within 15 min, next reply within 1 h, in business hours (mon-fri 09:00-18:00, Europe/Paris)". */
export function targetsInWords(
  t: TypedTargets | undefined,
  clock: InboxDeps["workClock"],
): string | undefined {
  if (!t || (t.firstSecs === null && t.nextSecs === null)) return undefined;
  const parts: string[] = [];
  if (t.firstSecs !== null) parts.push(`first reply within ${durationWords(t.firstSecs)}`);
  if (t.nextSecs !== null) parts.push(`next reply within ${durationWords(t.nextSecs)}`);
  const c = clock?.();
  const counted = c
    ? `counted in business hours (${esc(formatBusinessHours(c.hours))}, ${esc(c.tz)})`
    : "counted around the clock";
  return `${parts.join(", ")}, ${counted}; a warning at 80%${t.here ? " (with @here in the channel when nobody has it)" : ""}`;
}

/** What the inbox form opens with: the channel's inbox and targets as they are, the chat types. */
export async function inboxFormData(inbox: InboxDeps, channel: string | undefined): Promise<InboxFormData> {
  const current = channel ? await inbox.store.inbox(channel) : undefined;
  const targets = channel ? await inbox.store.clocks.targets(channel) : undefined;
  const c = inbox.workClock?.();
  return {
    ...(channel ? { channel } : {}),
    ...(current
      ? {
          current: {
            needHuman: current.filter === "need_human",
            types: current.types,
            replies: current.replies,
            firstSecs: targets?.firstSecs ?? null,
            nextSecs: targets?.nextSecs ?? null,
            here: targets?.here ?? false,
            ratingTemplate: current.ratingTemplate ?? null,
            away: current.away,
          },
        }
      : {}),
    chatTypes: CHAT_TYPES.map((t) => ({ value: t, label: typesInWords([t]) })),
    ...(c ? { hours: `${formatBusinessHours(c.hours)} (${c.tz})` } : {}),
    ...(inbox.away?.() ? { awayMessage: true } : {}),
  };
}
