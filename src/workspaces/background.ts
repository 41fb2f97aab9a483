// What runs for each workspace of a many-workspace deployment without anyone
// asking (docs/workspaces.md, "Background work"): the inbox poller of a
// workspace with inboxes, the live progress of its launched campaigns, each
// posting with the workspace's own bot client; and the purge of the records of
// workspaces that left more than UNINSTALL_RETENTION_DAYS ago. Report
// schedules run on the one pg-boss scheduler of the deployment, each job with
// its workspace (src/slack/features/reports/runtime.ts).
//
// Idle workspaces cost nothing: a workspace's poller starts when it has an
// inbox (at start, or when `/sb inbox on` turns one on), its progress when a
// campaign is launched or one is still followed; a runtime with either is
// kept by the registry (busy), the others come and go with their requests.
//
// Each job gets a narrow argument (work.ts: the workspace's reach and the
// settings it reads, no database); the database is held here only by the
// purge and the start's scan, which work across workspaces.

import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import type { SlackHooks } from "../slack/context.ts";
import type { Db } from "../store/db.ts";
import type { Installations } from "../store/installations.ts";
import { WorkspaceSettings } from "../store/workspace-settings.ts";
import type { WorkspaceRuntime } from "./runtime.ts";
import { jobConfig, jobOf } from "./work.ts";

const PURGE_EVERY_MS = 3_600_000;

export interface BackgroundOptions {
  // No workspace's job is given it (jobOf, work.ts).
  // db: the purge of departed workspaces and the start's scan of those with work run across workspaces.
  db: Db;
  config: Config;
  logger: Logger;
  installations: Installations;
  /** Removes every record of a workspace (src/store/purge.ts). */
  purge: (db: Db, workspace: WorkspaceId) => Promise<unknown>;
  now?: () => Date;
}

/** A workspace's running background parts. */
interface Running {
  /** Wakes its inbox poller, or starts it when none runs yet. */
  wake?: () => void;
  inbox?: { start(): Promise<void>; stop(): Promise<void> };
  reports?: { start(): Promise<void>; stop(): Promise<void> };
}

export class WorkspaceBackground {
  private readonly opts: BackgroundOptions;
  private readonly running = new Map<WorkspaceId, Running>();
  private purgeTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(opts: BackgroundOptions) {
    this.opts = opts;
  }

  /** Whether a workspace has background work running (its runtime is then kept). */
  busy(id: WorkspaceId): boolean {
    const r = this.running.get(id);
    return Boolean(r?.inbox || r?.reports);
  }

  /** `/sb inbox on` in a workspace: its poller polls at once, started first when it was not running. */
  wake(id: WorkspaceId): void {
    this.running.get(id)?.wake?.();
  }

  /**
   * A workspace's runtime was built: its Slack hooks, and its background work
   * started when it has some (an inbox, a campaign followed).
   */
  async attach(rt: WorkspaceRuntime): Promise<Pick<SlackHooks, "onPosted">> {
    const logger = this.opts.logger.child({ workspace: rt.id });
    const slack = rt.slack;
    if (!slack || this.stopped) return {};
    const running: Running = {};
    this.running.set(rt.id, running);
    // The jobs' argument: this workspace's reach and the settings they read, nothing else (work.ts).
    const job = jobOf(rt, slack);
    const config = jobConfig(this.opts.config);
    const { createInbox } = await import("../slack/features/inbox/runtime.ts");
    const { createReports } = await import("../slack/features/reports/runtime.ts");
    // Made when first needed: most workspaces have neither an inbox nor a campaign followed.
    let inbox: ReturnType<typeof createInbox> | undefined;
    let reports: ReturnType<typeof createReports> | undefined;
    const startInbox = () => {
      if (running.inbox || this.stopped) return;
      inbox = createInbox(job, config, logger);
      running.inbox = inbox;
      inbox.start().catch((err) => logger.warn({ err: String(err) }, "the inbox poller could not start"));
    };
    const startReports = () => {
      if (running.reports || this.stopped) return;
      reports = createReports(job, config, logger, { scheduler: false });
      running.reports = reports;
      reports.start().catch((err) => logger.warn({ err: String(err) }, "live progress could not start"));
    };
    // `/sb inbox on` (the runtime's inbox.wake, given when it was built): the first inbox starts the poller.
    running.wake = () => (inbox ? inbox.poller.wake() : startInbox());
    if ((await rt.inbox.store.inboxes()).length) startInbox();
    if ((await rt.stores.progress.live()).length) startReports();
    rt.onClose(async () => {
      this.running.delete(rt.id);
      await inbox?.stop();
      await reports?.stop();
    });
    return {
      onPosted: (posted) => {
        const origin = posted.reply?.origin;
        if (origin?.card?.role === "live" || origin?.command === "campaign.cancel") startReports();
        reports?.hooks.onPosted?.(posted);
      },
    };
  }

  /**
   * Once the app answers: the workspaces with background work resume it (their
   * runtimes built now: an inbox to poll, a campaign followed), and the hourly
   * purge of departed workspaces' records starts.
   */
  async start(registry: {
    warm(ids: WorkspaceId[]): Promise<void>;
    connectedIds(): Promise<WorkspaceId[]>;
  }): Promise<void> {
    const { InboxStore } = await import("../store/inbox.ts");
    const { ProgressStore } = await import("../store/progress.ts");
    const connected = new Set(await registry.connectedIds());
    const withWork = new Set([
      ...(await InboxStore.workspacesWithInboxes(this.opts.db)),
      ...(await ProgressStore.workspacesFollowing(this.opts.db)),
    ]);
    await registry.warm([...withWork].filter((id) => connected.has(id)));
    this.startPurge();
  }

  /** Starts the hourly purge of departed workspaces' records. */
  private startPurge(): void {
    const sweep = () =>
      void this.purgeDeparted().catch((err) =>
        this.opts.logger.warn({ err: String(err) }, "could not remove the records of departed workspaces"),
      );
    sweep();
    this.purgeTimer = setInterval(sweep, PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  /**
   * Removes the records of every workspace that uninstalled more than
   * UNINSTALL_RETENTION_DAYS ago (its tokens and key went at once), then
   * forgets that it left. A workspace that came back is not in the list.
   */
  async purgeDeparted(): Promise<number> {
    const { installations, config, db } = this.opts;
    const now = this.opts.now?.() ?? new Date();
    const cutoff = new Date(now.getTime() - config.UNINSTALL_RETENTION_DAYS * 86_400_000);
    const departed = await installations.departedBefore(cutoff);
    for (const d of departed) {
      for (const team of d.teams) {
        // A workspace installed again meanwhile keeps its records.
        if (await installations.forTeam(team)) continue;
        await this.opts.purge(db, team);
        await new WorkspaceSettings(db).forget(team);
      }
      await installations.forgetDeparture(d.key);
    }
    if (departed.length)
      this.opts.logger.info({ workspaces: departed.length }, "records of departed workspaces removed");
    return departed.length;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.purgeTimer);
  }
}
