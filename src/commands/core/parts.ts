// What the core's pieces share (run.ts, confirm.ts, and the facade, core.ts):
// the options, the commands, who may run them, the confirmations, the audit,
// a command's context, and the last look at every answer before it leaves.

import type { MessagingApi } from "../../api/types.ts";
import type { Automations } from "../../automations/index.ts";
import { finishBlocks, LIMITS, truncate } from "../../blocks/blocks.ts";
import type { ApprovalCards, ApprovalDeps, ApprovalPolicy } from "../../campaigns/approval-deps.ts";
import type { StartRules } from "../../domain/start-time.ts";
import type { Logger } from "../../platform/log.ts";
import { maskSecret } from "../../platform/log.ts";
import type { ReportService } from "../../reports/service.ts";
import type { AuditEntry } from "../../store/audit.ts";
import type { ChannelNames } from "../../store/channels.ts";
import type { Confirmations } from "../../store/confirmations.ts";
import type { WorkspaceStores } from "../../store/workspace-stores.ts";
import { ContactNames } from "../contact-names.ts";
import { ALL_COMMANDS } from "../defs/index.ts";
import { errorReply } from "../errors.ts";
import type { InboxDeps } from "../inbox.ts";
import { laterSendsOf } from "../later-message.ts";
import { mention, Permissions, type ResolveGroupMembers } from "../permissions.ts";
import { type AnySpec, type CommandContext, Registry } from "../registry.ts";
import type { Token } from "../tokenize.ts";
import type { Actor, Reply } from "../types.ts";
import type { WorkspaceAdmin } from "../workspace-admin.ts";
import { type Auditing, createAuditing } from "./audit.ts";

export interface CoreOptions {
  api: MessagingApi;
  /** The workspace's stores (its runtime's): its audit entries, confirmations, channel names and the rest. */
  stores: WorkspaceStores;
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
  /** Names of contacts read lately: the workspace runtime's, kept across its cores; default: this core's own. */
  contactNames?: ContactNames;
  /** The inboxes, for `/sb inbox…`. */
  inbox?: InboxDeps;
  /** The workspace's connection and settings (`/sb connect`, `/sb disconnect`, `/sb settings`). */
  admin?: WorkspaceAdmin;
  /** Its automations (events out): `/sb automation…`. */
  automations?: Automations;
  /** The workspace's time zone and quiet hours (held starts). */
  startRules?: StartRules;
  /** The time now; default the system's (tests move their own). */
  now?: () => Date;
  /** Approval before a send (issue 28 §3): who approves, from how many people; Slack's cards when in Slack. */
  approval?: Partial<ApprovalPolicy> & { cards?: () => ApprovalCards | undefined; now?: () => Date };
}

export interface CoreParts {
  opts: CoreOptions;
  registry: Registry;
  permissions: Permissions;
  confirmations: Confirmations;
  channels: ChannelNames;
  auditing: Auditing;
  /** How long a confirmation can be confirmed. */
  ttlMs: number;
  log?: Logger;
  /** Who runs a command, in an answer's words. */
  who(actor: Actor): string;
  /** Last line of defence: the key never leaves in an answer, whatever a record held. */
  scrub(reply: Reply): Reply;
  /** What a command's `run` gets: the audited client, the actor, the services. */
  makeContext(actor: Actor, line: string, tokens: Token[]): CommandContext;
  /** The answer to someone who may not run `spec`. */
  refusal(spec: AnySpec, allowed: string[]): Reply;
}

/** What a refused command does, in words, where "make changes" says too little (a card's buttons). */
const REFUSED_WORDS: Record<string, string> = {
  "inbox.assign": "assign conversations",
  "inbox.resolve": "resolve conversations",
  "inbox.reopen": "reopen conversations",
  "inbox.on": "turn an inbox on",
  "inbox.off": "turn an inbox off",
};

/**
 * The command list every core reads, made once for the process: it holds the specs and their ids only, nothing
 * of a workspace, and is never changed (a Map of ~150 commands was ~4 KiB of each workspace's runtime).
 */
let allCommands: Registry | undefined;
const everyCommand = (): Registry => {
  if (!allCommands) allCommands = new Registry(ALL_COMMANDS);
  return allCommands;
};

