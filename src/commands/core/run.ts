// Running a command line: tokenize, find the command, check who may run it,
// validate every argument (no request is made for bad input), then ask for
// confirmation (confirm.ts) or run it through the audited client.
import { isApiError } from "../../api/errors.ts";
import { describeIssues } from "../../api/schemas.ts";
import { actions, esc, escPlaceholders, num } from "../../blocks/blocks.ts";
import { metrics } from "../../platform/metrics.ts";
import { NO_COUNTRY } from "../args.ts";
import { apiErrorReply, errorReply, inputErrorReply, usageLines } from "../errors.ts";
import { type AnySpec, ArgumentError, bindArguments, type CommandContext, UserError } from "../registry.ts";
import { stripCommandName, type Token, TokenizeError, tokenize } from "../tokenize.ts";
import { ACTION, type Actor, type Reply } from "../types.ts";
import type { Confirmer } from "./confirm.ts";
import { type CoreParts, withOrigin } from "./parts.ts";
import { correctedLine, didYouMean, unknownCommand } from "./suggest.ts";

/**
 * The longest command line the core reads (Slack's own limit for a slash
 * command's text): longer input is refused in words before any request,
 * not sent on to fail as an HTTP 431 or a 400.
 */
export const MAX_LINE = 4000;

/**
 * Buttons a form stands behind (`contact edit 12`, `campaign new`, `send
 * contact:1`): in the shell they would not run as printed, so they are not
 * printed; every other button is a command line that runs as it reads.
 */
const OPENS_A_FORM = /^(?:\w+ new|(?:contact|group|user|tag|field|template) edit \d+|send(?: \S+)?)$/;

function shellHints(reply: Reply): Reply {
  const blocks = reply.blocks
    .map((b) =>
      b.type === "actions"
        ? {
            ...b,
            elements: b.elements.filter(
              (e) =>
                !(
                  e.type === "button" &&
                  typeof e.value === "string" &&
                  e.action_id?.startsWith(ACTION.run) &&
                  OPENS_A_FORM.test(e.value)
                ),
            ),
          }
        : b,
    )
    .filter((b) => b.type !== "actions" || b.elements.length > 0);
  return { ...reply, blocks };
}

/** A bounded label: which front end ran the command. */
const frontEnd = (actor: Actor) => (actor.via === "shell" ? "shell" : "slack");

