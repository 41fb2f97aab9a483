import { MessagingClient } from "../api/client.ts";
import { type SharedBudget, sharedBudgetLimiter } from "../api/shared-limit.ts";
import { ContactNames } from "../commands/contact-names.ts";
import { type CoreOptions, createCommandCore, type SwitchboardCore } from "../commands/core.ts";
import type { InboxAccess } from "../commands/inbox.ts";
import type { ResolveGroupMembers } from "../commands/permissions.ts";
import type { SettingValues, WorkspaceAdmin } from "../commands/workspace-admin.ts";
import { awayRuleOf } from "../domain/away.ts";
import { workClockOf } from "../domain/business-hours.ts";
import { startRulesOf } from "../domain/start-time.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import { machineTimeZone, ReportService } from "../reports/service.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { AutomationStore } from "../store/automations.ts";
import type { ChannelNames } from "../store/channels.ts";
import type { Db } from "../store/db.ts";
import { WorkspaceStores } from "../store/workspace-stores.ts";

export interface WorkspaceRuntime {
  id: WorkspaceId;
  /** Its command core (made again by applySettings). */
  core: SwitchboardCore;
  client: MessagingClient;
  /** The workspace's API key (never log it; maskSecret() it). */
  apiKey: string;
  /** Its stores, made once here and shared by its core, its Slack parts and its background work. */
  stores: WorkspaceStores;
  reports: ReportService;
  channels: ChannelNames;
  inbox: InboxAccess;
  /** In Slack: the workspace's bot client, the shared post queue, its audit channel. */
  slack?: SlackBridge;
  /** Its settings now. */
  settings?: SettingValues;
  /**
   * New settings, applied at once: a new core (who may write and broadcast,
   * the default channel), the audit channel, the reports' zone; the steps
   * setting is read per request. The client, the stores and the key stay.
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
  /** The workspace's settings (from Slack, or the environment's first values): who may write and broadcast, channels, zone, steps. */
  settings?: SettingValues;
  /** Connect, disconnect and settings of this workspace (`/sb connect`, `/sb settings`). */
  admin?: WorkspaceAdmin;
  /** The messaging channel used when a command names none. */
  defaultChannelId?: number;
  writers?: string[];
  broadcasters?: string[];
  slack?: SlackBridge;
  resolveGroupMembers?: ResolveGroupMembers;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
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
  if (slack) auditListeners.push(slack.onAudit);
  const audited = async (entry: AuditEntry) => {
    for (const listener of auditListeners) await listener(entry);
  };
  // Events out: an audited write that is an event goes to the workspace's hooks (issue 40 §3).
  const automations = shared.automations?.(stores.automations);
  if (automations) auditListeners.push((entry) => automations.onAudit(entry));
  const resolveGroupMembers = ws.resolveGroupMembers ?? slack?.resolveGroupMembers;
  const channels = stores.channels;
  // Slack: reports post to channels and default to the user's Slack zone; the shell prints them.
  const reports = new ReportService({
    store: stores.reports,
    client,
    failureAlert: config.REPORT_FAILURE_ALERT,
  });
  const inbox: InboxAccess = {
    store: stores.inbox,
    ownSends: stores.ownSends,
    marks: stores.cardMarks,
    savedReplies: stores.savedReplies,
  };
  // Its caches are its own (issue 38 §3): kept across the cores a settings change makes, gone with the runtime.
  const contactNames = new ContactNames();
  const makeCore = (settings: SettingValues | undefined) =>
    createCommandCore({
      api: client,
      stores,
      contactNames,
      apiKey: ws.apiKey,
      defaultChannelId: settings?.messagingChannel ?? ws.defaultChannelId,
      defaultCountry: settings?.country ?? config.DEFAULT_COUNTRY,
      importTimeoutMs: config.IMPORT_TIMEOUT_MS,
      writers: settings?.writers ?? ws.writers ?? config.SWITCHBOARD_WRITERS,
      broadcasters: settings?.broadcasters ?? ws.broadcasters ?? config.SWITCHBOARD_BROADCASTERS,
      admin: ws.admin,
      ...(automations ? { automations } : {}),
      resolveGroupMembers,
      onAudit: audited,
      logger: logger.child({ part: "core" }),
      reports,
      inbox,
      startRules: startRulesOf(
        settings?.reportsTimeZone ?? config.REPORTS_TIME_ZONE,
        settings?.quietHours ?? config.QUIET_HOURS,
      ),
      approval: { ...settings, cards: () => slack?.approvalCards },
    });
  // Reply targets count in the workspace's business hours, in its zone, as set now (both needed).
  inbox.workClock = () => workClockOf(rt.settings?.businessHours, rt.settings?.reportsTimeZone);
  // The away message (issue 40 §1): the rule as set now; its audit row, then the audit channel.
  inbox.away = () => awayRuleOf(rt.settings);
  inbox.audit = async (entry) => {
    await stores.audit.record(entry);
    await audited(entry);
  };
  const closers: Array<() => Promise<void>> = [() => client.close()];
  let closed = false;
  const rt: WorkspaceRuntime = {
    id: ws.id,
    core: makeCore(ws.settings),
    client,
    apiKey: ws.apiKey,
    stores,
    reports,
    channels,
    inbox,
    slack,
    settings: ws.settings,
    ...(automations ? { automations } : {}),
    auditListeners,
    audited,
    applySettings(settings) {
      rt.settings = settings;
      rt.core = makeCore(settings);
      slack?.setAuditChannel?.(settings.auditChannel);
      zoneOf.get(rt)?.(settings.reportsTimeZone);
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
  // Without Slack (the shell), times are in the workspace's zone wherever Slack uses it, else the machine's;
  // attachSlack puts each person's own Slack zone under the workspace's.
  const workspaceZone = async () =>
    rt.settings?.reportsTimeZone ?? config.REPORTS_TIME_ZONE ?? machineTimeZone();
  reports.setUserTz(workspaceZone);
  inbox.userTz = workspaceZone;
  return rt;
}

/** Sets a runtime's reports zone (attachSlack: the setting, else each person's Slack zone). */
const zoneOf = new WeakMap<WorkspaceRuntime, (zone: string | undefined) => void>();

/** The Slack side of a workspace's services: reports post with its bot client (default zone: the user's Slack
 * zone), inbox channels are joined and cards redrawn with it. Loaded only for Slack: the shell starts without Bolt. */
export async function attachSlack(rt: WorkspaceRuntime, logger: Logger): Promise<void> {
  const slack = rt.slack;
  if (!slack) return;
  const { slackReportPoster } = await import("../slack/features/reports/post.ts");
  const { createUserTz } = await import("../slack/features/reports/user-tz.ts");
  const log = logger.child({ part: "reports" });
  rt.reports.setPost(slackReportPoster(slack.client, slack.posts, log));
  // The workspace's reports zone when set, else each person's own Slack zone.
  const userTz = createUserTz(slack.client, { logger: log });
  const setZone = (zone: string | undefined) => rt.reports.setUserTz(zone ? async () => zone : userTz);
  zoneOf.set(rt, setZone);
  setZone(rt.settings?.reportsTimeZone);
  const { channelJoiner } = await import("../slack/features/inbox/join.ts");
  rt.inbox.join = channelJoiner(slack.client, logger.child({ part: "inbox" }));
  // A snooze until "tomorrow 9:00" is in the person's own zone (issue 29 §3).
  rt.inbox.userTz = userTz;
  const { cardRedrawer } = await import("../slack/features/inbox/desk.ts");
  rt.inbox.redraw = cardRedrawer(
    slack.client,
    rt.inbox.store,
    rt.inbox.marks,
    logger.child({ part: "inbox" }),
  );
}
