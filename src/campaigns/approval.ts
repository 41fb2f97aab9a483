import { isApiError, NetworkError } from "../api/errors.ts";
import type { ApiRecord, Campaign, MessagingApi } from "../api/types.ts";
import { esc, num } from "../blocks/blocks.ts";
import { mention } from "../domain/actor.ts";
import { nameOf, pick, refId, show } from "../domain/records.ts";
import { UserError } from "../platform/errors.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import type { Audience, CampaignAudiences } from "../store/campaigns.ts";
import {
  APPROVAL_TTL_MS,
  approvalCardView,
  approvalStateLine,
  dateToken,
  expiresAt,
  isExpired,
  personWords,
} from "./approval-card.ts";
import type { ApprovalDeps, ApprovalPolicy } from "./approval-deps.ts";
import { audienceLine, audienceOf, countAudienceOnce, PROMPT_READS, ReadBudget } from "./audience.ts";
import type { CampaignContext } from "./context.ts";
import { COUNT_TOLERANCE, pinChanges, pinOf } from "./pin.ts";

/** What a check needs: the API, the kept audiences, the approvals. Also a held start's (no command running). */
export interface ApprovalCheckDeps {
  api: MessagingApi;
  audiences?: CampaignAudiences;
  approvals: Pick<ApprovalDeps, "policy" | "store" | "now"> & Partial<Pick<ApprovalDeps, "cards">>;
  /** Who asks (a Slack user id, or `shell`): the refusal's words leave them out of who may approve. */
  actor?: string;
  /** The command's context, when one runs: its prompt counts the audience once for every check. */
  memo?: object;
}

/** Whether a campaign reaching `reach` people needs approval (not counted: it does). */
export const needsApproval = (p: ApprovalPolicy, reach: number | undefined): boolean =>
  p.approvers.length > 0 && (p.approveFrom === undefined || reach === undefined || reach >= p.approveFrom);

/** Whom the campaign reaches, counted as §1 does: the headline's figure (undefined: not known) and the line. */
export async function countReach(
  s: Pick<ApprovalCheckDeps, "api" | "audiences" | "memo">,
  id: number,
  c: Campaign,
  readsSoFar = 1,
): Promise<{ reach?: number; text: string; audience?: Audience }> {
  const audience = await audienceOf(s, id, c);
  if (!audience || (!audience.groupIds.length && !audience.contactIds.length))
    return {
      text: audience
        ? "Nobody: it names no group and no contact"
        : "Not known to Switchboard (made elsewhere)",
      ...(audience ? { audience, reach: 0 } : {}),
    };
  const a = await countAudienceOnce(
    s.memo ?? s,
    s,
    id,
    c,
    audience,
    new ReadBudget(PROMPT_READS - readsSoFar),
  );
  const optedOut = a.groups.reduce((n, g) => n + g.optedOut, 0) + a.contactsOptedOut;
  const counted = a.groups.every((g) => g.members !== undefined);
  const chosen = a.groups.reduce((n, g) => n + (g.members ?? 0), 0) + a.contacts;
  return { reach: counted ? Math.max(0, chosen - optedOut) : undefined, text: audienceLine(a), audience };
}

/** The campaign's template as it is now (`record`), or why it will not be sent now (`problem`). */
export async function templateNow(
  api: MessagingApi,
  c: Campaign,
): Promise<{ record?: ApiRecord; problem?: string }> {
  const templateId = refId(c, "templateId", "template_id");
  if (templateId === undefined) return {};
  let t: ApiRecord;
  try {
    t = await api.getTemplate(templateId, { lane: "interactive" });
  } catch (err) {
    if (isApiError(err) && err.kind === "not_found")
      return { problem: `its template #${templateId} no longer exists` };
    throw err;
  }
  const status = String(pick(t, "status") ?? "").toLowerCase();
  return status && status !== "approved"
    ? {
        record: t,
        problem: `its template *${esc(show(pick(t, "name") ?? `#${templateId}`))}* is ${esc(status)} now`,
      }
    : { record: t };
}

/** Why a template will not be sent now, or undefined when it is approved. */
export async function templateProblem(api: MessagingApi, c: Campaign): Promise<string | undefined> {
  return (await templateNow(api, c)).problem;
}

/**
 * Who may approve, in words for `actor` (a requester): one approval is enough,
 * and nobody approves their own (issue 37 §2).
 */
