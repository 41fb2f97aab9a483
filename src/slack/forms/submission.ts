// What every form submission shares: who submitted it, the API through the
// core's permission check and audit, answering Slack within its 3 seconds
// (field errors keep the user's input), and posting the outcome.
import type { ViewOutput, webApi } from "@slack/bolt";
import type { KnownBlock, ModalView } from "@slack/types";
import { isApiError, NetworkError, ValidationError } from "../../api/errors.ts";
import { apiErrorReply } from "../../commands/errors.ts";
import { UserError } from "../../commands/registry.ts";
import type { Actor } from "../../commands/types.ts";
import { errorRef } from "../../platform/errors.ts";
import type { Reach } from "../context.ts";
import { slackCode } from "../io/slack-errors.ts";
import { errorsFor, fieldErrors } from "./field-errors.ts";
import type { FormAnswer, FormOutcome, Submission } from "./form.ts";
import { context, modal, sectionText } from "./kit.ts";
import { restoredView } from "./restore.ts";

export interface ViewBody {
  user: { id: string; name?: string; username?: string; team_id?: string };
  team?: { id: string } | null;
  view: ViewOutput;
}

/** Who submitted a form, or typed in one (block_suggestion). */
export function viewActor(body: Pick<ViewBody, "user" | "team">, channelId?: string): Actor {
  return {
    userId: body.user.id,
    userName: body.user.username ?? body.user.name,
    teamId: body.team?.id ?? body.user.team_id,
    channelId,
    via: "slack",
    how: "form",
  };
}

/** Where the API's refusal belongs in the form. */
export function refusalErrors(
  err: unknown,
  blockFor: (field: string) => string | undefined,
  fallback: string,
  view: ViewOutput,
): Record<string, string> {
  let errors: Record<string, string>;
  if (err instanceof ValidationError && err.problems.length) {
    errors = fieldErrors(err.problems, blockFor, fallback);
  } else if (err instanceof UserError) {
    errors = { [fallback]: err.message.replace(/\*/g, "") };
  } else if (isApiError(err)) {
    errors = { [fallback]: apiErrorReply(err).text.replace(/\*/g, "") };
  } else throw err;
  return errorsFor(errors, view);
}

/** The API's refusal as the submission's answer: each problem at its field, the input kept. */
export function refused(
  err: unknown,
  blockFor: (field: string) => string | undefined,
  fallback: string,
  view: ViewOutput,
): FormOutcome {
  return { answer: { response_action: "errors", errors: refusalErrors(err, blockFor, fallback, view) } };
}

// Slack waits 3 s for the answer; past this the form says it is still working.
const ANSWER_WITHIN_MS = 2500;

/**
 * Runs the submission's work and answers Slack with what it returns (field
 * errors, an updated view, or nothing to close the form). Work slower than
 * Slack's deadline is acknowledged with a "working" view, then the outcome
 * replaces it.
 */
export async function answerSubmission(
  ctx: Reach,
  client: webApi.WebClient,
  view: ViewOutput,
  ack: (answer?: FormAnswer) => Promise<void>,
  work: () => Promise<FormOutcome>,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), ANSWER_WITHIN_MS);
  });
  const running = work().then(
    (outcome) => ({ outcome }),
    (err: unknown) => ({ err }),
  );
  const first = await Promise.race([running, deadline]);
  clearTimeout(timer);
  if (first !== "late") {
    if ("err" in first) {
      // Never an empty answer (it would close the form as if done): what happened, in words.
      await ack({ response_action: "update", view: failedView(ctx, first.err) } as FormAnswer);
      return;
    }
    await ack(first.outcome.answer);
    await first.outcome.after?.();
    return;
  }
  await ack({
    response_action: "update",
    view: modal({
      callbackId: "sb_working",
      title: "Working…",
      blocks: [
        sectionText(
          ":hourglass_flowing_sand: The messaging API is slow to answer; this form shows the outcome when it does.",
        ),
      ],
    }),
  } as FormAnswer);
  const done = await running;
  let text: string;
  if ("err" in done) {
    await client.views
      .update({ view_id: view.id, view: failedView(ctx, done.err) })
      .catch((err) => ctx.logger.warn({ err: slackCode(err) ?? String(err) }, "could not show the failure"));
    return;
  } else if (done.outcome.answer && "errors" in done.outcome.answer) {
    // Refused: the form comes back as submitted, each error under its field, so nothing typed is lost.
    const errors = done.outcome.answer.errors;
    const restored = restoredView(view, errors);
    if (restored) {
      const shown = await client.views
        .update({ view_id: view.id, view: restored })
        .then(() => true)
        .catch((err) => {
          ctx.logger.warn({ err: slackCode(err) ?? String(err) }, "could not restore the refused form");
          return false;
        });
      if (shown) return;
    }
    text = `:warning: The request was refused:\n${Object.values(errors)
      .map((e) => `• ${e}`)
      .join("\n")}\nOpen the form again to correct it.`;
  } else text = ":white_check_mark: Done. The outcome is posted in the conversation.";
  await client.views
    .update({
      view_id: view.id,
      view: modal({ callbackId: "sb_done", title: "Outcome", blocks: [sectionText(text)] }),
    })
    .catch((err) => ctx.logger.warn({ err: slackCode(err) ?? String(err) }, "could not show the outcome"));
  if (!("err" in done)) await done.outcome.after?.();
}

