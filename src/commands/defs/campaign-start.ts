// When a send starts (issue 28 §4): `campaign <id> send at=…` holds the start
// until then; a send asked for in the quiet hours is held until they end
// ("Starts at 08:00 (quiet hours until then)"), unless `now` (Send now
// anyway); `campaign <id> cancel start` undoes a held start. Switchboard
// itself starts it when due (src/campaigns/held-start-runner.ts).
import type { KnownBlock } from "@slack/types";
import type { Campaign } from "../../api/types.ts";
import { context, esc, section } from "../../blocks/blocks.ts";
import { approvalUsed, takeApproval } from "../../campaigns/approval.ts";
import { cardOf } from "../../campaigns/card-of.ts";
import { heldLine, heldStartsOf, holdStart, quietUntil, SENT_NOW } from "../../campaigns/held-starts.ts";
import {
  clock,
  dateToken,
  inQuietHours,
  localText,
  nextOutsideQuiet,
  parseStartAt,
  quietHoursText,
  typedStartAt,
} from "../../domain/start-time.ts";
import type { HeldStart } from "../../store/held-starts.ts";
import { formReply } from "../forms.ts";
import { type CommandContext, type Preview, UserError } from "../registry.ts";
import type { Reply } from "../types.ts";
import { campaignPreview } from "./campaign-launch.ts";
import { nameOf } from "./common.ts";
import { about, inTopic, onCampaign } from "./shapes.ts";

const command = inTopic("campaigns");

export interface SendArgs {
  id: number;
  at?: string;
  now?: boolean;
}

/** What a start time is checked against: the time now, the workspace's zone and quiet hours. */
export type StartTimeContext = Pick<CommandContext, "now" | "startRules">;

/**
 * `at=` as a moment, or a refusal in words: the one rule for a start time
 * however it is set (`send at=`, `campaign add at=`, Send at…, the campaign
 * form's start time): a date that exists, in the future, at most a year away,
 * outside the quiet hours.
 */
export function startAtOf(text: string, ctx: StartTimeContext): Date {
  const parsed = parseStartAt(text, ctx.now(), ctx.startRules.tz);
  if ("problem" in parsed) throw new UserError(`The start time ${esc(parsed.problem)}.`);
  const { quiet, tz } = ctx.startRules;
  if (quiet && tz && inQuietHours(parsed.at, quiet, tz))
    throw new UserError(
      `The start time ${esc(text)} is in the quiet hours (${quietHoursText(quiet)}, ${esc(tz)}): choose a time from ${clock(quiet.end)}, or ask an admin to change the quiet hours.`,
    );
  return parsed.at;
}

/** A start time chosen in a form (a moment): startAtOf's refusal in words, or undefined when it may start then. */
export function startTimeRefusal(at: Date, ctx: StartTimeContext): string | undefined {
  try {
    startAtOf(typedStartAt(at, ctx.startRules.tz), ctx);
    return undefined;
  } catch (err) {
    if (err instanceof UserError) return err.message;
    throw err;
  }
}

/** When the send starts: a time asked for, the end of the quiet hours, or now (undefined). */
function plannedStart(a: SendArgs, ctx: CommandContext): { at: Date; quiet: boolean } | undefined {
  if (a.at !== undefined) return { at: startAtOf(a.at, ctx), quiet: false };
  if (a.now) return undefined;
  const until = quietUntil(ctx.now(), ctx.startRules);
  return until ? { at: until, quiet: true } : undefined;
}

/** The send prompt, said as a start at a time when it is one. */
export function withPlannedStart(a: SendArgs, ctx: CommandContext, base: Preview): Preview {
  const plan = plannedStart(a, ctx);
  if (!plan) return base;
  const tz = ctx.startRules.tz;
  const when = plan.quiet && ctx.startRules.quiet ? clock(ctx.startRules.quiet.end) : localText(plan.at, tz);
  const line = plan.quiet
    ? `:crescent_moon: *Quiet hours until ${when}*: Switchboard holds it and starts it then (${dateToken(plan.at, tz)}). To start it now, use *Send now anyway* on its card.`
    : `:alarm_clock: Switchboard holds it and starts it at ${dateToken(plan.at, tz)}. Until then, *Cancel start* on its card undoes it.`;
  const blocks: KnownBlock[] = [...base.blocks, section(line)];
  return {
    text: `${base.text} It starts at ${localText(plan.at, tz)}.`,
    blocks,
    confirm: { text: `Start at ${when}`, style: "primary" },
  };
}