export function runner(
  p: CoreParts,
  confirmer: Pick<Confirmer, "ask">,
): { run: (line: string, actor: Actor) => Promise<Reply> } {
  const { registry, permissions, log, scrub } = p;

  /** Parses and validates a line. Returns the reply to give instead when it cannot run. */
  const prepare = async (
    line: string,
    actor: Actor,
  ): Promise<
    | { reply: Reply }
    | { spec: AnySpec; raw: Record<string, unknown>; args: unknown; ctx: CommandContext; text: string }
  > => {
    const text = stripCommandName(line);
    if (text.length > MAX_LINE)
      return {
        reply: errorReply(
          `This command is ${num(text.length)} characters long; a command may be at most ${num(MAX_LINE)}. Nothing was run.`,
          "Shorten it: long texts belong in a form (`/sb send` without options in Slack), many contacts in a file import.",
        ),
      };
    let tokens: Token[];
    try {
      tokens = tokenize(text);
    } catch (err) {
      if (err instanceof TokenizeError)
        return { reply: errorReply(`Could not read the command: ${esc(err.message)}.`) };
      throw err;
    }
    if (tokens.length === 0) tokens = tokenize("help");
    const match = registry.match(tokens);
    if (!match) return { reply: unknownCommand(registry, tokens) };
    const { spec } = match;
    const verdict = await permissions.check(actor, spec.access);
    if (!verdict.ok) return { reply: p.refusal(spec, verdict.allowed) };
    let raw: Record<string, unknown>;
    try {
      raw = bindArguments(spec, match);
    } catch (err) {
      // Closer to another command ("campaign 2 sned"): that command's line, corrected.
      const corrected =
        err instanceof ArgumentError && !err.meant ? correctedLine(registry, tokens) : undefined;
      if (corrected && corrected.spec !== spec)
        return {
          reply: didYouMean(`There is no command \`/sb ${esc(text.trim())}\`.`, corrected),
        };
      if (err instanceof ArgumentError)
        return {
          reply: errorReply(
            `\`/sb ${esc(spec.words.join(" "))}\`: ${esc(err.message)}`,
            usageLines(spec, text),
          ),
        };
      throw err;
    }
    const parsed = spec.schema.safeParse(raw);
    if (!parsed.success) return { reply: inputErrorReply(spec, describeIssues(parsed.error, raw), text) };
    return { spec, raw, args: parsed.data, ctx: p.makeContext(actor, text, match.rest), text };
  };

  const run = async (line: string, actor: Actor): Promise<Reply> =>
    actor.via === "shell" ? shellHints(await runLine(line, actor)) : runLine(line, actor);

  const runLine = async (line: string, actor: Actor): Promise<Reply> => {
    let prepared: Awaited<ReturnType<typeof prepare>> | undefined;
    try {
      prepared = await prepare(line, actor);
      if ("reply" in prepared) {
        metrics.commands.inc({ command: "none", front_end: frontEnd(actor), outcome: "not_run" });
        return scrub(prepared.reply);
      }
      const { spec, raw, args, ctx, text } = prepared;
      const preview = spec.preview ? await spec.preview(args, ctx) : undefined;
      if (preview) {
        metrics.commands.inc({ command: spec.id, front_end: frontEnd(actor), outcome: "asked_to_confirm" });
        return await confirmer.ask(actor, spec, raw, text, preview);
      }
      const reply = await spec.run(args, ctx);
      metrics.commands.inc({ command: spec.id, front_end: frontEnd(actor), outcome: "ok" });
      return scrub(withOrigin(reply, spec, raw));
    } catch (err) {
      const spec = prepared && !("reply" in prepared) ? prepared.spec.id : "none";
      metrics.commands.inc({
        command: spec,
        front_end: frontEnd(actor),
        outcome: err instanceof UserError ? "refused" : "failed",
      });
      return scrub(await withSettingsButton(failure(err, prepared), err, actor));
    }
  };

  const failure = (err: unknown, prepared: Awaited<ReturnType<typeof prepare>> | undefined): Reply => {
    const spec = prepared && !("reply" in prepared) ? prepared.spec : undefined;
    const raw = prepared && !("reply" in prepared) ? prepared.raw : undefined;
    if (err instanceof UserError) {
      const reply = errorReply(
        escPlaceholders(err.message),
        spec && err.showUsage
          ? usageLines(spec, prepared && !("reply" in prepared) ? prepared.text : "")
          : undefined,
      );
      if (err.choices.length)
        reply.blocks.push(
          actions(
            err.choices.map((c) => ({ text: c.text, actionId: ACTION.run, value: c.line, style: c.style })),
          ),
        );
      return reply;
    }
    if (isApiError(err)) log?.info({ kind: err.kind, command: spec?.id }, "API refused a command");
    else log?.error({ err, command: spec?.id }, "command failed");
    return apiErrorReply(err, { spec, id: raw?.id });
  };

  /** A number that needs a country while none is set: admins get a Settings button (the shell prints it as `settings`). */
  const withSettingsButton = async (reply: Reply, err: unknown, actor: Actor): Promise<Reply> => {
    if (!(err instanceof UserError) || !err.message.includes(NO_COUNTRY)) return reply;
    const admin = p.opts.admin;
    if (!admin || !(await admin.mayAdminister(actor).catch(() => false))) return reply;
    reply.blocks.push(
      actions([{ text: "Settings", actionId: ACTION.run, value: "settings", style: "primary" }]),
    );
    return reply;
  };

  return { run };
}