export function coreParts(opts: CoreOptions): CoreParts {
  const registry = opts.registry ?? everyCommand();
  const { stores } = opts;
  const contactNames = opts.contactNames ?? new ContactNames();
  const channels = stores.channels;
  const audit = stores.audit;
  const confirmations = stores.confirmations;
  const permissions = new Permissions({
    writers: opts.writers,
    broadcasters: opts.broadcasters,
    resolveGroupMembers: opts.resolveGroupMembers,
    logger: opts.logger,
  });
  const ttlMs = opts.confirmationTtlMs ?? 15 * 60_000;
  // Approvers are checked as a list of their own (user groups' members resolved as for writers).
  const approval = opts.approval;
  const approvers = new Permissions({
    writers: approval?.approvers ?? [],
    resolveGroupMembers: opts.resolveGroupMembers,
    logger: opts.logger,
  });
  const approvals = (): ApprovalDeps | undefined =>
    approval && {
      policy: { approvers: approval.approvers ?? [], approveFrom: approval.approveFrom },
      store: stores.approvals,
      cards: approval.cards?.(),
      isApprover: async (userId) =>
        !!approval.approvers?.length &&
        userId !== "shell" &&
        (await approvers.check({ userId, via: "slack" }, "write")).ok,
      now: approval.now ?? (() => new Date()),
    };
  const apiKeyMasked = maskSecret(opts.apiKey);
  const log = opts.logger;
  const auditing = createAuditing({ api: opts.api, audit, apiKey: opts.apiKey, onAudit: opts.onAudit, log });

  const who = (actor: Actor) => (actor.via === "shell" ? "the shell operator" : `<@${actor.userId}>`);

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

  // What the person did, in words (a card's button types no command): "Only @alice may assign conversations".
  const refusal = (spec: AnySpec, allowed: string[]): Reply => {
    const kind = spec.access === "broadcast" ? "send or cancel campaigns" : "make changes";
    const what = REFUSED_WORDS[spec.id] ?? kind;
    return errorReply(
      `Only ${allowed.map(mention).join(", ")} may ${what}.`,
      `Ask one of them to do it, or to have you added to those who may ${kind}.`,
    );
  };

  const makeContext = (actor: Actor, line: string, tokens: Token[]): CommandContext => {
    // The audited client is made when a command first calls the API: most answers (help, a refusal) never do.
    let api: CommandContext["api"] | undefined;
    return {
      get api() {
        api ??= auditing.audited(actor, line);
        return api;
      },
      actor,
      line,
      tokens,
      defaultChannelId: opts.defaultChannelId,
      defaultCountry: opts.defaultCountry,
      importTimeoutMs: opts.importTimeoutMs,
      apiKeyMasked,
      who: who(actor),
      registry,
      may: async (access) => (await permissions.check(actor, access)).ok,
      reports: opts.reports,
      channels,
      launchedBy: async (campaignId) => {
        const l = await audit.lastLaunch(campaignId).catch(() => undefined);
        return l ? (l.via === "shell" ? "the shell" : `<@${l.actor}>`) : undefined;
      },

      inbox: opts.inbox,
      audiences: stores.campaignAudiences,
      testPhones: stores.testPhones,
      testSends: stores.testSends,
      campaignCards: stores.campaignCards,
      heldStarts: stores.heldStarts,
      laterSends: laterSendsOf(stores),
      startRules: opts.startRules ?? {},
      now: opts.now ?? (() => new Date()),
      approvals: approvals(),
      admin: opts.admin,
      ...(opts.automations ? { automations: opts.automations } : {}),
      workspace: stores.workspace,
      contactNames,
      audit: (operation, ok, answer) => auditing.done(actor, line, { operation, ok, answer }),
    };
  };

  return {
    opts,
    registry,
    permissions,
    confirmations,
    channels,
    auditing,
    ttlMs,
    log,
    who,
    scrub,
    makeContext,
    refusal,
  };
}

/** Tags a command's answer with the command and the record id it acted on (see Reply.origin). */
export function withOrigin(reply: Reply, spec: AnySpec, raw: Record<string, unknown>): Reply {
  const id = Number(typeof raw.id === "string" ? raw.id.replace(/^#/, "") : raw.id);
  return {
    ...reply,
    // A reply that says what it is keeps it (a send held for later is a held start's card, not a launch).
    origin: {
      ...reply.origin,
      command: reply.origin?.command ?? spec.id,
      ...(Number.isSafeInteger(id) && id > 0 ? { id } : {}),
    },
  };
}
