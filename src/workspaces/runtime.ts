// One workspace's runtime: its messaging API client (its own key, so its own
// rate budget), its command core (its settings, its records), its report
// service, channel names and inboxes, and in Slack its bridge (its bot client
// and audit channel). Single-workspace mode builds one, from the environment
// (src/host/app.ts); many-workspace mode builds one per connected workspace on its
// first request and keeps the recently used ones (WorkspaceRegistry).
import type { webApi } from "@slack/bolt";
import { MessagingClient } from "../api/client.ts";
import { type SharedBudget, sharedBudgetLimiter } from "../api/shared-limit.ts";
import { createCommandCore, type SwitchboardCore } from "../commands/core.ts";
import type { InboxAccess } from "../commands/inbox.ts";
import type { ResolveGroupMembers } from "../commands/permissions.ts";
import type { CommandCore } from "../commands/types.ts";
import { type SettingValues, valuesOf, type WorkspaceAdmin } from "../commands/workspace-admin.ts";
import { workClockOf } from "../domain/business-hours.ts";
import { startRulesOf } from "../domain/start-time.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import { ReportService } from "../reports/service.ts";
import type { RequestTeam, SlackHooks, WorkspaceScope, WorkspaceSource } from "../slack/context.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { ChannelPostQueue } from "../slack/io/post-queue.ts";
import { UnknownWorkspaceError, workspaceScope } from "../slack/tenancy/scope.ts";
import type { AuditEntry } from "../store/audit.ts";
import { CardMarks } from "../store/card-marks.ts";
import { ChannelNames } from "../store/channels.ts";
import type { Db } from "../store/db.ts";
import { InboxStore } from "../store/inbox.ts";
import {
  type InstallationKey,
  type Installations,
  installationKey,
  type StoredInstallation,
} from "../store/installations.ts";
import { OwnSends } from "../store/own-sends.ts";
import { SavedReplies } from "../store/saved-replies.ts";
import type { WorkspaceVersions } from "../store/workspace-changes.ts";
import { notConnectedHooks } from "./not-connected-home.ts";

