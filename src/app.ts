// Composition root shared by both front ends: the store (all of Switchboard's
// migrations, src/store/migrations.ts), the messaging API (the embedded sandbox when
// MESSAGING_API_URL is unset), the client and the command core.

import { MessagingClient } from "./api/client.ts";
import { createCommandCore, type SwitchboardCore } from "./commands/core.ts";
import type { InboxAccess } from "./commands/inbox.ts";
import type { ResolveGroupMembers } from "./commands/permissions.ts";
import type { Config } from "./config.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "./domain/workspace.ts";
import { ConfigError } from "./errors.ts";
import { removeStaleUploads } from "./imports/temp.ts";
import { type Logger, startPhases } from "./log.ts";
import { ReportService } from "./reports/service.ts";
import type { Sandbox } from "./sandbox/index.ts";
import type { SlackBridge } from "./slack/bridge.ts";
import type { AuditEntry } from "./store/audit.ts";
import { ChannelNames } from "./store/channels.ts";
import { Confirmations } from "./store/confirmations.ts";
import { type Db, openDb } from "./store/db.ts";
import { InboxStore } from "./store/inbox.ts";
import { migrateStore } from "./store/migrations.ts";

export interface SwitchboardDeps {
  logger: Logger;
  /** Members of a Slack user group (S…), for SWITCHBOARD_WRITERS/BROADCASTERS. */
  resolveGroupMembers?: ResolveGroupMembers;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  /** An open database to use instead of opening one from the config (tests). */
  db?: Db;
  /**
   * The database of the config, being opened by the caller (src/main.ts starts
   * it before loading the rest); the switchboard owns and closes it like one it opened.
   */
  opening?: Promise<Db>;
  /** Logs each phase of the start at debug level (default: a timer of its own). */
  phase?: (name: string) => void;
}

export interface Switchboard {
  core: SwitchboardCore;
  client: MessagingClient;
  db: Db;
  /** Set when the embedded sandbox serves the API. */
  sandbox?: Sandbox;
  /** The API key in use (never log it; maskSecret() it). */
  apiKey: string;
  /** Set when SLACK_BOT_TOKEN is: the Slack client shared by the core (group members, audit posts) and the Bolt app. */
  slack?: SlackBridge;
  /** Listeners of every audited write; more can be added after start. */
  auditListeners: Array<(entry: AuditEntry) => void | Promise<void>>;
  /** Report schedules and summaries (the Slack app attaches its scheduler: src/slack/reports/runtime.ts). */
  reports: ReportService;
  /** Channel names (`/sb channel name`, MESSAGING_CHANNEL_NAMES, the sandbox's). */
  channels: ChannelNames;
  /** The inboxes as the commands see them (the Slack app's poller sets `wake`: src/slack/inbox/runtime.ts). */
  inbox: InboxAccess;
  /** The workspace this switchboard serves ("env": the one of the environment). */
  workspace: WorkspaceId;
  /** Runs `fn` first when closing (before the database closes): for parts started later, like pg-boss. */
  onClose(fn: () => Promise<void>): void;
  close(): Promise<void>;
}

