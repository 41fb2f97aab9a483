// "Until a time you choose…" in an inbox card's Snooze menu (issue 29 §3): a
// small modal with a date and time (in the person's own zone, Slack's
// picker), then `inbox snooze <channel> <chat user> until=<time>` as that
// person, the answer theirs alone. Opened by the card's menu
// (listeners/actions/inbox.ts), not by the core.
import type { ModalView } from "@slack/types";
import type { SlackForm } from "./form.ts";
import { context, dateTimeOf, input, modal } from "./kit.ts";

export const SNOOZE_CALLBACK = "sb_inbox_snooze_at";

export interface SnoozeMeta {
  ch: string;
  u: number;
  name: string;
}

export function snoozeModal(meta: SnoozeMeta, now: Date): ModalView {
  // Slack's picker starts at the next whole hour.
  const next = Math.ceil(now.getTime() / 3_600_000) * 3600;
  return modal({
    callbackId: SNOOZE_CALLBACK,
    title: "Snooze",
    submit: "Snooze",
    metadata: meta,
    blocks: [
      input(
        "until",
        "Until",
        { type: "datetimepicker", action_id: "until", initial_date_time: next },
        {
          hint: "In your own time zone. The conversation comes back then, or at once if the customer writes.",
        },
      ),
      context(`The conversation with ${meta.name.replace(/[<>&]/g, "")} leaves the open list until then.`),
    ],
  });
}

export const snoozeForm: SlackForm<never, SnoozeMeta, { until: Date }> = {
  name: "snooze form",
  callbackId: SNOOZE_CALLBACK,
  submit: {
    check: ({ state }) => {
      const at = dateTimeOf(state, "until");
      if (at === undefined) return { errors: { until: "Choose a date and a time." } };
      if (at * 1000 <= Date.now()) return { errors: { until: "This time has passed: choose one to come." } };
      return { plan: { until: new Date(at * 1000) } };
    },
    run: async ({ until }, { ctx, client, meta, actor }) => ({
      after: async () => {
        if (!meta.ch || !meta.u) return;
        const reply = await ctx.core.run(
          `inbox snooze ${meta.ch} ${meta.u} until=${until.toISOString()}`,
          actor,
        );
        await client.chat
          .postEphemeral({ channel: meta.ch, user: actor.userId, text: reply.text, blocks: reply.blocks })
          .catch((err) =>
            ctx.logger.warn({ err: (err as Error).message }, "could not tell the snooze's outcome"),
          );
      },
    }),
  },
};
