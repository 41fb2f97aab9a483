// The command core: a command line and who typed it in, Block Kit out.
// Order of work for every line: tokenize, find the command, check who may
// run it, validate every argument (no request is made for bad input), then
// either ask for confirmation (stored, so Confirm works once) or run it
// through the API client, recording every write in the audit table.

import type { KnownBlock } from "@slack/types";
import { distance } from "fastest-levenshtein";
import { isApiError, NetworkError } from "../api/errors.ts";
import { describeIssues } from "../api/schemas.ts";
import type { MessagingApi } from "../api/types.ts";
import {
  actions,
  context,
  esc,
  escPlaceholders,
  finishBlocks,
  LIMITS,
  num,
  section,
  truncate,
} from "../blocks/blocks.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { isSwitchboardError } from "../platform/errors.ts";
import type { Logger } from "../platform/log.ts";
import { maskSecret } from "../platform/log.ts";
import { metrics } from "../platform/metrics.ts";
import type { ReportService } from "../reports/service.ts";
import { type AuditEntry, AuditLog } from "../store/audit.ts";
import { CampaignAudiences, TestPhones } from "../store/campaigns.ts";
import { ChannelNames } from "../store/channels.ts";
import { type Confirmation, Confirmations } from "../store/confirmations.ts";
import type { Db } from "../store/db.ts";
import { channelNamesOf } from "./defs/common.ts";
import { ALL_COMMANDS } from "./defs/index.ts";
import { apiErrorReply, errorReply, inputErrorReply, usageLines } from "./errors.ts";
import type { InboxAccess } from "./inbox.ts";
import { mention, Permissions, type ResolveGroupMembers } from "./permissions.ts";
import {
  type AnySpec,
  ArgumentError,
  bindArguments,
  type CommandContext,
  type Preview,
  Registry,
  UserError,
} from "./registry.ts";
import { show } from "./render.ts";
import { plainLine, stripCommandName, type Token, TokenizeError, tokenize } from "./tokenize.ts";
import { ACTION, type Actor, type CommandCore, type Reply } from "./types.ts";
import type { WorkspaceAdmin } from "./workspace-admin.ts";

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

export interface CoreOptions {
  api: MessagingApi;
  db: Db;
  /** The workspace whose audit entries, confirmations and channel names the core reads and writes. */
  workspace: WorkspaceId;
  /** The API key, only to mask it and to keep it out of every answer. */
  apiKey?: string;
  defaultChannelId?: number;
  defaultCountry?: string;
  /** IMPORT_TIMEOUT_MS; unset: sized for the file. */
  importTimeoutMs?: number;
  writers?: string[];
  broadcasters?: string[];
  resolveGroupMembers?: ResolveGroupMembers;
  /** How long a confirmation can be confirmed; default 15 minutes. */
  confirmationTtlMs?: number;
  /** Called after each audited write (the Slack side posts it to AUDIT_CHANNEL). Errors are logged, not thrown. */
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  logger?: Logger;
  /** The commands; default: all of them. */
  registry?: Registry;
  /** Report schedules and summaries, for `/sb report…`. */
  reports?: ReportService;
  /** Channel names; default: read from `db`. */
  channels?: ChannelNames;
  /** The inboxes, for `/sb inbox…`. */
  inbox?: InboxAccess;
  /** The workspace's connection and settings (`/sb connect`, `/sb disconnect`, `/sb settings`). */
  admin?: WorkspaceAdmin;
}

export interface SwitchboardCore extends CommandCore {
  readonly registry: Registry;
  readonly permissions: Permissions;
}

/**
 * The longest command line the core reads (Slack's own limit for a slash
 * command's text): longer input is refused in words before any request,
 * not sent on to fail as an HTTP 431 or a 400.
 */
export const MAX_LINE = 4000;

const SECRET_OPTION = /(secret|token|password|key)=("[^"]*"|\S+)/gi;

/** The API's answer, small enough for an audit row and a log line. */
function summarize(answer: unknown): unknown {
  if (answer === null || typeof answer !== "object") return answer ?? null;
  const out: Record<string, unknown> = {};
  let n = 0;
  for (const [k, v] of Object.entries(answer as Record<string, unknown>)) {
    if (n++ >= 20) break;
    if (/secret|token|password|key/i.test(k)) continue;
    out[k] = v !== null && typeof v === "object" ? show(v, 200) : typeof v === "string" ? show(v, 200) : v;
  }
  return out;
}

