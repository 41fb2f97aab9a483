// The approval card (issue 28 §3) and the campaign card's approval line
// (§5), drawn from a request as the store keeps it: the campaign by name, the
// message as customers read it, the audience counted, the channel, when it
// would start, who asks; then Approve / Reject…, or who decided and when
// (a Slack date token: each reader's own zone), or that it expired.
import type { KnownBlock } from "@slack/types";
import { ACTION } from "../blocks/actions.ts";
import { esc, num } from "../blocks/blocks.ts";
import type { ApprovalRecord } from "../store/approvals.ts";
import { unchecked } from "./pin.ts";

/** How long an approval may be used for a send or a held start. */
export const APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

/** `<@U…>`, or the shell. */
export const personWords = (id: string) => (id === "shell" ? "the shell operator" : `<@${id}>`);

/** A time as a Slack date token: each reader sees it in their own zone. */
export function dateToken(at: Date): string {
  return `<!date^${Math.floor(at.getTime() / 1000)}^{date_short_pretty} {time}|${at.toISOString().slice(0, 16).replace("T", " ")} UTC>`;
}

/**
 * When a request stops being good: an approved one for a send, 24 hours after
 * the decision; a pending one for a decision, 24 hours after it was asked.
 */
export const expiresAt = (r: ApprovalRecord): Date | undefined =>
  r.state === "pending"
    ? new Date(r.requestedAt.getTime() + APPROVAL_TTL_MS)
    : r.decidedAt && new Date(r.decidedAt.getTime() + APPROVAL_TTL_MS);

/** Approved more than 24 hours ago, or asked more than 24 hours ago and not decided. */
export const isExpired = (r: ApprovalRecord, now: Date): boolean =>
  (r.state === "approved" || r.state === "pending") && (expiresAt(r)?.getTime() ?? 0) <= now.getTime();

/** "1,240 people", or nothing when not counted. */
export const reachWords = (r: Pick<ApprovalRecord, "reach">): string =>
  r.reach === undefined ? "" : ` for ${num(r.reach)} ${r.reach === 1 ? "person" : "people"}`;

/** The card's line of where the request stands (mrkdwn). */
export function approvalStateLine(r: ApprovalRecord, now: Date): string {
  const by = r.decidedBy ? personWords(r.decidedBy) : "";
  const when = r.decidedAt ? dateToken(r.decidedAt) : "";
  if (isExpired(r, now) && r.state === "pending")
    return `:hourglass: Request *expired* ${dateToken(expiresAt(r)!)}: nobody decided within 24 hours. Ask again to send it.`;
  if (isExpired(r, now))
    return `:hourglass: Approved by ${by}, ${when}: *expired* ${dateToken(expiresAt(r)!)}, not sent within 24 hours. Ask again to send it.`;
  switch (r.state) {
    case "pending":
      return `:hourglass_flowing_sand: *Waiting for approval* (asked by ${personWords(r.requestedBy)})`;
    case "approved":
      return `:white_check_mark: *Approved* by ${by}, ${when}. Good for a send until ${dateToken(expiresAt(r)!)}.`;
    case "rejected":
      return `:x: *Rejected* by ${by}, ${when}: "${esc(r.reason ?? "")}". The draft stays as it is.`;
    case "used":
      return `:white_check_mark: Approved by ${by}, ${when}; the approval was used to send it${r.usedAt ? ` ${dateToken(r.usedAt)}` : ""}.`;
    case "superseded":
      return ":leftwards_arrow_with_hook: Asked again since: a newer card holds this campaign's approval.";
    case "void":
      return `:warning: Approved by ${by}, ${when}, but the approval *no longer holds*: the campaign changed since (${esc(r.reason ?? "it is not the campaign approved")}). Nothing was sent; ask again to send it.`;
  }
}

const button = (i: number, text: string, value: string, style?: "primary" | "danger") => ({
  type: "button" as const,
  action_id: i === 0 ? ACTION.run : `${ACTION.run}:${i + 1}`,
  text: { type: "plain_text" as const, text },
  value,
  ...(style ? { style } : {}),
});

/** The approval card as it stands now: every copy shows the same. */
export function approvalCardView(r: ApprovalRecord, now: Date): { text: string; blocks: KnownBlock[] } {
  const c = r.card;
  const id = r.campaignId;
  const asker = personWords(r.requestedBy);
  // Nobody approves their own: the requester is not among those asked.
  const others = c.approvers.filter((m) => m !== `<@${r.requestedBy}>`);
  const to = others.length ? others.join(", ") : "the approvers";
  const blocks: KnownBlock[] = [
    {
      type: "section",
      block_id: "approval_head",
      text: {
        type: "mrkdwn",
        text:
          r.state === "pending" && !isExpired(r, now)
            ? `:raised_hand: *Approve ${esc(c.name)}?*\n${asker} asks ${to} to approve this campaign before it is sent.`
            : `:raised_hand: *Approval of ${esc(c.name)}*\n${asker} asked ${to} to approve this campaign before it is sent.`,
      },
    },
    {
      type: "section",
      block_id: "approval_facts",
      fields: [
        { type: "mrkdwn", text: `*Audience*\n${c.audience}` },
        { type: "mrkdwn", text: `*Channel*\n${esc(c.channel)}` },
        { type: "mrkdwn", text: `*Starts*\n${c.start}` },
        { type: "mrkdwn", text: `*Asked by*\n${asker}, ${dateToken(r.requestedAt)}` },
      ],
    },
  ];
  if (c.message)
    blocks.push({ type: "section", block_id: "approval_message", text: { type: "mrkdwn", text: c.message } });
  blocks.push({
    type: "section",
    block_id: "approval_state",
    text: { type: "mrkdwn", text: approvalStateLine(r, now) },
  });
  const expired = isExpired(r, now);
  if (r.state === "pending" && !expired) {
    blocks.push({
      type: "actions",
      block_id: "approval_actions",
      elements: [
        button(0, "Approve", `campaign ${id} approve request=${r.id}`, "primary"),
        button(1, "Reject…", `campaign ${id} reject request=${r.id}`),
      ],
    });
    blocks.push({
      type: "context",
      elements: [
        {
          type: "mrkdwn",
          text: `Nobody approves their own campaign; the first decision counts. A request not decided within 24 hours expires; an approval is good for 24 hours, for the campaign as shown here: a change to it sends nothing.${
            r.pinned && unchecked(r.pinned).length
              ? ` Its record does not show ${unchecked(r.pinned).join(", ")}: a change there cannot be seen.`
              : ""
          }`,
        },
      ],
    });
  } else if (r.state === "approved" && !expired) {
    blocks.push({
      type: "actions",
      block_id: "approval_actions",
      elements: [button(0, "Send now", `campaign ${id} send`, "primary")],
    });
  } else if (expired || r.state === "rejected" || r.state === "void") {
    blocks.push({
      type: "actions",
      block_id: "approval_actions",
      elements: [button(0, "Request approval", `campaign ${id} request`)],
    });
  }
  const state = expired
    ? r.state === "pending"
      ? "request expired"
      : "approval expired"
    : r.state === "pending"
      ? "waiting for approval"
      : r.state;
  return { text: `Approve ${c.name}? ${state}`.slice(0, 3000), blocks };
}
