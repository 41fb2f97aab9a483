// Reject… on an approval card (issue 28 §3): a short reason, then the same
// command line an approver can type (`campaign <id> reject request=<n>
// <reason>`), so the core decides (first decision wins), redraws every copy
// of the card and tells the requester. The modal then says what happened.
import type { ModalView } from "@slack/types";
import { esc } from "../../blocks/blocks.ts";
import { campaignCardsRedrawn } from "../features/campaign-cards.ts";
import type { FormOutcome, SlackForm } from "./form.ts";
import { input, modal, sectionText, textInput, textOf } from "./kit.ts";

export const APPROVAL_REJECT_CALLBACK = "sb_approval_reject";

export interface RejectMeta {
  campaignId: number;
  requestId: number;
  name: string;
}

export function rejectModal(data: RejectMeta): ModalView {
  return modal({
    callbackId: APPROVAL_REJECT_CALLBACK,
    title: "Reject campaign",
    submit: "Reject",
    metadata: data,
    blocks: [
      sectionText(
        `Reject *${esc(data.name)}*? The person who asked gets your reason; the draft stays as it is, and can be asked again once changed.`,
      ),
      input(
        "reason",
        "Why",
        textInput("reason", { placeholder: "Wrong discount: it should be 15%", max: 300, multiline: true }),
        { hint: "A short reason, in words the person who asked can act on." },
      ),
    ],
  });
}

export const approvalRejectForm: SlackForm<"approval-reject", RejectMeta, { reason: string }> = {
  name: "approval rejection",
  kind: "approval-reject",
  callbackId: APPROVAL_REJECT_CALLBACK,
  build: (data) => rejectModal(data),
  submit: {
    check: ({ state }) => {
      const reason = (textOf(state, "reason") ?? "").trim();
      return reason ? { plan: { reason } } : { errors: { reason: "Say why, in a few words." } };
    },
    run: async (plan, s): Promise<FormOutcome> => {
      const { campaignId, requestId } = s.meta;
      // Free text as the line's last words: no quote or line break can end it early.
      const words = plan.reason.replace(/["\u201c\u201d]/g, "'").replace(/\s+/g, " ");
      const reply = await s.ctx.core.run(
        `campaign ${campaignId} reject request=${requestId} ${words}`,
        s.actor,
      );
      // The campaign's cards in channels say it was rejected (issue 37 §4).
      await campaignCardsRedrawn(s.ctx, s.client, reply);
      return {
        answer: {
          response_action: "update",
          view: modal({
            callbackId: "sb_approval_rejected",
            title: "Reject campaign",
            close: "Done",
            blocks: reply.blocks.length ? reply.blocks.slice(0, 5) : [sectionText(reply.text)],
          }),
        } as FormOutcome["answer"],
      };
    },
  },
};
