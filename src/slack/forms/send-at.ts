// Send at… (issue 28 §4): a campaign card's button opens this modal: a date
// and time (offered: the next full hour outside the quiet hours, in the
// reader's own zone, as Slack's picker shows it), the send prompt's
// confirmation (what is sent, to whom), and Start at. Submitting is the
// confirmation: the core's `campaign <id> send at=…` asked and confirmed at
// once, as the person who submitted (its permissions, audit, once-only), and
// the card with "Starts at …" posted where the form was opened, kept to be
// edited when the start's state changes.
import type { KnownBlock, ModalView } from "@slack/types";
import { blocksToText } from "../../blocks/text.ts";
import type { SendAtFormData } from "../../commands/form-kinds.ts";
import { campaignCardPosted } from "../features/campaign-cards.ts";
import { errorsFor } from "./field-errors.ts";
import { askedIn, type FormOutcome, type SlackForm, type Submission } from "./form.ts";
import { context, dateTimeOf, input, modal, sectionText } from "./kit.ts";
import { postOutcome } from "./submission.ts";

export const SEND_AT_CALLBACK = "sb_send_at";

export interface SendAtMeta {
  ch?: string;
  id?: number;
}

export function sendAtModal(data: SendAtFormData, meta: SendAtMeta): ModalView {
  // The prompt's header is the modal's title here; its other blocks say what is sent, to whom.
  const preview = data.preview.blocks.filter((b) => b.type !== "header" && b.type !== "actions");
  const blocks: KnownBlock[] = [
    sectionText(`*${data.name}*: Switchboard holds it and starts it at the time you choose.`),
    input(
      "at",
      "Start at",
      { type: "datetimepicker", action_id: "at", initial_date_time: data.at },
      {
        hint: data.rules
          ? `In your own time zone. The workspace's: ${data.rules}; a time in the quiet hours is refused.`
          : "In your own time zone.",
      },
    ),
    ...preview.slice(0, 40),
    context(
      "Until it starts, *Cancel start* on its card undoes it. Messages already sent cannot be taken back.",
    ),
  ];
  return modal({
    callbackId: SEND_AT_CALLBACK,
    title: "Send at…",
    submit: "Start at this time",
    metadata: { ...meta, id: data.id },
    blocks,
  });
}

async function hold(plan: { at: number }, s: Submission<SendAtMeta>): Promise<FormOutcome> {
  const refuse = (text: string): FormOutcome => ({
    answer: { response_action: "errors", errors: errorsFor({ at: text.replace(/[*`_]/g, "") }, s.view) },
  });
  const id = s.meta.id;
  if (!id) return refuse("This form lost its campaign: open Send at… again from the card.");
  const line = `campaign ${id} send at=${new Date(plan.at * 1000).toISOString()}`;
  const asked = await s.ctx.core.run(line, s.actor);
  const reply = asked.confirmation ? await s.ctx.core.confirm(asked.confirmation.id, s.actor) : asked;
  const heldId = reply.origin?.heldStart;
  if (!heldId) return refuse(blocksToText(reply.blocks) || reply.text);
  return {
    after: async () => {
      const posted = await postOutcome(
        s.ctx,
        s.client,
        { channel: s.meta.ch, userId: s.actor.userId },
        reply,
      );
      if (posted.ts && s.ctx.stores) await s.ctx.stores.heldStarts.setCard(heldId, posted.channel, posted.ts);
      if (posted.ts)
        await campaignCardPosted(s.ctx, s.client, {
          channel: posted.channel,
          ts: posted.ts,
          text: reply.text,
          reply,
          by: s.actor.userId,
        });
    },
    answer: { response_action: "clear" } as FormOutcome["answer"],
  };
}

export const sendAtForm: SlackForm<"send-at", SendAtMeta, { at: number }> = {
  ...askedIn("send-at", SEND_AT_CALLBACK, sendAtModal),
  name: "Send at form",
  submit: {
    check: ({ state }) => {
      const at = dateTimeOf(state, "at");
      if (at === undefined) return { errors: { at: "Choose the date and time it starts." } };
      if (at * 1000 <= Date.now()) return { errors: { at: "This time has passed: choose a later one." } };
      return { plan: { at } };
    },
    run: hold,
  },
};
