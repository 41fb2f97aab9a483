// `campaign <id> request`, `approve`, `reject` (issue 28 §3): the approval
// card to the approvers (posted by the front end), the first decision winning
// (one conditional update in the store), every copy redrawn, the requester
// told; the audit says each step in words.
import { z } from "zod";
import { ACTION } from "../../blocks/actions.ts";
import { actions, esc, num, section } from "../../blocks/blocks.ts";
import { countReach, drawnExpired, needsApproval, templateProblem } from "../../campaigns/approval.ts";
import {
  APPROVAL_TTL_MS,
  approvalCardView,
  approvalStateLine,
  dateToken,
  expiresAt,
  isExpired,
  personWords,
  reachWords,
} from "../../campaigns/approval-card.ts";
import type { ApprovalCards, ApprovalDeps } from "../../campaigns/approval-deps.ts";
import { cardOf } from "../../campaigns/card-of.ts";
import { pinOf } from "../../campaigns/pin.ts";
import { isDm } from "../../campaigns/road.ts";
import type { ApprovalRecord } from "../../store/approvals.ts";
import { idArg } from "../args.ts";
import { formReply } from "../forms.ts";
import { mention } from "../permissions.ts";
import { type CommandContext, UserError } from "../registry.ts";
import { pick, show } from "../render.ts";
import type { Reply } from "../types.ts";
import { campaignMessageText } from "./campaign-message.ts";
import { channelLabel, nameOf, refId } from "./common.ts";
import { about, inTopic, onCampaign } from "./shapes.ts";

const command = inTopic("campaigns");

/** Approval happens in Slack: the shell, or a Switchboard without it. */
function inSlack(ctx: CommandContext): ApprovalDeps & { cards: ApprovalCards } {
  const deps = ctx.approvals;
  if (!deps?.policy.approvers.length) throw new UserError("no approvers", false);
  if (ctx.actor.via === "shell" || !deps.cards)
    throw new UserError(
      "Approval happens in Slack: there a broadcaster asks for it with *Request approval* on the campaign's card, and an approver decides.",
      false,
    );
  return deps as ApprovalDeps & { cards: ApprovalCards };
}

/** No approvers: nothing to ask or decide, said as an answer (with Send…), not as a failure. */
function noApprovers(ctx: CommandContext, id: number): Reply | undefined {
  if (ctx.approvals?.policy.approvers.length) return undefined;
  const text =
    "Nobody approves campaigns in this workspace (no approvers in the settings): a broadcaster sends them directly.";
  return {
    visibility: "ephemeral",
    text,
    blocks: [
      section(`:information_source: ${text}`),
      actions([{ text: "Send…", actionId: ACTION.run, value: `campaign ${id} send`, style: "primary" }]),
    ],
  };
}

/** `campaign <id> request`: the approval card to the approvers. */
export async function requestApproval(ctx: CommandContext, id: number): Promise<Reply> {
  const none = noApprovers(ctx, id);
  if (none) return none;
  const deps = inSlack(ctx);
  const c = await ctx.api.getCampaign(id);
  const name = `*${esc(nameOf(c, `Campaign ${id}`))}*`;
  const status = String(pick(c, "status") ?? "");
  if (status && status !== "draft" && status !== "scheduled")
    throw new UserError(`${name} is ${esc(status)}: only a draft is approved before it is sent.`, false, [
      { text: "Open", line: `campaign ${id}` },
    ]);
  const template = await templateProblem(ctx.api, c);
  if (template)
    throw new UserError(`${name} cannot be sent as it is: ${template}. Nothing was asked.`, false, [
      { text: "Templates", line: "templates" },
    ]);
  // Counted within the send prompt's budget (the campaign, the template twice, then at most 7): the same figure a send sees.
  const counted = await countReach(ctx, id, c, 3);
  if (!needsApproval(deps.policy, counted.reach))
    throw new UserError(
      `${name} reaches ${num(counted.reach ?? 0)} people, fewer than the ${num(deps.policy.approveFrom ?? 0)} from which approval is asked: send it directly.`,
      false,
      [{ text: "Send…", line: `campaign ${id} send`, style: "primary" }],
    );
  const latest = await deps.store.latest(id);
  if (latest?.state === "pending" && !isExpired(latest, deps.now()))
    throw new UserError(
      `${name} is already waiting for approval (asked by ${personWords(latest.requestedBy)}, ${dateToken(latest.requestedAt)}).`,
      false,
    );
  const templateId = refId(c, "templateId", "template_id");
  const t = templateId ? await ctx.api.getTemplate(templateId).catch(() => undefined) : undefined;
  const channelId = refId(c, "integrationId", "integration_id");
  const at = show(pick(c, "scheduledAt", "scheduled_at") ?? "");
  const startAt = at ? new Date(at) : undefined;
  const requester = ctx.actor.via === "slack" ? ctx.actor.userId : "shell";
  const record = await deps.store.request({
    campaignId: id,
    requestedBy: requester,
    at: deps.now(),
    reach: counted.reach,
    templateId,
    pinned: pinOf(c, t, counted.audience, counted.reach),
    // Where it was asked from: a send started later from a DM posts its cards there.
    ...(ctx.actor.via === "slack" && ctx.actor.channelId && !isDm(ctx.actor.channelId)
      ? { channel: ctx.actor.channelId }
      : {}),
    card: {
      name: nameOf(c, `Campaign ${id}`),
      message: campaignMessageText(t, c),
      audience: counted.text,
      channel: channelId
        ? (await channelLabel(ctx, channelId)).replace(/^(\d+)$/, "Channel $1")
        : "The template's channel",
      start:
        startAt && !Number.isNaN(startAt.getTime())
          ? dateToken(startAt)
          : "When a broadcaster sends it, once approved",
      approvers: deps.policy.approvers.map(mention),
    },
  });
  const { where, copies } = await deps.cards.post(record, approvalCardView(record, deps.now()));
  // Every copy kept with the request: whoever decides, on any replica, redraws them all.
  for (const copy of copies) await deps.store.addCard(record.id, copy.channel, copy.ts);
  await ctx.audit("campaign.approval.request", true, {
    name: record.card.name,
    reach: record.reach ?? null,
    campaignId: id,
  });
  const text = `:hourglass_flowing_sand: Approval of ${name}${reachWords(record)} asked ${where}. You get a message when someone decides.`;
  return { visibility: "ephemeral", text, blocks: [section(text)] };
}

