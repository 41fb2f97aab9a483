import { MessagingClient } from "../api/client.ts";
import { type SharedBudget, sharedBudgetLimiter } from "../api/shared-limit.ts";
import { ContactNames } from "../commands/contact-names.ts";
import { type CoreOptions, createCommandCore, type SwitchboardCore } from "../commands/core.ts";
import type { InboxDeps, JoinOutcome } from "../commands/inbox.ts";
import type { ResolveGroupMembers } from "../commands/permissions.ts";
import type { Actor } from "../commands/types.ts";
import type { SettingValues, WorkspaceAdmin } from "../commands/workspace-admin.ts";
import { awayRuleOf } from "../domain/away.ts";
import { workClockOf } from "../domain/business-hours.ts";
import { startRulesOf } from "../domain/start-time.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import type { PostFn } from "../reports/scheduler.ts";
import { machineTimeZone, ReportService } from "../reports/service.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { AutomationStore } from "../store/automations.ts";
import type { CardMarks } from "../store/card-marks.ts";
import type { ChannelNames } from "../store/channels.ts";
import type { Db } from "../store/db.ts";
import type { InboxStore } from "../store/inbox.ts";
import { WorkspaceStores } from "../store/workspace-stores.ts";

export interface WorkspaceRuntime {
  id: WorkspaceId;
  /** Its command core: one for the runtime's life, each call made with the settings as they are now. */
  readonly core: SwitchboardCore;
  client: MessagingClient;
  /** The workspace's API key (never log it; maskSecret() it). */
  apiKey: string;
  /** Its stores, made once here and shared by its core, its Slack parts and its background work. */
  stores: WorkspaceStores;
  reports: ReportService;
  channels: ChannelNames;
  inbox: InboxDeps;
  /** In Slack: the workspace's bot client, the shared post queue, its audit channel. */
  slack?: SlackBridge;
  /** Its effective settings now (each part reads them when it runs). */
  readonly settings: SettingValues;
  /**
   * New effective settings, applied at once: the core's next call (who may write and broadcast, the default
   * channel, the zone and quiet hours), the audit channel, the reports' and the desk's zone, the steps setting
   * (read per request). Nothing is made again: the client, the stores, the key and long-lived work stay.
   */
  applySettings(settings: SettingValues): void;
  /** Its automations (events out), when the deployment has them. */
  automations?: CoreOptions["automations"];
  /** Listeners of every audited write of this workspace. */
  auditListeners: Array<(entry: AuditEntry) => void | Promise<void>>;
  /** An audited write or change, told to every listener in turn (the audit channel's post among them). */
  audited(entry: AuditEntry): Promise<void>;
  /** Runs `fn` first when the runtime closes (its background work). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/** What every workspace of a deployment shares. */
export interface DeploymentParts {
  config: Config;
  logger: Logger;
  db: Db;
  /** A workspace's automations (events out, issue 40 §3) over its store; unset: none. */
  automations?: (store: AutomationStore) => CoreOptions["automations"];
  /** Each key's budget shared by every replica (PostgreSQL: src/store/rate-budget.ts); unset: this process's alone. */
  budget?: SharedBudget;
}

export interface RuntimeSpec {
  id: WorkspaceId;
  baseUrl: string;
  apiKey: string;
  /**
   * The workspace's effective settings (its admin's: a value it set, else the environment's in single mode, else
   * the default): who may write and broadcast, channels, zone, steps. No part reads them from the config.
   */
  settings: SettingValues;
  /** Connect, disconnect and settings of this workspace (`/sb connect`, `/sb settings`). */
  admin?: WorkspaceAdmin;
  /** The messaging channel used when neither the settings nor a command name one (the embedded sandbox's first). */
  defaultChannelId?: number;
  /** In Slack: its bridge (bot client, post queue, audit channel) and the parts made with its bot (slackPartsOf). */
  slack?: SlackBridge;
  slackParts?: SlackParts;
  resolveGroupMembers?: ResolveGroupMembers;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  /** Slack: wakes its inbox poller, starting it when none runs yet (`/sb inbox on`; background.ts). */
  wakeInbox?: () => void;
}

export function buildWorkspace(shared: DeploymentParts, ws: RuntimeSpec): WorkspaceRuntime {
  const { config, db } = shared;
  const logger = shared.logger;
  const budget = {
    readPerMinute: config.API_READ_LIMIT,
    writePerMinute: config.API_WRITE_LIMIT,
    backgroundReadShare: config.BACKGROUND_READ_SHARE,
  };
  const client = new MessagingClient({
    baseUrl: ws.baseUrl,
    apiKey: ws.apiKey,
    timeoutMs: config.API_TIMEOUT_MS,
    deadlineMs: config.API_DEADLINE_MS,
    ...budget,
    // Several replicas: one budget per key, shared through the store (docs/api.md).
    ...(shared.budget
      ? {
          limiter: sharedBudgetLimiter(shared.budget, ws.baseUrl, ws.apiKey, {
            ...budget,
            onUnreachable: (err) =>
              logger.warn({ err: String(err) }, "the shared API budget is unreachable: this replica's alone"),
          }),
        }
      : {}),
    logger: logger.child({ part: "api" }),
  });
  // The workspace's stores, once: everything below takes its stores from here (issue 38 §2).
  const stores = new WorkspaceStores(db, ws.id);
  const auditListeners: WorkspaceRuntime["auditListeners"] = ws.onAudit ? [ws.onAudit] : [];
  const slack = ws.slack;
  const parts = slack ? ws.slackParts : undefined;
  // Its audit channel is its setting's (the bridge is told again at each change: applySettings).
  slack?.setAuditChannel?.(ws.settings.auditChannel);
  if (slack) auditListeners.push(slack.onAudit);
  const audited = async (entry: AuditEntry) => {
    for (const listener of auditListeners) await listener(entry);
  };
  // Events out: an audited write that is an event goes to the workspace's hooks (issue 40 §3).
  const automations = shared.automations?.(stores.automations);
  if (automations) auditListeners.push((entry) => automations.onAudit(entry));
  const resolveGroupMembers = ws.resolveGroupMembers ?? slack?.resolveGroupMembers;
  const channels = stores.channels;
  // Times are in the workspace's zone as set now wherever it has one; else, in Slack, each person's own
  // Slack zone (a report's schedule, a snooze until "tomorrow 9:00"), in the shell the machine's.
  const userTz = async (actor: Actor) =>
    settings.reportsTimeZone ?? (parts ? parts.userTz(actor) : machineTimeZone());
  // Slack: reports post to channels with its bot; the shell prints them.
  const reports = new ReportService({
    store: stores.reports,
    client,
    failureAlert: config.REPORT_FAILURE_ALERT,
    userTz,
    ...(parts ? { post: parts.reportPost } : {}),
  });
  const inbox: InboxDeps = {
    store: stores.inbox,
    ownSends: stores.ownSends,
    marks: stores.cardMarks,
    savedReplies: stores.savedReplies,
    // A snooze until "tomorrow 9:00" is in the person's own zone (issue 29 §3).
    userTz: parts ? parts.userTz : userTz,
    // Reply targets count in the workspace's business hours, in its zone, as set now (both needed).
    workClock: () => workClockOf(settings.businessHours, settings.reportsTimeZone),
    // The away message (issue 40 §1): the rule as set now; its audit row, then the audit channel.
    away: () => awayRuleOf(settings),
    audit: async (entry) => {
      await stores.audit.record(entry);
      await audited(entry);
    },
    ...(parts ? { join: parts.join, redraw: parts.redrawer(stores.inbox, stores.cardMarks) } : {}),
    ...(ws.wakeInbox ? { wake: ws.wakeInbox } : {}),
  };
  // Its caches are its own (issue 38 §3): kept across the cores a settings change makes, gone with the runtime.
  const contactNames = new ContactNames();
  const makeCore = (values: SettingValues) =>
    createCommandCore({
      api: client,
      stores,
      contactNames,
      apiKey: ws.apiKey,
      defaultChannelId: values.messagingChannel ?? ws.defaultChannelId,
      defaultCountry: values.country,
      importTimeoutMs: config.IMPORT_TIMEOUT_MS,
      writers: values.writers,
      broadcasters: values.broadcasters,
      admin: ws.admin,
      ...(automations ? { automations } : {}),
      resolveGroupMembers,
      onAudit: audited,
      logger: logger.child({ part: "core" }),
      reports,
      inbox,
      startRules: startRulesOf(values.reportsTimeZone, values.quietHours),
      approval: { ...values, cards: () => slack?.approvalCards },
    });
  // Its effective settings now: the one thing a change replaces. Everything else reads them when it runs.
  let settings = ws.settings;
  // The core of the settings as they are now, made again only after a change; the runtime's core is one
  // object for its whole life, each call going to it (nothing holds a core of older settings).
  let made = { settings, core: makeCore(settings) };
  const coreNow = () => {
    if (made.settings !== settings) made = { settings, core: makeCore(settings) };
    return made.core;
  };
  const closers: Array<() => Promise<void>> = [() => client.close()];
  let closed = false;
  const rt: WorkspaceRuntime = {
    id: ws.id,
    core: followingCore(coreNow),
    client,
    apiKey: ws.apiKey,
    stores,
    reports,
    channels,
    inbox,
    slack,
    get settings() {
      return settings;
    },
    ...(automations ? { automations } : {}),
    auditListeners,
    audited,
    applySettings(next) {
      settings = next;
      slack?.setAuditChannel?.(next.auditChannel);
    },
    onClose(fn) {
      closers.unshift(fn);
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const close of closers) await close().catch(() => {});
    },
  };
  return rt;
}