/** The campaign's card with its held start, for the channel; its message is kept to be edited. */
async function heldReply(ctx: CommandContext, held: HeldStart, c: Campaign): Promise<Reply> {
  const card = await cardOf(ctx, held.campaignId, c);
  return {
    visibility: "in_channel",
    ...card,
    text: `${nameOf(c, `Campaign ${held.campaignId}`)}: starts at ${localText(held.at, ctx.startRules.tz)}`,
    origin: {
      command: "campaign.hold",
      id: held.campaignId,
      heldStart: held.id,
      card: {
        role: "held",
        name: nameOf(c, `Campaign ${held.campaignId}`),
        status: String(c.status ?? "draft"),
      },
    },
  };
}

/**
 * The send, held when it is to start later (a time asked for, the quiet
 * hours): who may and the approval are checked as it is set (the approval
 * taken then, once), and again by the one road when it runs. Undefined: it
 * starts now; a live held start of the same campaign is given up first
 * (`now`: Send now anyway, Start now) and kept in `given`, to be put back
 * when the send is refused.
 */
export async function heldOrNow(
  a: SendArgs,
  ctx: CommandContext,
  read: () => Promise<Campaign>,
  given: { start?: HeldStart } = {},
): Promise<Reply | undefined> {
  const plan = plannedStart(a, ctx);
  if (plan) return holdWithApproval(ctx, a.id, await read(), plan.at, plan.quiet ? "quiet" : "asked");
  const store = ctx.heldStarts;
  const live = store ? await store.ofCampaign(a.id) : undefined;
  if (store && live && (live.state === "held" || live.state === "asked")) {
    const by = ctx.actor.via === "shell" ? "shell" : ctx.actor.userId;
    const done = await store.move(live.id, ["held", "asked"], "cancelled", ctx.now(), {
      decidedBy: by,
      detail: SENT_NOW,
      version: live.version,
    });
    if (!done) throw startingNow(live.campaignName, a.id);
    given.start = done;
  } else if (live?.state === "running") throw startingNow(live.campaignName, a.id);
  return undefined;
}

/** A start given up for a send that was then refused: held again, as it was. */
export async function restoreHeld(ctx: CommandContext, given: { start?: HeldStart }): Promise<void> {
  const s = given.start;
  if (!s || !ctx.heldStarts) return;
  await ctx.heldStarts
    .move(s.id, ["cancelled"], "held", ctx.now(), { version: s.version })
    .catch(() => undefined);
}

/**
 * Holds a start at `at`, checking the approval as it is set (taken once: the
 * held start runs on it) — the one check of every road that sets a start
 * (`send at=`, Send at…, the campaign form, the quiet hours).
 */
export async function holdWithApproval(
  ctx: CommandContext,
  id: number,
  c: Campaign,
  at: Date,
  reason: "quiet" | "asked" | "created",
): Promise<Reply> {
  return heldReply(ctx, await setStart(ctx, id, c, at, reason), c);
}

/**
 * Sets a start (the store's row), by someone who may send campaigns, on an
 * approval when one is needed (taken now: the start runs on it), audited.
 * Every road that sets a start ends here: `send at=`, Send at…, the quiet
 * hours, `campaign add at=`, the campaign form (core.setStart).
 */
export async function setStart(
  ctx: CommandContext,
  id: number,
  c: Campaign,
  at: Date,
  reason: "quiet" | "asked" | "created",
): Promise<HeldStart> {
  if (!(await ctx.may("broadcast")))
    throw new UserError("Only those who may send campaigns set when one starts.", false);
  const approval = await takeApproval(ctx, id);
  try {
    const held = await holdStart(ctx, id, c, at, reason);
    if (approval) await approvalUsed(ctx, id);
    return held;
  } catch (err) {
    await approval?.release(new Error("not held"));
    throw err;
  }
}