/**
 * What a form shows when its work failed: the reason in words when the failure
 * is one Switchboard knows (nothing was done), else that the outcome is not
 * known (a write may have reached the API) or that nothing was done, with the
 * error's reference; logged with the same reference.
 */
export function failedView(ctx: Pick<Reach, "logger">, err: unknown): ModalView {
  const ref = errorRef();
  let text: string;
  let title = "Not done";
  if (err instanceof NetworkError && err.mayHaveReachedServer) {
    title = "Outcome not known";
    ctx.logger.warn({ err: err.message, ref }, "form submission: outcome unknown");
    text = `:grey_question: The messaging API did not answer in time, so whether this was done is *not known* (ref ${ref}). Check before submitting it again, or it could happen twice.`;
  } else if (isApiError(err)) {
    ctx.logger.info({ kind: err.kind, ref }, "form submission refused by the API");
    text = `:warning: ${apiErrorReply(err).text}\nNothing was done.`;
  } else if (err instanceof UserError) {
    text = `:warning: ${err.message}\nNothing was done.`;
  } else {
    title = "Outcome not known";
    ctx.logger.error({ err, ref }, "form submission failed");
    text = `:warning: Something went wrong inside Switchboard (ref ${ref}), so whether this was done is not known: check before submitting it again. If it keeps happening, give this reference to whoever runs Switchboard.`;
  }
  return modal({ callbackId: "sb_failed", title, close: "Close", blocks: [sectionText(text)] });
}

/** Posts the outcome where the form was opened (or in the user's DM when the bot is not there). */
export async function postOutcome(
  ctx: Reach,
  client: webApi.WebClient,
  where: { channel?: string; userId: string },
  message: { text: string; blocks: KnownBlock[] },
): Promise<{ channel: string; ts?: string }> {
  const by = `by <@${where.userId}>`;
  const body = {
    text: `${message.text} (${by})`,
    blocks: [...message.blocks, context(by)],
    unfurl_links: false,
  };
  if (where.channel) {
    try {
      const res = await ctx.posts.post(client, { channel: where.channel, ...body });
      return { channel: where.channel, ts: res.ts };
    } catch (err) {
      const code = slackCode(err);
      if (code !== "not_in_channel" && code !== "channel_not_found" && code !== "is_archived") throw err;
    }
  }
  const res = await ctx.posts.post(client, { channel: where.userId, ...body });
  return { channel: where.userId, ts: res.ts };
}

/** The outcome in one line (`:emoji: text`), posted where the form was opened. */
export async function postLine(
  s: Pick<Submission<{ ch?: string }>, "ctx" | "client" | "meta" | "actor">,
  emoji: string,
  text: string,
): Promise<void> {
  await postOutcome(
    s.ctx,
    s.client,
    { channel: s.meta.ch, userId: s.actor.userId },
    { text, blocks: [sectionText(`:${emoji}: ${text}`)] },
  );
}