export function whoApproves(approvers: readonly string[], actor?: string): string {
  const others = approvers.filter((a) => a !== actor);
  const list = others.map(mention);
  const names =
    list.length <= 1
      ? (list[0] ?? "another approver")
      : `${list.slice(0, -1).join(", ")} or ${list[list.length - 1]}`;
  const own = actor && approvers.includes(actor) ? " (you cannot approve your own)" : "";
  return `${list.length > 1 ? "one approval is enough, from " : "an approval from "}${names}${own}`;
}

/**
 * The outcome of a check: no approval needed, a good one, or why not (mrkdwn)
 * and whether to ask again; `changed`: the campaign is not the one approved
 * (the approval was voided).
 */
export type ApprovalCheck =
  | { needed: false; reach?: number }
  | { needed: true; ok: true; record: ApprovalRecord; reach?: number }
  | {
      needed: true;
      ok: false;
      reason: string;
      ask: boolean;
      record?: ApprovalRecord;
      reach?: number;
      changed?: string[];
    };

/**
 * Whether `c` may be sent (or started) now as far as approval goes. `accept`:
 * the states that count as approved (a held start has already taken its
 * approval: `used`). Costs the audience's count (at most 9 reads) and one
 * read of the template, only when approvers are set.
 */
export async function checkApproval(
  s: ApprovalCheckDeps,
  id: number,
  c: Campaign,
  accept: ReadonlyArray<"approved" | "used"> = ["approved"],
  readsSoFar = 1,
): Promise<ApprovalCheck> {
  const { policy, store } = s.approvals;
  if (!policy.approvers.length) return { needed: false };
  const counted = await countReach(s, id, c, readsSoFar);
  const reach = counted.reach;
  if (!needsApproval(policy, reach)) return { needed: false, reach };
  const name = `*${esc(nameOf(c, `Campaign ${id}`))}*`;
  const who = whoApproves(policy.approvers, s.actor);
  const r = await store.latest(id);
  const now = s.approvals.now();
  const why = `${name} reaches ${reach === undefined ? "people not counted now" : `${num(reach)} ${reach === 1 ? "person" : "people"}`}${policy.approveFrom ? ` (approval from ${num(policy.approveFrom)})` : ""}`;
  // A refusal: why, whether asking (again) is what to do next, and the approval it is about (when there is one).
  const refuse = (reason: string, ask: boolean): Extract<ApprovalCheck, { ok: false }> => ({
    needed: true,
    ok: false,
    ask,
    reach,
    ...(r ? { record: r } : {}),
    reason,
  });
  if (!r) return refuse(`${why}: it is sent once approved — ${who}.`, true);
  if (r.state === "pending" && isExpired(r, now))
    return refuse(
      `The request to approve ${name} (asked by ${personWords(r.requestedBy)}, ${dateToken(r.requestedAt)}) expired ${dateToken(expiresAt(r)!)}: nobody decided within 24 hours. Ask again.`,
      true,
    );
  if (r.state === "pending")
    return refuse(
      `${name} is waiting for approval (asked by ${personWords(r.requestedBy)}, ${dateToken(r.requestedAt)}): it can be sent once approved — ${who}.`,
      false,
    );
  if (r.state === "rejected")
    return refuse(
      `${name} was rejected by ${personWords(r.decidedBy ?? "")}: "${esc(r.reason ?? "")}". Change it, then ask again.`,
      true,
    );
  if (isExpired(r, now))
    return refuse(
      `The approval of ${name} by ${personWords(r.decidedBy ?? "")} expired ${dateToken(new Date(r.decidedAt!.getTime() + APPROVAL_TTL_MS))}: an approval is good for 24 hours. Ask again.`,
      true,
    );
  if (r.state === "void")
    return refuse(
      `${name} changed since ${personWords(r.decidedBy ?? "")} approved it: ${esc(r.reason ?? "it is not the campaign approved")}. The approval no longer holds; ask again.`,
      true,
    );
  if (!(accept as readonly string[]).includes(r.state))
    return refuse(`${why}: its last approval was used already; it needs a new one — ${who}.`, true);
  const template = await templateNow(s.api, c);
  if (template.problem)
    return refuse(
      `${name} changed since ${personWords(r.decidedBy ?? "")} approved it: ${template.problem}. Ask again once it is approved.`,
      true,
    );
  if (r.pinned) {
    // What was approved against the campaign as it is now (issue 37 §2): any difference sends nothing.
    const changes = pinChanges(r.pinned, pinOf(c, template.record, counted.audience, reach));
    if (changes.length) {
      const what = changes.join("; ");
      const voided = await store.voided(r.id, what).catch(() => undefined);
      if (voided) await redrawApproval(s.approvals, voided);
      return {
        ...refuse(
          `${name} changed since ${personWords(r.decidedBy ?? "")} approved it: ${what}. Nothing was sent; the approval no longer holds — ask again.`,
          true,
        ),
        changed: changes,
      };
    }
    return { needed: true, ok: true, record: r, reach };
  }
  const changed =
    r.reach === undefined || reach === undefined
      ? r.reach !== reach
      : Math.abs(reach - r.reach) > COUNT_TOLERANCE * Math.max(r.reach, 1);
  if (changed)
    return refuse(
      `${name}'s audience changed since ${personWords(r.decidedBy ?? "")} approved it: ${r.reach === undefined ? "not counted" : num(r.reach)} then, ${reach === undefined ? "not counted" : num(reach)} now (more than 10% apart). Ask again.`,
      true,
    );
  return { needed: true, ok: true, record: r, reach };
}