const startingNow = (name: string, id: number) =>
  new UserError(`*${esc(name)}* is being started right now by its held start: it is not sent twice.`, false, [
    { text: "Open", line: `campaign ${id}` },
  ]);

/** The time Send at… offers: the next full hour, moved past the quiet hours. */
export function offeredStart(now: Date, rules: CommandContext["startRules"]): Date {
  const hour = new Date(Math.ceil((now.getTime() + 60_000) / 3_600_000) * 3_600_000);
  return nextOutsideQuiet(hour, rules.quiet, rules.tz);
}

export const CAMPAIGN_START_COMMANDS = [
  command({
    id: "campaign.sendAt",
    ...onCampaign(["send-at"], "broadcast"),
    ...about(
      "Choose when Switchboard starts a campaign, with a form (Slack); in the shell, `campaign <id> send at=…`",
      "campaign 2 send-at",
    ),
    operations: ["getCampaign", "getTemplate", "listGroups", "getGroup", "listContacts"],
    run: async (a, ctx) =>
      // The shell has no forms: the line that does the same, as an answer (the card's button runs here too).
      ctx.actor.via === "shell"
        ? {
            visibility: "ephemeral",
            text: `To start campaign ${a.id} at a time, give it on the line: campaign ${a.id} send at=09:00`,
            blocks: [
              section(
                `To start it at a time, give the time on the line: \`campaign ${a.id} send at=09:00\` (the next 09:00), \`at="2026-12-01 09:00"\` (in the workspace's time zone) or an ISO 8601 time with its offset.`,
              ),
            ],
          }
        : formReply(
            ctx,
            {
              kind: "send-at",
              load: async () => {
                const preview = await campaignPreview("send", a.id, ctx);
                const c = await ctx.api.getCampaign(a.id);
                const { tz, quiet } = ctx.startRules;
                return {
                  id: a.id,
                  name: nameOf(c, `Campaign ${a.id}`),
                  at: Math.floor(offeredStart(ctx.now(), ctx.startRules).getTime() / 1000),
                  ...(tz ? { rules: `${tz}${quiet ? `, quiet hours ${quietHoursText(quiet)}` : ""}` } : {}),
                  preview: { text: preview.text, blocks: preview.blocks },
                };
              },
              instead: "campaign.send",
            },
            "Opening Send at…",
          ),
  }),
  command({
    id: "campaign.cancelStart",
    ...onCampaign(["cancel", "start"], "broadcast"),
    ...about("Undo a campaign's held start (it stays a draft)", "campaign 2 cancel start"),
    operations: ["getCampaign"],
    run: async (a, ctx) => {
      const store = heldStartsOf(ctx);
      const live = await store.ofCampaign(a.id);
      if (!live || !(live.state === "held" || live.state === "asked")) {
        const text =
          live?.state === "running" || live?.state === "sent"
            ? `It has already started: a held start cannot be undone once it ran. To stop the campaign, cancel it.`
            : "This campaign has no held start: nothing to cancel.";
        // An answer, not a failure: nothing is held, so nothing changes.
        return { visibility: "ephemeral", text, blocks: [section(`:information_source: ${text}`)] };
      }
      const by = ctx.actor.via === "shell" ? "shell" : ctx.actor.userId;
      const done = await store.move(live.id, ["held", "asked"], "cancelled", ctx.now(), { decidedBy: by });
      if (!done)
        throw new UserError("It is being started right now: too late to cancel its start.", false, [
          { text: "Open", line: `campaign ${a.id}` },
        ]);
      await ctx.audit("campaign.hold.cancel", true, { name: done.campaignName, at: done.at.toISOString() });
      const c = await ctx.api.getCampaign(a.id).catch(() => undefined);
      const card = c
        ? await cardOf(ctx, a.id, c)
        : { blocks: [section(heldLine(done, ctx.startRules)), context(`Campaign #${a.id}`)] };
      // The held start's own card is edited to say so (the Slack side, by its kept message).
      return {
        visibility: "in_channel",
        text: `Start of ${done.campaignName} cancelled (campaign #${a.id})`,
        blocks: card.blocks,
        origin: { command: "campaign.cancelStart", id: a.id, heldStart: done.id },
      };
    },
  }),
];