/** The request a click or a line names: the one on its card, else the campaign's latest. */
async function requestOf(deps: ApprovalDeps, id: number, requestId?: number): Promise<ApprovalRecord> {
  const r = requestId ? await deps.store.get(requestId) : await deps.store.latest(id);
  if (!r || r.campaignId !== id)
    throw new UserError(`Nobody asked to approve campaign #${id}: there is nothing to decide.`, false);
  return r;
}

/** Someone else decided first, or there is nothing left to decide: said, with who and when. */
function alreadyDecided(r: ApprovalRecord, now: Date): Reply {
  const text = `Already decided: ${approvalStateLine(r, now).replace(/^:[a-z_]+: /, "")}`;
  return { visibility: "ephemeral", text, blocks: [section(`:information_source: ${text}`)] };
}

/** A click on a request nobody decided within 24 hours: its cards redrawn as expired (once), the click refused. */
async function expiredRequest(deps: ApprovalDeps, r: ApprovalRecord): Promise<UserError> {
  await drawnExpired(deps, r);
  const expired = expiresAt(r);
  return new UserError(
    `Nothing was decided: this request expired${expired ? ` ${dateToken(expired)}` : ""}, since nobody decided within 24 hours of ${personWords(r.requestedBy)} asking to approve *${esc(r.card.name)}*. They can ask again with *Request approval*.`,
    false,
    [{ text: "Open", line: `campaign ${r.campaignId}` }],
  );
}

/** `campaign <id> approve` / `reject`: the first decision wins, every card is redrawn, the requester told. */
export async function decideApproval(
  ctx: CommandContext,
  id: number,
  decision: "approved" | "rejected",
  opts: { requestId?: number; reason?: string },
): Promise<Reply> {
  const none = noApprovers(ctx, id);
  if (none) return none;
  const deps = inSlack(ctx);
  const actor = ctx.actor.via === "slack" ? ctx.actor.userId : "shell";
  if (!(await deps.isApprover(actor)))
    throw new UserError(
      `Only ${deps.policy.approvers.map(mention).join(", ")} approve campaigns in this workspace.`,
      false,
    );
  const r = await requestOf(deps, id, opts.requestId);
  const now = deps.now();
  if (r.state !== "pending") {
    await drawnExpired(deps, r);
    return alreadyDecided(r, now);
  }
  const name = `*${esc(r.card.name)}*`;
  if (isExpired(r, now)) throw await expiredRequest(deps, r);
  if (decision === "approved" && r.requestedBy === actor)
    throw new UserError(
      `You asked for the approval of ${name}: nobody approves their own campaign. Another approver decides.`,
      false,
    );
  const reason = opts.reason?.trim();
  if (decision === "rejected" && !reason)
    return formReply(
      ctx,
      {
        kind: "approval-reject",
        load: async () => ({ campaignId: id, requestId: r.id, name: r.card.name }),
        instead: "campaign.reject",
      },
      "Opening the rejection…",
    );
  const decided = await deps.store.decide(r.id, {
    state: decision,
    by: actor,
    at: now,
    reason,
    askedSince: new Date(now.getTime() - APPROVAL_TTL_MS),
  });
  if (!decided)
    throw new UserError(`Nobody asked to approve campaign #${id}: there is nothing to decide.`, false);
  // Still pending, not decided: it expired meanwhile (the store's clock is the request's).
  if (!decided.won && decided.record.state === "pending") throw await expiredRequest(deps, decided.record);
  if (!decided.won) return alreadyDecided(decided.record, now);
  const d = decided.record;
  await deps.cards.update(await deps.store.cards(d.id), approvalCardView(d, now)).catch(() => undefined);
  const approved = decision === "approved";
  const said = approved
    ? `${personWords(actor)} approved ${name}${reachWords(d)}.`
    : `${personWords(actor)} rejected ${name}: "${esc(reason ?? "")}". The draft stays as it is.`;
  if (d.requestedBy !== "shell")
    await deps.cards
      .tell(d.requestedBy, approved ? `:white_check_mark: ${said} Send it within 24 hours.` : `:x: ${said}`, [
        section(approved ? `:white_check_mark: ${said} Send it within 24 hours.` : `:x: ${said}`),
        ...(approved
          ? [
              actions([
                { text: "Send now", actionId: ACTION.run, value: `campaign ${id} send`, style: "primary" },
              ]),
            ]
          : [actions([{ text: "Open", actionId: ACTION.run, value: `campaign ${id}` }])]),
      ])
      .catch(() => undefined);
  await ctx.audit(approved ? "campaign.approval.approve" : "campaign.approval.reject", true, {
    name: d.card.name,
    reach: d.reach ?? null,
    campaignId: id,
    ...(reason ? { reason } : {}),
  });
  const text = approved
    ? `:white_check_mark: You approved ${name}${reachWords(d)}; ${personWords(d.requestedBy)} was told.`
    : `:x: You rejected ${name}; ${personWords(d.requestedBy)} was told why.`;
  return { visibility: "ephemeral", text, blocks: [section(text)] };
}

