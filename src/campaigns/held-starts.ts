// Held starts as people see them (issue 28 §4): the campaign card's status
// line ("Starts at <date>", "Starts at 08:00 (quiet hours until then)",
// "Start cancelled by @ana"), its buttons, and holding, moving and cancelling
// a start from a command. The store (src/store/held-starts.ts) makes each
// change once; src/campaigns/held-start-runner.ts runs the start when due.
import type { Campaign } from "../api/types.ts";
import { esc } from "../blocks/blocks.ts";
import { clock, dateToken, inQuietHours, nextOutsideQuiet, type StartRules } from "../domain/start-time.ts";
import { UserError } from "../platform/errors.ts";
import type { HeldReason, HeldStart, HeldStarts } from "../store/held-starts.ts";
import { type CardInput, campaignCard } from "./card.ts";
import type { CampaignContext } from "./context.ts";

export type { StartRules };

/** When a send asked for at `now` would start: now, or when the quiet hours end. */
export function quietUntil(now: Date, rules: StartRules): Date | undefined {
  if (!rules.quiet || !rules.tz || !inQuietHours(now, rules.quiet, rules.tz)) return undefined;
  return nextOutsideQuiet(now, rules.quiet, rules.tz);
}

/** The detail of a held start given up for a send now (Send now anyway, Start now). */
export const SENT_NOW = "sent now instead";

const person = (id: string | undefined) => (!id ? "someone" : id === "shell" ? "the shell" : `<@${id}>`);

/** The card's line for a start (mrkdwn), as its state stands. */
export function heldLine(s: HeldStart, rules: StartRules): string {
  const when = dateToken(s.at, rules.tz);
  switch (s.state) {
    case "held":
      return s.reason === "quiet" && rules.quiet
        ? `:crescent_moon: Starts at ${clock(rules.quiet.end)} (quiet hours until then) · ${when} your time`
        : `:alarm_clock: Starts at ${when} · set by ${person(s.requestedBy)}`;
    case "asked":
      return `:double_vertical_bar: Start held: it was due at ${when} while Switchboard was stopped; ${person(s.requestedBy)} was asked whether to start it now`;
    case "running":
      return `:hourglass_flowing_sand: Starting (it was due at ${when})`;
    case "sent":
      return `:rocket: Started at ${dateToken(s.ranAt ?? s.at, rules.tz)}, as ${person(s.requestedBy)} asked`;
    case "cancelled":
      return s.detail === SENT_NOW
        ? `:rocket: Sent at once by ${person(s.decidedBy)} instead of at ${when}: the live card below follows it`
        : `:no_entry_sign: Start cancelled by ${person(s.decidedBy)}`;
    case "skipped":
      return `:fast_forward: Start at ${when} skipped: ${esc(s.detail ?? "the campaign had changed")}`;
    case "refused":
      return `:raised_hand: Start at ${when} held: ${esc(s.detail ?? "the check before it said no")}`;
    case "failed":
      return `:warning: Start at ${when} failed: ${esc(s.detail ?? "the messaging API refused it")}`;
    case "unknown":
      return `:grey_question: Start at ${when}: whether it started is not known (Switchboard stopped while starting it); open the campaign to check`;
  }
}

/** The buttons of a card with a live held start: Cancel start, and Send now anyway in quiet hours. */
export function heldButtons(s: HeldStart): NonNullable<CardInput["buttons"]> {
  if (s.state === "held" || s.state === "asked")
    return [
      ...(s.reason === "quiet" || s.state === "asked"
        ? [
            {
              text: s.state === "asked" ? "Start now…" : "Send now anyway…",
              value: `campaign ${s.campaignId} send now`,
              style: "primary" as const,
            },
          ]
        : []),
      { text: "Cancel start", value: `campaign ${s.campaignId} cancel start` },
    ];
  return [];
}

/** The campaign's card with its start's line (for the runner, which has no command context). */
export function heldCard(
  s: HeldStart,
  rules: StartRules,
  c?: { status?: string; name?: string },
): { text: string; blocks: ReturnType<typeof campaignCard>["blocks"] } {
  const live = s.state === "held" || s.state === "asked";
  // Superseded by a send now: finished, no buttons (the live card is the one that sends).
  const superseded = s.state === "cancelled" && s.detail === SENT_NOW;
  return campaignCard({
    id: s.campaignId,
    name: c?.name ?? s.campaignName,
    status: c?.status ?? (s.state === "sent" || superseded ? "running" : "draft"),
    startLine: heldLine(s, rules),
    ...(live ? { buttons: heldButtons(s) } : superseded ? { buttons: [] } : {}),
  });
}

/** The store of the command's workspace, or a refusal in words where held starts are not set up. */
export function heldStartsOf(ctx: CampaignContext): HeldStarts {
  if (!ctx.heldStarts)
    throw new UserError("Starting a campaign at a time is not set up in this Switchboard.", false);
  return ctx.heldStarts;
}

/** Holds the start of `c` at `at` (one per campaign: a later time replaces the earlier one), audited. */
export async function holdStart(
  ctx: CampaignContext,
  id: number,
  c: Campaign,
  at: Date,
  reason: HeldReason,
): Promise<HeldStart> {
  const store = heldStartsOf(ctx);
  const name = String(c.name ?? `Campaign ${id}`);
  const held = await store.hold({
    campaignId: id,
    campaignName: name,
    at,
    requestedBy: ctx.actor.via === "shell" ? "shell" : ctx.actor.userId,
    via: ctx.actor.via,
    reason,
    now: ctx.now(),
  });
  if (!held)
    throw new UserError(`*${esc(name)}* is being started right now: it cannot be moved any more.`, false, [
      { text: "Open", line: `campaign ${id}` },
    ]);
  await ctx.audit("campaign.hold", true, { name, at: at.toISOString(), reason });
  return held;
}
