// What the commands see of approvals before a send (issue 28 §3): the
// settings (who approves, from how many people), the requests in the store,
// and the front end's cards (Slack's; absent in the shell alone). A leaf of
// the campaigns: their context (CampaignContext, src/campaigns/context.ts) names it.
import type { KnownBlock } from "@slack/types";
import type { ApprovalRecord, Approvals } from "../store/approvals.ts";

/** The workspace's settings: who approves, from how many people reached (unset: every campaign). */
export interface ApprovalPolicy {
  approvers: string[];
  approveFrom?: number;
}

/** One copy of an approval card: where Slack holds it. */
export interface CardCopy {
  channel: string;
  ts: string;
}

/** The front end's side (Slack): where the cards go, and a word to one person. */
export interface ApprovalCards {
  /**
   * Posts the request's card: in the audit channel mentioning the approvers
   * when one is set, else by DM to each approver (the requester left out).
   * `where`: in words ("in #audit", "by direct message of …"); `copies`: to keep with the request.
   */
  post(
    record: ApprovalRecord,
    view: { text: string; blocks: KnownBlock[] },
  ): Promise<{ where: string; copies: CardCopy[] }>;
  /** Redraws these copies of a card. */
  update(copies: CardCopy[], view: { text: string; blocks: KnownBlock[] }): Promise<void>;
  /** A direct message to one person. */
  tell(userId: string, text: string, blocks?: KnownBlock[]): Promise<void>;
}

/** What the commands see of approvals (CampaignContext.approvals). */
export interface ApprovalDeps {
  policy: ApprovalPolicy;
  store: Approvals;
  /** Slack's side; absent in the shell alone, where nobody could approve. */
  cards?: ApprovalCards;
  /** Whether this Slack user is an approver (user groups' members included). */
  isApprover(userId: string): Promise<boolean>;
  now(): Date;
}
