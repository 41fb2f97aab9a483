// Edit… on a message sent later (issue 40 §2): `/sb scheduled`'s button (or
// `/sb scheduled edit <n>` alone) opens this modal with the message's text and
// time as they are, the time in the workspace's zone and read as `at=` is (the
// send form's rule and words: later-message.ts laterTime). Save changes the
// timer under the version read when the form opened: a message being sent,
// sent, cancelled or changed meanwhile is said in the modal and nothing
// changes; a Save that changes nothing writes nothing. Only its writer or an
// admin may change it (as Cancel), and the writer must still be one who may
// make changes. Audited as the command `scheduled edit` is.
import type { KnownBlock, ModalView } from "@slack/types";
import type { SendMessageInput } from "../../api/schemas.ts";
import { actions, esc, truncate } from "../../blocks/blocks.ts";
import type { ScheduledEditFormData } from "../../commands/form-kinds.ts";
import {
  type LaterMessage,
  laterSaid,
  laterSendsOf,
  laterTime,
  laterWhen,
  laterWhom,
  notWaitingWords,
  zoneWords,
} from "../../commands/later-message.ts";
import { ACTION } from "../../commands/types.ts";
import { errorsFor } from "./field-errors.ts";
import { askedIn, type FormOutcome, type SlackForm, type Submission } from "./form.ts";
import { context, initialStateOf, input, modal, sectionText, textInput, textOf } from "./kit.ts";
import { postOutcome, refused } from "./submission.ts";

export const SCHEDULED_EDIT_CALLBACK = "sb_scheduled_edit";

export interface ScheduledEditMeta {
  ch?: string;
  /** The message's number, the version read, the workspace's zone. */
  n?: number;
  v?: number;
  tz?: string;
}

/** What Save changes: a new text, a new time; neither: nothing to write. */
interface Plan {
  text?: string;
  at?: Date;
}

const who = (setBy: string) => (setBy === "shell" ? "the shell" : `<@${setBy}>`);

export function scheduledEditModal(data: ScheduledEditFormData, meta: ScheduledEditMeta): ModalView {
  const zone = zoneWords(data.tz);
  const blocks: KnownBlock[] = [
    sectionText(`To *${esc(data.whom)}*, set by ${who(data.setBy)}.`),
    data.text !== undefined
      ? input(
          "text",
          "Message",
          textInput("text", {
            multiline: true,
            initial: data.text,
            // Slack refuses a view whose initial value is over max_length: a longer text (typed) keeps none.
            ...(data.text.length <= MAX_TEXT ? { max: MAX_TEXT } : {}),
          }),
          {
            hint: "What the customer will read. Line breaks are kept.",
          },
        )
      : sectionText(
          `*${esc(truncate(data.said, 500))}*\nOnly its time can change here: to send something else, cancel it and send a new one.`,
        ),
    input("at", `Send at (${zone})`, textInput("at", { initial: data.at, placeholder: "2026-12-01 09:00" }), {
      hint: `A date and time like 2026-12-01 09:00, or 09:00 for the next 09:00, in ${data.tz ? `the workspace's time zone (${data.tz})` : "UTC: the workspace has no time zone (an admin sets it in Settings)"}.`,
    }),
    context("It is sent once, at its time, as the person who set it. Quiet hours do not hold it."),
  ];
  return modal({
    callbackId: SCHEDULED_EDIT_CALLBACK,
    title: `Edit message ${data.number}`,
    submit: "Save",
    close: "Close",
    metadata: { ...meta, n: data.number, v: data.version, ...(data.tz ? { tz: data.tz } : {}) },
    blocks,
  });
}

/** A text message's most (the message form's). */
const MAX_TEXT = 3000;

/** The modal replaced by a sentence: what happened, nothing left to submit. */
const said = (n: number | undefined, text: string): FormOutcome => ({
  answer: {
    response_action: "update",
    view: modal({
      callbackId: "sb_scheduled_said",
      title: n ? `Message ${n}` : "Scheduled message",
      close: "Done",
      blocks: [sectionText(text)],
    }),
  } as FormOutcome["answer"],
});