export async function createSwitchboard(config: Config, deps: SwitchboardDeps): Promise<Switchboard> {
  const { logger } = deps;
  const phase = deps.phase ?? startPhases(logger);
  const db =
    deps.db ??
    (await (deps.opening ?? openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR })));
  phase(deps.db ? "store given" : `store opened (${db.kind})`);
  const closers: Array<() => Promise<void>> = deps.db ? [] : [() => db.close()];
  try {
    // Every schema, once, from the one list (src/store/migrations.ts): no part migrates on its own.
    await migrateStore(db);
    phase("migrations");
    const workspace = ENV_WORKSPACE;
    const channels = new ChannelNames(db, workspace);
    await channels.seed(config.MESSAGING_CHANNEL_NAMES, "settings");
    // Confirmed commands an earlier process was carrying out when it stopped:
    // their outcome is unknown, said so on the next click, never run again.
    const interrupted = (await Confirmations.settleInterruptedAll(db)).length;
    if (interrupted)
      logger.warn({ interrupted }, "confirmed commands left running by an earlier process: outcome unknown");
    // Upload files a crashed process left behind (Slack downloads, xlsx scratch).
    const stale = await removeStaleUploads();
    if (stale.length)
      logger.info({ removed: stale.length }, "removed temporary upload files left by an earlier process");
    phase("interrupted confirmations and stale uploads");

    let sandbox: Sandbox | undefined;
    let sandboxChannels: Array<{ id: number; name: string }> = [];
    let baseUrl = config.MESSAGING_API_URL;
    let apiKey = config.MESSAGING_API_KEY;
    if (!baseUrl) {
      const { startSandbox } = await import("./sandbox/index.ts");
      sandbox = await startSandbox({
        db,
        apiKey: config.SANDBOX_API_KEY,
        readKey: config.SANDBOX_READ_KEY,
        readLimit: config.SANDBOX_READ_LIMIT,
        writeLimit: config.SANDBOX_WRITE_LIMIT,
        templateApprovalMs: config.SANDBOX_TEMPLATE_APPROVAL_MS,
        campaignTickMs: config.SANDBOX_CAMPAIGN_TICK_MS,
        logger: logger.child({ part: "sandbox" }),
      });
      closers.unshift(() => sandbox!.close());
      baseUrl = sandbox.url;
      apiKey = sandbox.apiKey;
      // The sandbox knows its channels: they come named, and its first is the default.
      sandboxChannels = await sandbox.channels();
      await channels.seed(new Map(sandboxChannels.map((c) => [c.id, c.name])), "sandbox");
      // The sandbox's own test keys (documented in .env.example) are printed on
      // purpose, so a developer can call it with curl; a real key never is.
      logger.info(
        { url: sandbox.url, readWriteKey: sandbox.apiKey, readOnlyKey: sandbox.readKey },
        "embedded sandbox API started (MESSAGING_API_URL is unset)",
      );
      phase("embedded sandbox");
    }
    if (!apiKey) throw new ConfigError("MESSAGING_API_KEY is required when MESSAGING_API_URL is set");

    const client = new MessagingClient({
      baseUrl,
      apiKey,
      timeoutMs: config.API_TIMEOUT_MS,
      deadlineMs: config.API_DEADLINE_MS,
      readPerMinute: config.API_READ_LIMIT,
      writePerMinute: config.API_WRITE_LIMIT,
      backgroundReadShare: config.BACKGROUND_READ_SHARE,
      logger: logger.child({ part: "api" }),
    });
    closers.unshift(() => client.close());

    const auditListeners: Switchboard["auditListeners"] = deps.onAudit ? [deps.onAudit] : [];
    let slack: SlackBridge | undefined;
    let resolveGroupMembers = deps.resolveGroupMembers;
    if (config.SLACK_BOT_TOKEN) {
      // Loaded only for Slack, so the shell starts without Bolt.
      const { createSlackBridge } = await import("./slack/bridge.ts");
      slack = createSlackBridge(config, logger);
      resolveGroupMembers ??= slack.resolveGroupMembers;
      auditListeners.push(slack.onAudit);
    }
    // Slack: reports post to channels and default to the user's Slack zone; the shell prints them.
    const reports = new ReportService({ db, workspace, client, failureAlert: config.REPORT_FAILURE_ALERT });
    if (slack) {
      const { slackReportPoster } = await import("./slack/reports/post.ts");
      const { createUserTz } = await import("./slack/reports/user-tz.ts");
      const log = logger.child({ part: "reports" });
      reports.setPost(slackReportPoster(slack.client, slack.posts, log));
      reports.setUserTz(createUserTz(slack.client, { logger: log }));
    }
    // The inboxes: the store for every front end; joining a channel only in Slack (src/slack/inbox/).
    const inbox: InboxAccess = { store: new InboxStore(db, workspace) };
    if (slack) {
      const { channelJoiner } = await import("./slack/inbox/join.ts");
      inbox.join = channelJoiner(slack.client, logger.child({ part: "inbox" }));
      const { cardRedrawer } = await import("./slack/inbox/desk.ts");
      inbox.redraw = cardRedrawer(slack.client, inbox.store, logger.child({ part: "inbox" }));
    }
    const core = createCommandCore({
      api: client,
      db,
      workspace,
      apiKey,
      // Out of the box (no settings, the embedded sandbox): its main channel.
      defaultChannelId: config.MESSAGING_CHANNEL_ID ?? sandboxChannels[0]?.id,
      channels,
      defaultCountry: config.DEFAULT_COUNTRY,
      importTimeoutMs: config.IMPORT_TIMEOUT_MS,
      writers: config.SWITCHBOARD_WRITERS,
      broadcasters: config.SWITCHBOARD_BROADCASTERS,
      resolveGroupMembers,
      onAudit: async (entry) => {
        for (const listener of auditListeners) await listener(entry);
      },
      logger: logger.child({ part: "core" }),
      reports,
      inbox,
    });
    phase("API client and command core");

    let closed = false;
    return {
      core,
      client,
      db,
      sandbox,
      slack,
      apiKey,
      auditListeners,
      reports,
      channels,
      inbox,
      workspace,
      onClose(fn) {
        closers.unshift(fn);
      },
      async close() {
        if (closed) return;
        closed = true;
        for (const close of closers)
          await close().catch((err) => logger.warn({ err: String(err) }, "close failed"));
      },
    };
  } catch (err) {
    for (const close of closers) await close().catch(() => {});
    throw err;
  }
}
