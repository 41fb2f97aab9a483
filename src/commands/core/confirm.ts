// Confirmations: a command with a preview is stored and answered with Confirm
// and Cancel; Confirm runs it once (an atomic claim in the store), only for
// the person who asked, within the time; a write whose outcome is not known is
// "unknown", never "failed", with a button that shows the record.
import type { KnownBlock } from "@slack/types";
import { isApiError, NetworkError } from "../../api/errors.ts";
import { describeIssues } from "../../api/schemas.ts";
import { actions, context, esc, escPlaceholders, section, truncate } from "../../blocks/blocks.ts";
import type { Gesture } from "../../domain/actor.ts";
import { isSwitchboardError } from "../../platform/errors.ts";
import { metrics } from "../../platform/metrics.ts";
import type { Confirmation } from "../../store/confirmations.ts";
import { apiErrorReply, errorReply, inputErrorReply } from "../errors.ts";
import { type AnySpec, type Preview, UserError } from "../registry.ts";
import { plainLine, tokenize } from "../tokenize.ts";
import { ACTION, type Actor, type Reply } from "../types.ts";
import { type CoreParts, withOrigin } from "./parts.ts";

/** How a confirmation's line was asked for, as kept with it (older ones keep none: the Confirm click's). */
const GESTURES: readonly Gesture[] = ["typed", "button", "approval", "form"];

export interface Confirmer {
  /** Stores `spec`'s confirmation and answers with its preview, Confirm and Cancel. */
  ask(
    actor: Actor,
    spec: AnySpec,
    raw: Record<string, unknown>,
    text: string,
    preview: Preview,
  ): Promise<Reply>;
  confirm(confirmationId: string, actor: Actor): Promise<Reply>;
  dismiss(confirmationId: string, actor: Actor): Promise<Reply>;
}