async function save(plan: Plan, s: Submission<ScheduledEditMeta>): Promise<FormOutcome> {
  const { ctx, actor, meta } = s;
  const n = meta.n;
  const first = (s.view.blocks ?? []).some((b) => b.block_id === "text") ? "text" : "at";
  const errors = (e: Record<string, string>): FormOutcome => ({
    answer: { response_action: "errors", errors: errorsFor(e, s.view) },
  });
  if (!ctx.stores || !n || meta.v === undefined)
    return errors({ [first]: "This form lost its message: open Edit… again from /sb scheduled." });
  if (plan.text === undefined && plan.at === undefined)
    return said(n, `Message ${n}: nothing changed, so nothing was saved.`);
  const store = laterSendsOf(ctx.stores);
  const current = await store.get(n);
  const admin = async () => (await ctx.core.admin?.mayAdminister(actor).catch(() => false)) ?? false;
  if (!current || (current.setBy !== actor.userId && !(await admin())))
    return errors({
      [first]: `Only the person who set message ${n}, or an admin, may change it. Nothing was saved.`,
    });
  if (plan.text !== undefined && current.payload.body.type !== "text")
    return errors({ [first]: "Only a text message's text can change. Nothing was saved." });
  const payload: LaterMessage | undefined =
    plan.text !== undefined
      ? { ...current.payload, body: { ...current.payload.body, text: plan.text } as SendMessageInput }
      : undefined;
  const changed = [...(plan.text !== undefined ? ["text"] : []), ...(plan.at ? ["time"] : [])];
  const line = `scheduled edit (form) ${n} ${changed.join(" and ")}`;
  let moved: Awaited<ReturnType<typeof store.move>>;
  try {
    // Who may make changes checked as for the command; the change taken only from the version the form read.
    moved = await ctx.core.perform(actor, { access: "write", command: line }, () =>
      store.move(n, ["waiting"], "waiting", new Date(), {
        version: meta.v,
        ...(plan.at ? { at: plan.at } : {}),
        ...(payload ? { payload } : {}),
      }),
    );
  } catch (err) {
    return refused(err, () => undefined, first, s.view);
  }
  if (!moved) {
    const now = await store.get(n);
    return said(
      n,
      now?.state === "waiting"
        ? `Message ${n} was changed by someone else while this form was open, so nothing was saved. Close this and choose Edit… again to see it as it is now.`
        : `Message ${n} is no longer waiting: ${now ? notWaitingWords(now) : "it is gone"}. Nothing was changed.`,
    );
  }
  await ctx.core.audit(actor, {
    command: line,
    operation: "message.later.edit",
    ok: true,
    answer: { to: laterWhom(moved.payload), at: moved.at.toISOString(), number: n, changed },
  });
  const when = laterWhen(moved.at, new Date(), meta.tz);
  const text = `Message ${n} to *${esc(laterWhom(moved.payload))}* will be sent at ${esc(when)}:`;
  const quoted = `>${esc(truncate(laterSaid(moved.payload), 1000)).replace(/\n/g, "\n>")}`;
  return {
    answer: { response_action: "clear" },
    after: async () => {
      await postOutcome(
        ctx,
        s.client,
        { channel: meta.ch, userId: actor.userId },
        {
          text: text.replace(/\*/g, "").replace(/:$/, "."),
          blocks: [
            sectionText(`:pencil2: ${text}\n${quoted}`),
            actions([{ text: "Scheduled messages", actionId: ACTION.run, value: "scheduled" }]),
          ],
        },
      );
    },
  };
}

export const scheduledEditForm: SlackForm<"scheduled-edit", ScheduledEditMeta, Plan> = {
  ...askedIn("scheduled-edit", SCHEDULED_EDIT_CALLBACK, scheduledEditModal),
  name: "scheduled message form",
  submit: {
    check: ({ state, view, meta }) => {
      // Only what differs from what the form opened with is changed: an untouched Save writes nothing.
      const initial = initialStateOf((view.blocks ?? []) as KnownBlock[]);
      const errors: Record<string, string> = {};
      const plan: Plan = {};
      if (initial.text) {
        const text = textOf(state, "text")?.replace(/\r\n/g, "\n");
        if (!text) errors.text = "Write the message: it cannot be empty.";
        else if (text !== textOf(initial, "text")) plan.text = text;
      }
      const atText = textOf(state, "at")?.trim();
      if (!atText) errors.at = "Give the time it is sent, like 2026-12-01 09:00.";
      else if (atText !== textOf(initial, "at")?.trim()) {
        const at = laterTime(atText, new Date(), meta.tz ?? "UTC");
        if ("problem" in at) errors.at = at.problem;
        else plan.at = at.at;
      }
      return Object.keys(errors).length ? { errors } : { plan };
    },
    run: save,
  },
};