export interface WorkspaceRuntime {
  id: WorkspaceId;
  /** Its command core (made again by applySettings). */
  core: SwitchboardCore;
  client: MessagingClient;
  /** The workspace's API key (never log it; maskSecret() it). */
  apiKey: string;
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
  /** Listeners of every audited write of this workspace. */
  auditListeners: Array<(entry: AuditEntry) => void | Promise<void>>;
  /** Runs `fn` first when the runtime closes (its background work). */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

/** What every workspace of a deployment shares. */
export interface DeploymentParts {
  config: Config;
  logger: Logger;
  db: Db;
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
  const auditListeners: WorkspaceRuntime["auditListeners"] = ws.onAudit ? [ws.onAudit] : [];
  const slack = ws.slack;
  if (slack) auditListeners.push(slack.onAudit);
  const resolveGroupMembers = ws.resolveGroupMembers ?? slack?.resolveGroupMembers;
  const workspace = ws.id;
  const channels = new ChannelNames(db, workspace);
  // Slack: reports post to channels and default to the user's Slack zone; the shell prints them.
  const reports = new ReportService({ db, workspace, client, failureAlert: config.REPORT_FAILURE_ALERT });
  const inbox: InboxAccess = {
    store: new InboxStore(db, workspace),
    ownSends: new OwnSends(db, workspace),
    marks: new CardMarks(db, workspace),
    savedReplies: new SavedReplies(db, workspace),
  };
  const makeCore = (settings: SettingValues | undefined) =>
    createCommandCore({
      api: client,
      db,
      workspace,
      apiKey: ws.apiKey,
      defaultChannelId: settings?.messagingChannel ?? ws.defaultChannelId,
      channels,
      defaultCountry: settings?.country ?? config.DEFAULT_COUNTRY,
      importTimeoutMs: config.IMPORT_TIMEOUT_MS,
      writers: settings?.writers ?? ws.writers ?? config.SWITCHBOARD_WRITERS,
      broadcasters: settings?.broadcasters ?? ws.broadcasters ?? config.SWITCHBOARD_BROADCASTERS,
      admin: ws.admin,
      resolveGroupMembers,
      onAudit: async (entry) => {
        for (const listener of auditListeners) await listener(entry);
      },
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
  const closers: Array<() => Promise<void>> = [() => client.close()];
  let closed = false;
  const rt: WorkspaceRuntime = {
    id: ws.id,
    core: makeCore(ws.settings),
    client,
    apiKey: ws.apiKey,
    reports,
    channels,
    inbox,
    slack,
    settings: ws.settings,
    auditListeners,
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

export interface RegistryOptions {
  shared: DeploymentParts;
  installations: Installations;
  /** The one getter of bot tokens (refreshed under the store's lock). */
  tokens: { botToken(key: InstallationKey): Promise<string> };
  /** The messaging API every workspace's key is used at (MESSAGING_API_URL, or the embedded sandbox's). */
  baseUrl: string;
  /** The post queue every workspace shares. */
  posts: ChannelPostQueue;
  /** The Slack side of a connected workspace, when its runtime is built: its hooks (Home tab, live progress) and background work. */
  slackHooks?: (rt: WorkspaceRuntime) => Promise<SlackHooks>;
  /** Whether a workspace's runtime runs background work (an inbox poller, live progress): it is then never dropped. */
  busy?: (id: WorkspaceId) => boolean;
  /**
   * The core of a workspace without a messaging account (installed or not):
   * help, connect and settings; everything else says how to connect, and who can.
   */
  notConnected: (id: WorkspaceId, installation?: StoredInstallation) => CommandCore;
  /** A workspace's connect, disconnect and settings (src/workspaces/admin.ts), by its installation. */
  adminOf: (id: WorkspaceId, installation: StoredInstallation) => WorkspaceAdmin;
  /** The embedded sandbox: an organization's channels by its key (named, the first the default). */
  channelsOf?: (apiKey: string) => Promise<Array<{ id: number; name: string }>>;
  /** How many workspaces' runtimes are kept between their requests (default 1,000; the rest are built again when used). */
  keep?: number;
  /**
   * Several replicas (PostgreSQL): each workspace's version, bumped with every change of its key, settings or
   * installation (src/store/workspace-changes.ts), read each time its runtime is asked for; a kept runtime older
   * than the version is built again. Unset (PGlite, one process): changes are told in-process (forget).
   */
  versions?: Pick<WorkspaceVersions, "version" | "versions">;
}

/** The workspaces of a many-workspace deployment: a request's team → its runtime, built on first use from its
 * installation (its bot token) and its connection (its API key), kept while recently used. A workspace never sees
 * another's runtime: it is looked up by the request's own team id, and every store it holds is that workspace's. */
export class WorkspaceRegistry implements WorkspaceSource {
  private readonly opts: RegistryOptions;
  private readonly keep: number;
  private readonly live = new Map<WorkspaceId, Promise<WorkspaceRuntime | undefined>>();
  /** The bot clients of the runtimes built and kept, for Bolt's listeners to share (one client a workspace). */
  private readonly clients = new Map<WorkspaceId, webApi.WebClient>();

  constructor(opts: RegistryOptions) {
    this.opts = opts;
    // About 40 KiB a kept runtime (docs/benchmarks.md): 1,000 cost ~40 MB; a rebuild ~2 ms of CPU.
    this.keep = opts.keep ?? 1000;
  }

  /**
   * A request's workspace, from its team: connected (its runtime), installed
   * and not connected (help, connect and settings), else refused
   * (UnknownWorkspaceError: no default workspace to fall back on).
   */
  async resolve(team: RequestTeam): Promise<WorkspaceScope> {
    const id = team.teamId;
    if (!id) throw new UnknownWorkspaceError(undefined);
    const rt = await this.runtime(id, team.enterpriseId);
    if (rt) return this.scopeOfRuntime(rt);
    // The connection knows an org-wide installation's enterprise when the request does not say it.
    const enterpriseId = team.enterpriseId ?? (await this.opts.installations.connection(id))?.enterpriseId;
    const inst = await this.opts.installations.forTeam(id, enterpriseId);
    if (!inst) throw new UnknownWorkspaceError(id);
    // Installed, not connected: help, connect and settings; everything else says how to connect.
    const core = this.opts.notConnected(id, inst);
    return workspaceScope({
      workspace: id,
      core,
      hooks: notConnectedHooks(core, this.opts.shared.db, id),
      connected: false,
    });
  }

  /** A workspace's scope by its id, for work done outside a request (start-up recovery, background work). */
  scopeOf(id: WorkspaceId): Promise<WorkspaceScope> {
    return this.resolve({ teamId: id });
  }

  private scopeOfRuntime(rt: WorkspaceRuntime): WorkspaceScope {
    return workspaceScope({
      workspace: rt.id,
      core: rt.core,
      hooks: this.hooks.get(rt) ?? {},
      connected: true,
      ...(rt.settings?.workflowSteps ? { workflowSteps: rt.settings.workflowSteps } : {}),
    });
  }

  /**
   * A connected workspace's runtime (built on first use), or undefined when it is not installed and connected.
   * Several replicas: the workspace's version is read first (one primary-key read), and a runtime built before
   * the last change (on any replica) is closed and built again: never an old key, old settings or a revoked token.
   */
  async runtime(id: WorkspaceId, enterpriseId?: string): Promise<WorkspaceRuntime | undefined> {
    const versions = this.opts.versions;
    if (!versions) return this.obtain(id, enterpriseId, 0);
    const now = await versions.version(id);
    while (this.live.has(id) && (this.built.get(id) ?? 0) < now) await this.forget(id);
    return this.obtain(id, enterpriseId, now);
  }

  /**
   * A workspace changed on some replica (its notice): its kept runtime, if older, is closed at once, with its
   * background work; one that had background work (an inbox, live progress) is built again when it is still
   * connected, so that work goes on with the new key and settings.
   */
  async changed(id: WorkspaceId): Promise<void> {
    if (!this.live.has(id)) return;
    const now = (await this.opts.versions?.version(id)) ?? Number.POSITIVE_INFINITY;
    if (!this.live.has(id) || (this.built.get(id) ?? 0) >= now) return;
    await this.refresh(id);
  }

  /** Notices may have been missed (the listening connection was lost): every kept runtime checked in one read. */
  async resync(): Promise<void> {
    const ids = [...this.live.keys()];
    const now = await this.opts.versions?.versions(ids);
    if (!now) return;
    for (const id of ids) if ((now.get(id) ?? 0) > (this.built.get(id) ?? 0)) await this.refresh(id);
  }

  /** The workspace's runtime when one is kept in this process, as it is (never builds one). */
  kept(id: WorkspaceId): Promise<WorkspaceRuntime | undefined> | undefined {
    return this.live.get(id);
  }

  /** Forgets a workspace's runtime; built again at once when it was running background work (and is still connected). */
  async refresh(id: WorkspaceId): Promise<void> {
    const busy = this.opts.busy?.(id) ?? false;
    await this.forget(id);
    if (busy) await this.runtime(id).catch(() => undefined);
  }

  /** The version each kept runtime was built from (several replicas). */
  private readonly built = new Map<WorkspaceId, number>();

  private obtain(id: WorkspaceId, enterpriseId: string | undefined, version: number) {
    let pending = this.live.get(id);
    if (pending) {
      // Most recently used last: the Map's order is the eviction order.
      this.live.delete(id);
      this.live.set(id, pending);
      return pending;
    }
    pending = this.build(id, enterpriseId);
    const mine = pending;
    this.live.set(id, pending);
    this.built.set(id, version);
    // Not connected (or failed): nothing kept, the next request looks again.
    const drop = () => {
      if (this.live.get(id) !== mine) return;
      this.live.delete(id);
      this.built.delete(id);
    };
    pending.then((rt) => {
      if (!rt) drop();
    }, drop);
    this.evict();
    return pending;
  }

  /** A kept workspace's bot client, when its runtime is built (Bolt's listeners use it too: src/slack/client-cache.ts). */
  slackClientOf(id: WorkspaceId): webApi.WebClient | undefined {
    return this.clients.get(id);
  }

  /** Forgets a workspace's runtime (after connect, disconnect, settings, uninstall): the next request builds it again. */
  async forget(id: WorkspaceId): Promise<void> {
    const pending = this.live.get(id);
    this.live.delete(id);
    this.built.delete(id);
    this.clients.delete(id);
    const rt = await pending?.catch(() => undefined);
    await rt?.close();
  }

  /**
   * A connected workspace's bot token, through the TokenSource, without
   * building its runtime (the connection knows its enterprise: an org-wide
   * installation is found from the team id alone).
   */
  async botToken(id: WorkspaceId): Promise<string> {
    const { installations } = this.opts;
    const enterpriseId = (await installations.connection(id))?.enterpriseId;
    const inst = await installations.forTeam(id, enterpriseId);
    if (!inst) throw new Error("this workspace is not installed");
    return this.opts.tokens.botToken(installationKey(inst));
  }

  /** Every workspace with a messaging account (background work runs for each). */
  connectedIds(): Promise<WorkspaceId[]> {
    return this.opts.installations.connectedTeams();
  }

  async close(): Promise<void> {
    const all = [...this.live.values()];
    this.live.clear();
    this.built.clear();
    this.clients.clear();
    for (const p of all) await (await p.catch(() => undefined))?.close();
  }

  private readonly hooks = new WeakMap<WorkspaceRuntime, SlackHooks>();

  /** Drops the least recently used runtimes past `keep`, except those running background work. */
  private evict(): void {
    let over = this.live.size - this.keep;
    for (const [id, pending] of this.live) {
      if (over <= 0) break;
      if (this.opts.busy?.(id)) continue;
      this.live.delete(id);
      this.built.delete(id);
      this.clients.delete(id);
      over -= 1;
      void pending.then((rt) => rt?.close()).catch(() => {});
    }
  }

  private async build(id: WorkspaceId, enterpriseId?: string): Promise<WorkspaceRuntime | undefined> {
    const { installations, shared } = this.opts;
    // The connection first: it knows the workspace's enterprise, so background work (which has only
    // the team id) finds an org-wide installation too.
    const connection = await installations.connection(id);
    if (!connection) return undefined;
    const inst = await installations.forTeam(id, enterpriseId ?? connection.enterpriseId);
    if (!inst) return undefined;
    const admin = this.opts.adminOf(id, inst);
    const settings = valuesOf(await admin.settings());
    const key = installationKey(inst);
    const logger = shared.logger.child({ workspace: id });
    const { workspaceClient } = await import("../slack/tenancy/workspace-client.ts");
    const { workspaceBridge } = await import("../slack/io/bridge.ts");
    const client = workspaceClient(() => this.opts.tokens.botToken(key), {
      slackApiUrl: shared.config.SLACK_API_URL,
      logger,
      teamId: id,
    });
    const slack = workspaceBridge({
      client,
      posts: this.opts.posts,
      auditChannel: settings.auditChannel,
      logger,
    });
    // The embedded sandbox names its organization's channels; its first is the default.
    const sandboxChannels = (await this.opts.channelsOf?.(connection.apiKey).catch(() => undefined)) ?? [];
    if (sandboxChannels.length)
      await new ChannelNames(shared.db, id).seed(
        new Map(sandboxChannels.map((c) => [c.id, c.name])),
        "sandbox",
      );
    const rt = buildWorkspace(
      { ...shared, logger },
      {
        id,
        baseUrl: this.opts.baseUrl,
        apiKey: connection.apiKey,
        slack,
        settings,
        admin,
        defaultChannelId: sandboxChannels[0]?.id,
      },
    );
    await attachSlack(rt, logger);
    this.hooks.set(rt, (await this.opts.slackHooks?.(rt)) ?? {});
    if (this.live.has(id)) this.clients.set(id, client);
    return rt;
  }

  /** Builds the runtimes of these workspaces now (at start: those with background work to resume). */
  async warm(ids: WorkspaceId[]): Promise<void> {
    for (const id of ids) await this.runtime(id).catch(() => undefined);
  }
}