export function confirmer(p: CoreParts): Confirmer {
  const { registry, permissions, confirmations, log, scrub } = p;

  const confirmationButtons = (c: Confirmation, button: Preview["confirm"]) =>
    actions([
      {
        text: button?.text ?? "Confirm",
        actionId: ACTION.confirm,
        value: c.id,
        style: button?.style ?? "danger",
      },
      { text: button?.dismiss ?? "Cancel", actionId: ACTION.dismiss, value: c.id },
    ]);

  const ask: Confirmer["ask"] = async (actor, spec, raw, text, preview) => {
    const c = await confirmations.create({
      actor: actor.userId,
      // How the line was asked for: Confirm is a click, but the audit tells the line as typed when it was.
      command: {
        id: spec.id,
        raw,
        line: p.auditing.cleanLine(text),
        ...(actor.how ? { how: actor.how } : {}),
      },
      ttlMs: p.ttlMs,
    });
    const minutes = Math.round(p.ttlMs / 60_000);
    const blocks: KnownBlock[] = [
      ...preview.blocks,
      context(
        `Only ${p.who(actor)} can confirm. This request expires in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
      ),
      confirmationButtons(c, preview.confirm),
    ];
    return scrub({
      visibility: "ephemeral",
      text: preview.text,
      blocks,
      confirmation: { id: c.id, prompt: preview.text },
    });
  };

  /** The read command that shows what a confirmed command acted on (`campaign 12`), when there is one. */
  const checkLine = (command: Confirmation["command"]): { line: string; noun: string } | undefined => {
    const noun = registry.get(command.id)?.noun;
    const id = String(command.raw.id ?? "").replace(/^#/, "");
    if (!noun || !/^\d+$/.test(id)) return undefined;
    const line = `${noun} ${id}`;
    const shown = registry.match(tokenize(line));
    const spec = shown?.spec;
    return spec && spec.access === "read" && !spec.preview && spec.id.endsWith(".show")
      ? { line, noun }
      : undefined;
  };

  /**
   * A confirmed write whose outcome is not known: say so, never "failed" (that
   * invites running it again, a second campaign send), and offer the check.
   */
  const unknownOutcome = (command: Confirmation["command"], lead: string): Reply => {
    const check = checkLine(command);
    const what = check
      ? check.noun === "campaign"
        ? "the campaign's status"
        : `the ${check.noun}`
      : "the result";
    const reply = errorReply(
      `${lead} The outcome is unknown: it may or may not have happened.`,
      `Check ${what} before running \`/sb ${esc(plainLine(command.line))}\` again: it could happen twice.`,
    );
    if (!check) return reply;
    const button = actions([
      { text: `Check ${check.line.replace(/ (\d+)$/, " #$1")}`, actionId: ACTION.run, value: check.line },
    ]);
    return { ...reply, blocks: [...reply.blocks, button] };
  };

  const explain = (c: Confirmation | undefined, actor: Actor): Reply => {
    if (!c)
      return errorReply("That confirmation does not exist (or was never stored). Run the command again.");
    const by = c.decidedBy
      ? c.decidedBy === "shell"
        ? "the shell operator"
        : `<@${c.decidedBy}>`
      : "someone";
    const at = c.decidedAt ? c.decidedAt.toISOString().replace(/\.\d+Z$/, "Z") : "";
    switch (c.state) {
      case "running":
        return errorReply(`Already confirmed by ${by} at ${at}; it is being carried out now.`);
      case "done":
        return errorReply(`Already done: confirmed by ${by} at ${at}. Nothing was sent again.`);
      case "failed":
        return errorReply(`This was confirmed by ${by} at ${at} and failed; run the command again to retry.`);
      case "unknown": {
        const interrupted = (c.result as { error?: unknown } | undefined)?.error === "interrupted";
        return unknownOutcome(
          c.command,
          `Confirmed by ${by} at ${at}, but ${interrupted ? "Switchboard stopped while carrying it out" : "no answer came from the messaging API"}; it was not run again.`,
        );
      }
      case "dismissed":
        return errorReply(
          `This was cancelled by ${by} at ${at}. Run the command again if you still want it.`,
        );
      default:
        if (c.expired) return errorReply("This confirmation has expired. Run the command again.");
        if (c.actor !== actor.userId) {
          return errorReply(`Only <@${c.actor}>, who asked for this, can confirm or cancel it.`);
        }
        return errorReply("This confirmation could not be claimed; try again.");
    }
  };

  const confirm = async (confirmationId: string, actor: Actor): Promise<Reply> => {
    try {
      const claimed = await confirmations.claim(confirmationId, actor.userId);
      if (!claimed) return scrub(explain(await confirmations.get(confirmationId), actor));
      const spec = registry.get(claimed.command.id);
      const fail = async (reply: Reply, result: unknown) => {
        await confirmations.finish(claimed.id, "failed", result);
        return scrub(reply);
      };
      if (!spec)
        return fail(errorReply("This confirmation names a command that no longer exists."), {
          error: "unknown command",
        });
      const verdict = await permissions.check(actor, spec.access);
      if (!verdict.ok) return fail(p.refusal(spec, verdict.allowed), { error: "refused" });
      const parsed = spec.schema.safeParse(claimed.command.raw);
      if (!parsed.success)
        return fail(inputErrorReply(spec, describeIssues(parsed.error, claimed.command.raw)), {
          error: "invalid",
        });
      const how = GESTURES.find((g) => g === claimed.command.how) ?? actor.how;
      const ctx = p.makeContext(
        { ...actor, ...(how ? { how } : {}) },
        claimed.command.line,
        tokenize(claimed.command.line),
      );
      try {
        const reply = await spec.run(parsed.data, ctx);
        await confirmations.finish(claimed.id, "done", { text: truncate(reply.text, 500) });
        metrics.confirmations.inc({ command: spec.id, outcome: "done" });
        return scrub(withOrigin(reply, spec, claimed.command.raw));
      } catch (err) {
        if (err instanceof NetworkError && err.mayHaveReachedServer) {
          log?.warn({ command: spec.id }, "confirmed command: no answer, outcome unknown");
          await confirmations.finish(claimed.id, "unknown", { error: err.kind });
          metrics.confirmations.inc({ command: spec.id, outcome: "unknown" });
          return scrub(
            unknownOutcome(
              claimed.command,
              `No answer from the messaging API to \`/sb ${esc(plainLine(claimed.command.line))}\`.`,
            ),
          );
        }
        const reply =
          err instanceof UserError
            ? errorReply(escPlaceholders(err.message))
            : apiErrorReply(err, { spec, id: claimed.command.raw.id });
        // A refusal's next steps as buttons (Request approval, Open…), as a typed command's refusal has them.
        if (err instanceof UserError && err.choices.length)
          reply.blocks.push(
            actions(
              err.choices.map((c) => ({ text: c.text, actionId: ACTION.run, value: c.line, style: c.style })),
            ),
          );
        const code = isSwitchboardError(err) ? err.code : "error";
        log?.info({ command: spec.id, code }, "confirmed command failed");
        metrics.confirmations.inc({ command: spec.id, outcome: "failed" });
        return fail(reply, {
          error: isApiError(err) ? err.kind : code,
          text: truncate(reply.text, 500),
        });
      }
    } catch (err) {
      log?.error({ err }, "confirm failed");
      return scrub(apiErrorReply(err));
    }
  };

  const dismiss = async (confirmationId: string, actor: Actor): Promise<Reply> => {
    try {
      const c = await confirmations.dismiss(confirmationId, actor.userId);
      if (!c) return scrub(explain(await confirmations.get(confirmationId), actor));
      const text = `Cancelled: \`/sb ${esc(plainLine(c.command.line))}\` was not run.`;
      return scrub({ visibility: "ephemeral", text, blocks: [section(text)] });
    } catch (err) {
      log?.error({ err }, "dismiss failed");
      return scrub(apiErrorReply(err));
    }
  };

  return { ask, confirm, dismiss };
}