/**
 * For a held start (issue 28 §4, built beside this): whether campaign `id`
 * may start now as far as approval goes. `take: true` when the held start is
 * set: the approval is used then (approved → used, once), as a send uses it;
 * at the start itself, call it again without `take`: the same checks run on
 * the approval the start took. ok: go on (`record`: the approval, none when
 * none is needed); not ok: `reason` in words (mrkdwn), `ask`: ask again.
 */
export async function approvalForStart(
  deps: ApprovalCheckDeps,
  campaignId: number,
  opts: { take?: boolean } = {},
): Promise<{ ok: true; record?: ApprovalRecord } | { ok: false; reason: string; ask: boolean }> {
  const c = await deps.api.getCampaign(campaignId, { lane: "background" });
  const check = await checkApproval(deps, campaignId, c, opts.take ? ["approved"] : ["approved", "used"]);
  if (!check.needed) return { ok: true };
  if (!check.ok) return { ok: false, reason: check.reason, ask: check.ask };
  if (!opts.take || check.record.state === "used") return { ok: true, record: check.record };
  const taken = await useApproval(deps.approvals, check.record);
  return taken
    ? { ok: true, record: taken }
    : { ok: false, reason: "The approval was used by another send meanwhile; ask again.", ask: true };
}

/** The refusal of a send that needs approval, with what to do next. */
export function approvalRefusal(
  ctx: Pick<CampaignContext, "actor">,
  id: number,
  check: { reason: string; ask: boolean },
): UserError {
  const shell = ctx.actor.via === "shell";
  const next = shell
    ? " Approval happens in Slack: there a broadcaster asks for it with *Request approval* on the campaign's card, and an approver decides."
    : "";
  return new UserError(
    `${check.reason}${next}`,
    false,
    !shell && check.ask
      ? [{ text: "Request approval", line: `campaign ${id} request`, style: "primary" }]
      : [{ text: "Open", line: `campaign ${id}` }],
  );
}

/**
 * The send prompt's check: refused in words when approval is needed and not
 * given (or no longer good). Its count of the audience is the prompt's own
 * (one per command), within the prompt's reads: the campaign, the template
 * read here and the template the prompt shows (3), the count (at most 7).
 */
export async function approvalGate(ctx: CampaignContext, id: number, c: Campaign): Promise<ApprovalCheck> {
  const deps = ctx.approvals;
  if (!deps?.policy.approvers.length) return { needed: false };
  const check = await checkApproval(
    {
      api: ctx.api,
      audiences: ctx.audiences,
      approvals: deps,
      memo: ctx,
      actor: ctx.actor.via === "shell" ? "shell" : ctx.actor.userId,
    },
    id,
    c,
    ["approved"],
    3,
  );
  if (check.needed && !check.ok) {
    if (check.record) await drawnExpired(deps, check.record);
    throw approvalRefusal(ctx, id, check);
  }
  return check;
}

/**
 * The send's own check, at Confirm: the approval taken for this send (once:
 * approved → used). `release` gives it back when the API certainly did not send.
 */
export async function takeApproval(
  ctx: CampaignContext,
  id: number,
): Promise<{ release: (err: unknown) => Promise<void> } | undefined> {
  const deps = ctx.approvals;
  if (!deps?.policy.approvers.length) return undefined;
  const c = await ctx.api.getCampaign(id);
  const check = await approvalGate(ctx, id, c);
  if (!check.needed || !check.ok) return undefined;
  const taken = await useApproval(deps, check.record);
  if (!taken)
    throw new UserError(usedMeanwhile(nameOf(c, `Campaign ${id}`)), false, [
      { text: "Open", line: `campaign ${id}` },
    ]);
  return { release: (err) => releaseApproval(deps, taken, err) };
}