/** Tags a command's answer with the command and the record id it acted on (see Reply.origin). */
function withOrigin(reply: Reply, spec: AnySpec, raw: Record<string, unknown>): Reply {
  const id = Number(typeof raw.id === "string" ? raw.id.replace(/^#/, "") : raw.id);
  return {
    ...reply,
    origin: { ...reply.origin, command: spec.id, ...(Number.isSafeInteger(id) && id > 0 ? { id } : {}) },
  };
}

export function createCommandCore(opts: CoreOptions): SwitchboardCore {
  const registry = opts.registry ?? new Registry(ALL_COMMANDS);
  const channels = opts.channels ?? new ChannelNames(opts.db, opts.workspace);
  const audit = new AuditLog(opts.db, opts.workspace);
  const confirmations = new Confirmations(opts.db, opts.workspace);
  const permissions = new Permissions({
    writers: opts.writers,
    broadcasters: opts.broadcasters,
    resolveGroupMembers: opts.resolveGroupMembers,
    logger: opts.logger,
  });
  const ttlMs = opts.confirmationTtlMs ?? 15 * 60_000;
  const apiKeyMasked = maskSecret(opts.apiKey);
  const log = opts.logger;

  const who = (actor: Actor) => (actor.via === "shell" ? "the shell operator" : `<@${actor.userId}>`);

  /** Removes anything secret from a command line before it is stored or logged. */
  const cleanLine = (line: string) => {
    let out = line.replace(SECRET_OPTION, (_m, k: string) => `${k}=[redacted]`);
    if (opts.apiKey) out = out.split(opts.apiKey).join("[redacted]");
    return out;
  };

  /** Last line of defence: the key never leaves in an answer, whatever a record held. */
  const scrub = (reply: Reply): Reply => {
    const finished: Reply = {
      ...reply,
      text: truncate(reply.text, LIMITS.fallbackText),
      blocks: finishBlocks(reply.blocks),
    };
    if (!opts.apiKey || opts.apiKey.length < 4) return finished;
    const json = JSON.stringify(finished);
    if (!json.includes(opts.apiKey)) return finished;
    return JSON.parse(json.split(opts.apiKey).join(apiKeyMasked)) as Reply;
  };

  /**
   * The client, with every write recorded in the audit table: a hook on the
   * transport, around each request that is not a GET. Input the client refuses
   * before any request never reaches the hook, so it is not audited.
   */
  /** An audit row of `actor`'s `line`, before its outcome is known. */
  const auditEntry = (actor: Actor, line: string, operation: string): AuditEntry => ({
    at: new Date(),
    actor: actor.userId,
    actorName: actor.userName,
    via: actor.via,
    channel: actor.channelId,
    command: cleanLine(line),
    operation,
    ok: false,
  });

  const audited = (actor: Actor, line: string): MessagingApi =>
    opts.api.withHook(async (request, next) => {
      if (request.method === "GET") return next();
      const entry = auditEntry(actor, line, request.operation);
      try {
        const res = await next();
        Object.assign(entry, { ok: true, status: res.status, answer: summarize(res.data) });
        return res;
      } catch (err) {
        Object.assign(entry, {
          status: isApiError(err) ? err.status : undefined,
          answer: {
            error: isApiError(err) ? err.kind : "error",
            message: show(err instanceof Error ? err.message : String(err), 300),
          },
        });
        throw err;
      } finally {
        await writeAudit(entry);
      }
    });

  const writeAudit = async (entry: AuditEntry) => {
    try {
      await audit.record(entry);
    } catch (err) {
      log?.error({ err: String(err), operation: entry.operation }, "could not record an audit row");
    }
    if (opts.onAudit) {
      try {
        await opts.onAudit(entry);
      } catch (err) {
        log?.warn({ err: String(err) }, "onAudit hook failed");
      }
    }
  };

  const refusal = (spec: AnySpec, allowed: string[]): Reply => {
    const kind = spec.scope === "broadcast" ? "send or cancel campaigns" : "make changes";
    return errorReply(
      `You may not run \`/sb ${esc(spec.words.join(" "))}\`: only ${allowed.map(mention).join(", ")} may ${kind}.`,
      `Ask one of them to do it, or to have you added to those who may ${kind}.`,
    );
  };

  const unknownCommand = (tokens: Token[]): Reply => {
    const typed = tokens
      .filter((t) => t.kind === "word")
      .slice(0, 3)
      .map((t) => t.text.toLowerCase());
    const scored = registry.visible().map((spec) => {
      const words = spec.words.filter((w) => !w.startsWith("<"));
      const a = typed.slice(0, words.length).join(" ");
      return { spec, d: distance(a, words.join(" ")) / Math.max(1, words.join(" ").length) };
    });
    scored.sort((x, y) => x.d - y.d);
    // Only commands that are really close: "foo" suggests nothing rather than three unrelated ones.
    const close = scored.filter((s) => s.d <= 0.5).slice(0, 3);
    const suggestions = close.map((s) => `• \`/sb ${esc(s.spec.usage)}\``);
    const unknown = `There is no command \`/sb ${esc(typed.join(" "))}\`.`;
    return errorReply(
      suggestions.length ? `${unknown} Did you mean:\n${suggestions.join("\n")}` : unknown,
      "`/sb help` lists every command.",
    );
  };

  const makeContext = (actor: Actor, line: string, tokens: Token[]): CommandContext => ({
    api: audited(actor, line),
    actor,
    line,
    tokens,
    defaultChannelId: opts.defaultChannelId,
    defaultCountry: opts.defaultCountry,
    importTimeoutMs: opts.importTimeoutMs,
    apiKeyMasked,
    who: who(actor),
    registry,
    may: async (scope) => (await permissions.check(actor, scope)).ok,
    reports: opts.reports,
    channels,
    launchedBy: async (campaignId) => {
      const l = await audit.lastLaunch(campaignId).catch(() => undefined);
      return l ? (l.via === "shell" ? "the shell" : `<@${l.actor}>`) : undefined;
    },

    inbox: opts.inbox,
    admin: opts.admin,
    workspace: opts.workspace,
    audiences: new CampaignAudiences(opts.db, opts.workspace),
    testPhones: new TestPhones(opts.db, opts.workspace),
    audit: (operation, ok, answer) =>
      writeAudit({
        ...auditEntry(actor, line, operation),
        ok,
        answer: answer === undefined ? undefined : summarize(answer),
      }),
  });

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
    if (!match) return { reply: unknownCommand(tokens) };
    const { spec } = match;
    const verdict = await permissions.check(actor, spec.scope);
    if (!verdict.ok) return { reply: refusal(spec, verdict.allowed) };
    let raw: Record<string, unknown>;
    try {
      raw = bindArguments(spec, match);
    } catch (err) {
      if (err instanceof ArgumentError)
        return {
          reply: errorReply(`\`/sb ${esc(spec.words.join(" "))}\`: ${esc(err.message)}`, usageLines(spec)),
        };
      throw err;
    }
    const parsed = spec.schema.safeParse(raw);
    if (!parsed.success) return { reply: inputErrorReply(spec, describeIssues(parsed.error, raw)) };
    return { spec, raw, args: parsed.data, ctx: makeContext(actor, text, match.rest), text };
  };

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

  /** A bounded label: which front end ran the command. */
  const frontEnd = (actor: Actor) => (actor.via === "shell" ? "shell" : "slack");

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
        const c = await confirmations.create({
          actor: actor.userId,
          command: { id: spec.id, raw, line: cleanLine(text) },
          ttlMs,
        });
        const minutes = Math.round(ttlMs / 60_000);
        const blocks: KnownBlock[] = [
          ...preview.blocks,
          context(
            `Only ${who(actor)} can confirm. This request expires in ${minutes} minute${minutes === 1 ? "" : "s"}.`,
          ),
          confirmationButtons(c, preview.confirm),
        ];
        return scrub({
          visibility: "ephemeral",
          text: preview.text,
          blocks,
          confirmation: { id: c.id, prompt: preview.text },
        });
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
      return scrub(failure(err, prepared));
    }
  };

  const failure = (err: unknown, prepared: Awaited<ReturnType<typeof prepare>> | undefined): Reply => {
    const spec = prepared && !("reply" in prepared) ? prepared.spec : undefined;
    const raw = prepared && !("reply" in prepared) ? prepared.raw : undefined;
    if (err instanceof UserError) {
      const reply = errorReply(
        escPlaceholders(err.message),
        spec && err.showUsage ? usageLines(spec) : undefined,
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

  /** The read command that shows what a confirmed command acted on (`campaign 12`), when there is one. */
  const checkLine = (command: Confirmation["command"]): { line: string; noun: string } | undefined => {
    const noun = registry.get(command.id)?.noun;
    const id = String(command.raw.id ?? "").replace(/^#/, "");
    if (!noun || !/^\d+$/.test(id)) return undefined;
    const line = `${noun} ${id}`;
    const shown = registry.match(tokenize(line));
    const spec = shown?.spec;
    return spec && spec.scope === "read" && !spec.preview && spec.id.endsWith(".show")
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
      const verdict = await permissions.check(actor, spec.scope);
      if (!verdict.ok) return fail(refusal(spec, verdict.allowed), { error: "refused" });
      const parsed = spec.schema.safeParse(claimed.command.raw);
      if (!parsed.success)
        return fail(inputErrorReply(spec, describeIssues(parsed.error, claimed.command.raw)), {
          error: "invalid",
        });
      const ctx = makeContext(actor, claimed.command.line, tokenize(claimed.command.line));
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

  const perform: CommandCore["perform"] = async (actor, what, work) => {
    const verdict = await permissions.check(actor, what.scope);
    if (!verdict.ok) {
      const kind = what.scope === "broadcast" ? "send or cancel campaigns" : "make changes";
      throw new UserError(
        `You may not do this: only ${verdict.allowed.map(mention).join(", ")} may ${kind}. Ask one of them to do it, or to have you added to those who may.`,
        false,
      );
    }
    return work(audited(actor, what.command));
  };

  const may: SwitchboardCore["may"] = async (actor, scope) => (await permissions.check(actor, scope)).ok;

  const channelNames: SwitchboardCore["channelNames"] = channelNamesOf({ channels });

  return { run, confirm, dismiss, perform, may, channelNames, registry, permissions, admin: opts.admin };
}