const requestOption = z.coerce.number().int().positive().optional();

/**
 * An approval asked for, given or refused changes the campaign's card (its approval line and next button): the
 * answer carries the card as it stands now, and the campaign's cards in channels are redrawn with it (issue 37 §4).
 * A form answer (the rejection's form) carries none; a card that cannot be read leaves the cards as they were.
 */
async function withRedraw(ctx: CommandContext, id: number, reply: Reply, command: string): Promise<Reply> {
  if (reply.form) return reply;
  // Only the cards kept open in channels are redrawn, never a live one (campaigns/cards.ts): with none, no
  // read of the campaign (three requests) is spent on a redraw nobody would see.
  const open = await ctx.campaignCards?.open(id).catch(() => undefined);
  if (open && !open.some((c) => c.role !== "live")) return reply;
  const card = await ctx.api
    .getCampaign(id)
    .then((c) => cardOf(ctx, id, c))
    .catch(() => undefined);
  return card ? { ...reply, origin: { ...reply.origin, command, id, redraw: card } } : reply;
}

/** `campaign <id> approve|reject`: the decision (the request named, else the open one), then the card redrawn. */
const decide =
  (decision: "approved" | "rejected", command: string) =>
  async (a: { id: number; request?: number; reason?: string }, ctx: CommandContext): Promise<Reply> =>
    withRedraw(
      ctx,
      a.id,
      await decideApproval(ctx, a.id, decision, { requestId: a.request, reason: a.reason }),
      command,
    );

export const APPROVAL_COMMANDS = [
  command({
    ...onCampaign(["request"], "broadcast"),
    ...about("Ask the approvers to approve a campaign before it is sent (Slack)", "campaign 2 request"),
    help: "The approval card goes to the approvers (in the audit channel, else by direct message): the message as customers read it, the audience counted, the channel, who asks. A request nobody decides within 24 hours expires; an approval is good for 24 hours, for the campaign as approved.",
    operations: ["getCampaign", "getTemplate", "listGroups", "getGroup", "listContacts", "getContact"],
    run: async (a, ctx) => withRedraw(ctx, a.id, await requestApproval(ctx, a.id), "campaign.request"),
  }),
  command({
    ...onCampaign(["approve"], "read"),
    options: { request: "the request's number (its card's)" },
    schema: z.object({ id: idArg, request: requestOption }),
    usage: "campaign <id> approve [request=<n>]",
    ...about("Approve a campaign someone asked to send (approvers; not your own)", "campaign 2 approve"),
    operations: [],
    run: decide("approved", "campaign.approve"),
  }),
  command({
    ...onCampaign(["reject"], "read"),
    positionals: [{ name: "reason", rest: "text", optional: true }],
    options: { request: "the request's number (its card's)" },
    schema: z.object({ id: idArg, request: requestOption, reason: z.string().max(500).optional() }),
    usage: "campaign <id> reject [request=<n>] <reason…>",
    ...about(
      "Reject a campaign someone asked to send, with a short reason (approvers)",
      "campaign 2 reject wrong discount",
    ),
    operations: [],
    run: decide("rejected", "campaign.reject"),
  }),
];
