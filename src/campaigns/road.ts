// One road for a campaign (issue 37 §1): every way a campaign starts — the
// send prompt's Confirm, Send now on any card (the campaign's, the approval's,
// the form's post), Send now anyway, Start now, a held start when due, the
// shell — ends in startCampaign(), the one function that calls
// POST /campaigns/{id}/send (an architecture test keeps it so). At the moment
// it sends it reads the campaign and refuses, or holds, in words, on:
//   - its state: a campaign sending, done, cancelled or failed is not sent again;
//   - its audience: one Switchboard created keeps the audience it was given,
//     and an empty one is refused ("not known" only for one made elsewhere);
//   - the quiet hours as they are now: a start due inside them waits to their
//     end (only Send now anyway passes them);
//   - its approval: the one approved, for the campaign as approved (pinned:
//     template, values, audience, channel), taken once (approved → used) and
//     given back when the API certainly did not send.
// Who may broadcast is the caller's access check (the command's, or the core's
// startHeld for a held start, checked as it runs).
import type { Campaign } from "../api/types.ts";
import { esc } from "../blocks/blocks.ts";
import { nameOf, pick } from "../domain/records.ts";
import { UserError } from "../platform/errors.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import {
  approvalRefusal,
  checkApproval,
  redrawApproval,
  releaseApproval,
  useApproval,
  usedMeanwhile,
} from "./approval.ts";
import { audienceOf, noAudienceWords } from "./audience.ts";
import type { CampaignContext, StartOutcome, StartRoad } from "./context.ts";
import { quietUntil } from "./held-starts.ts";

export type { StartOutcome, StartRoad };

/** What the road reads: the API (audited as the person), the kept audiences, approvals, the start rules. */
export type StartDeps = Pick<
  CampaignContext,
  "api" | "audiences" | "approvals" | "startRules" | "now" | "actor"
> & {
  /** The prompt's memo (its audience counted once a command). */
  memo?: object;
};

/** A Slack DM's channel id (D…): a campaign's cards are not left there. */
export const isDm = (channel: string | undefined): boolean => !!channel && channel.startsWith("D");

const SENDABLE = new Set(["draft", "scheduled", ""]);

/** Why a campaign in `status` is not sent again, in words. */
export function stateWords(name: string, status: string): string {
  switch (status) {
    case "running":
      return `${name} is already sending: it is not sent twice.`;
    case "paused":
      return `${name} is paused: it was started already, and a campaign is sent once. Resume or cancel it where it was paused.`;
    case "completed":
      return `${name} has already completed: a campaign is sent once. To send the message again, create a new campaign with the same template.`;
    case "cancelled":
      return `${name} was cancelled: it cannot be sent any more.`;
    case "failed":
      return `${name} has failed: it cannot be sent again. Create a new campaign with the same template.`;
    default:
      return `${name} is ${esc(status)}: only a draft is sent.`;
  }
}

/**
 * Starts campaign `id` by `road`, through every rail at this moment. `read`:
 * the campaign as just read (the prompt's), else read here. Throws only what
 * the API's send threw (the approval given back first when it certainly did
 * not send).
 */
export async function startCampaign(
  s: StartDeps,
  id: number,
  road: StartRoad,
  read?: Campaign,
): Promise<StartOutcome> {
  const c = read ?? (await s.api.getCampaign(id));
  const name = `*${esc(nameOf(c, `Campaign ${id}`))}*`;
  const status = String(pick(c, "status") ?? "");
  if (!SENDABLE.has(status))
    return { kind: "refused", rail: "state", reason: stateWords(name, status), ask: false, status };
  const audience = await audienceOf(s, id, c);
  if (audience && !audience.groupIds.length && !audience.contactIds.length)
    return { kind: "refused", rail: "audience", reason: noAudienceWords(name), ask: false };
  if (road !== "anyway") {
    const until = quietUntil(s.now(), s.startRules);
    if (until) return { kind: "quiet", until };
  }
  let taken: ApprovalRecord | undefined;
  const access = s.approvals;
  if (access?.policy.approvers.length) {
    const check = await checkApproval(
      {
        api: s.api,
        audiences: s.audiences,
        approvals: access,
        memo: s.memo ?? s,
        actor: s.actor.via === "shell" ? "shell" : s.actor.userId,
      },
      id,
      c,
      // A held start took its approval when it was set (approved → used): it runs on that one.
      road === "held" ? ["approved", "used"] : ["approved"],
    );
    if (check.needed && !check.ok)
      return {
        kind: "refused",
        rail: "approval",
        reason: check.reason,
        ask: check.ask,
        ...(check.changed ? { changed: check.changed } : {}),
      };
    if (check.needed && check.ok && check.record.state === "approved") {
      taken = await useApproval(access, check.record);
      if (!taken)
        return {
          kind: "refused",
          rail: "approval",
          reason: usedMeanwhile(nameOf(c, `Campaign ${id}`)),
          ask: false,
        };
    }
  }
  let sent: Campaign;
  try {
    sent = await s.api.sendCampaign(id);
  } catch (err) {
    if (taken && access) await releaseApproval(access, taken, err);
    throw err;
  }
  await s.audiences
    ?.started(id, nameOf(c, `Campaign ${id}`), s.now(), audience ?? { groupIds: [], contactIds: [] })
    .catch(() => undefined);
  if (taken && access)
    await redrawApproval(access, (await access.store.get(taken.id).catch(() => undefined)) ?? taken);
  return { kind: "sent", campaign: sent };
}

/** A refusal of the road, for a person: in words, with what to do next as buttons. */
export function startRefusal(
  ctx: Pick<CampaignContext, "actor">,
  id: number,
  o: Extract<StartOutcome, { kind: "refused" }>,
): UserError {
  if (o.rail === "audience")
    return new UserError(o.reason, false, [
      { text: "New campaign", line: "campaign new", style: "primary" },
      { text: "Open", line: `campaign ${id}` },
    ]);
  if (o.rail === "approval") return approvalRefusal(ctx, id, o);
  return new UserError(o.reason, false, [{ text: "Open", line: `campaign ${id}` }]);
}