/**
 * A core whose every member is read from the one `now()` gives at that moment (the core's members are
 * closures and plain values: none reads `this`), so a caller holding it never runs on older settings.
 */
function followingCore(now: () => SwitchboardCore): SwitchboardCore {
  return new Proxy({} as SwitchboardCore, {
    get: (_target, key) => Reflect.get(now(), key),
    has: (_target, key) => Reflect.has(now(), key),
  });
}

/** A workspace's Slack side, made before its runtime (slackPartsOf) and given to it whole. */
export interface SlackParts {
  /** Posts a report now, with the workspace's bot. */
  reportPost: PostFn;
  /** A person's own Slack zone (users.info, cached). */
  userTz: (actor: Actor) => Promise<string | undefined>;
  /** Joins an inbox's channel. */
  join: (channel: string) => Promise<JoinOutcome>;
  /** Redraws a thread's card after its desk changed. */
  redrawer: (store: InboxStore, marks: CardMarks) => (channel: string, chatUserId: number) => Promise<void>;
}

/** The Slack side of a workspace's runtime, with its bot. Loaded only for Slack: the shell starts without Bolt. */
export async function slackPartsOf(slack: SlackBridge, logger: Logger): Promise<SlackParts> {
  const { slackReportPoster } = await import("../slack/features/reports/post.ts");
  const { createUserTz } = await import("../slack/features/reports/user-tz.ts");
  const { channelJoiner } = await import("../slack/features/inbox/join.ts");
  const { cardRedrawer } = await import("../slack/features/inbox/desk.ts");
  const reportsLog = logger.child({ part: "reports" });
  const inboxLog = logger.child({ part: "inbox" });
  return {
    reportPost: slackReportPoster(slack.client, slack.posts, reportsLog),
    userTz: createUserTz(slack.client, { logger: reportsLog }),
    join: channelJoiner(slack.client, inboxLog),
    redrawer: (store, marks) => cardRedrawer(slack.client, store, marks, inboxLog),
  };
}