/** Takes an approval for one send or start: approved (within 24 hours) → used, once; undefined when taken meanwhile. */
export function useApproval(
  deps: Pick<ApprovalDeps, "store" | "now">,
  r: ApprovalRecord,
): Promise<ApprovalRecord | undefined> {
  const now = deps.now();
  return deps.store.use(r.id, now, new Date(now.getTime() - APPROVAL_TTL_MS));
}

/** The words of an approval another send took first. */
export const usedMeanwhile = (name: string) =>
  `The approval of *${esc(name)}* was just used by another send; nothing was sent.`;

/**
 * After a send that took `taken` threw `err`: the approval given back when the API certainly did not send,
 * else its cards redrawn as used.
 */
export async function releaseApproval(
  deps: Pick<ApprovalDeps, "store" | "cards" | "now">,
  taken: ApprovalRecord,
  err: unknown,
): Promise<void> {
  const mayHaveSent =
    err instanceof NetworkError ? err.mayHaveReachedServer : isApiError(err) && err.kind === "server";
  if (!mayHaveSent) await deps.store.release(taken.id).catch(() => undefined);
  else await redrawApproval(deps, taken);
}

/** Every copy of a request's card, redrawn as it stands now (a failure is not a refusal). */
export async function redrawApproval(
  deps: Pick<ApprovalDeps, "store" | "cards" | "now">,
  r: ApprovalRecord,
): Promise<void> {
  if (!deps.cards) return;
  await deps.cards
    .update(await deps.store.cards(r.id), approvalCardView(r, deps.now()))
    .catch(() => undefined);
}

/**
 * A request found expired (by a send, a click, or its card read): every copy
 * of its card redrawn as expired, once, whoever finds it so first. Nothing
 * when it is not expired, or without Slack (the shell alone).
 */
export async function drawnExpired(
  deps: Pick<ApprovalDeps, "store" | "cards" | "now">,
  r: ApprovalRecord,
): Promise<void> {
  const now = deps.now();
  if (!deps.cards || !isExpired(r, now)) return;
  try {
    if (await deps.store.expiredDrawn(r.id, now))
      await deps.cards.update(await deps.store.cards(r.id), approvalCardView(r, now));
  } catch {
    // A card not redrawn is not a refusal: the send or click is answered all the same.
  }
}

/** After a send took the approval: the cards say it was used. */
export async function approvalUsed(ctx: CampaignContext, id: number): Promise<void> {
  const r = await ctx.approvals?.store.latest(id).catch(() => undefined);
  if (r?.state === "used" && ctx.approvals) await redrawApproval(ctx.approvals, r);
}

/** Where a campaign's card stands on approval: its status line and its next button. */
export interface ApprovalMark {
  line?: string;
  next: "request" | "send" | "none";
}

/** The campaign card's approval line and next button; undefined: no approval here (Send… as before). */
export async function approvalMark(
  ctx: CampaignContext,
  id: number,
  c: Campaign,
): Promise<ApprovalMark | undefined> {
  const deps = ctx.approvals;
  if (!deps?.policy.approvers.length) return undefined;
  const status = String(pick(c, "status") ?? "");
  if (status !== "draft" && status !== "scheduled") return undefined;
  const r = await deps.store.latest(id).catch(() => undefined);
  const now = deps.now();
  if (!r || r.state === "used") {
    if (deps.policy.approveFrom !== undefined) {
      const { reach } = await countReach(ctx, id, c, PROMPT_READS - 4).catch(() => ({ reach: undefined }));
      if (!needsApproval(deps.policy, reach)) return undefined;
    }
    return { next: "request" };
  }
  const line = approvalStateLine(r, now).replace(/\. (Good for|The draft|Ask again).*$/, "");
  if (isExpired(r, now)) {
    await drawnExpired(deps, r);
    return { line, next: "request" };
  }
  if (r.state === "pending") return { line, next: "none" };
  if (r.state === "approved" && !isExpired(r, now)) return { line, next: "send" };
  return { line, next: "request" };
}

export type { ApprovalCards, ApprovalDeps, ApprovalPolicy } from "./approval-deps.ts";
