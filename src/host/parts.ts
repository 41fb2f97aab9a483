import type { PgBoss } from "pg-boss";
import { AUTOMATIONS_BOSS, Automations, AutomationWorker, resealAutomations } from "../automations/index.ts";
import type { ResolveGroupMembers } from "../commands/permissions.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import type { Keyring } from "../platform/secrets.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { HomeOptions } from "../slack/features/home/view.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { AutomationStore } from "../store/automations.ts";
import { Confirmations } from "../store/confirmations.ts";
import type { Db } from "../store/db.ts";

/** The embedded sandbox (no MESSAGING_API_URL), on Switchboard's database, from the SANDBOX_* settings. */
export async function startEmbeddedSandbox(config: Config, db: Db, logger: Logger): Promise<Sandbox> {
  const { sandboxSettings, startSandbox } = await import("../sandbox/index.ts");
  return startSandbox({ db, ...sandboxSettings(config), logger: logger.child({ part: "sandbox" }) });
}

/**
 * At start, in either mode, for every workspace the deployment holds: what an earlier process left at its death.
 * Confirmed commands it was carrying out are settled unknown (said so on the next click, never run again; each
 * clicker is told once the Slack app runs: src/slack/recovery/confirm-notices.ts), and the upload files it left
 * (Slack downloads, xlsx scratch) removed. A live replica still running a confirmation records its real outcome
 * over `unknown`.
 */
export async function settleAtStart(db: Db, logger: Logger): Promise<void> {
  const interrupted = (await Confirmations.settleInterruptedAll(db)).length;
  if (interrupted)
    logger.warn({ interrupted }, "confirmed commands left running by an earlier process: outcome unknown");
  const { removeStaleUploads } = await import("../imports/temp.ts");
  const stale = await removeStaleUploads();
  if (stale.length)
    logger.info({ removed: stale.length }, "removed temporary upload files left by an earlier process");
}

/** `onClose` and a `close` that runs the closers once, the last added first, each failure logged. */
export function closeOnce(
  closers: Array<() => Promise<void>>,
  logger: Logger,
): { onClose(fn: () => Promise<void>): void; close(): Promise<void> } {
  let closed = false;
  return {
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
}

/**
 * What several replicas on one PostgreSQL share beyond the tables: each workspace's version (read on use) and
 * each key's API budget. PGlite is one process: neither (the in-memory limiter, changes told in-process).
 */
export async function replicaParts(db: Db) {
  if (db.kind !== "postgres") return {};
  const { WorkspaceVersions } = await import("../store/workspace-changes.ts");
  const { RateBudgetStore } = await import("../store/rate-budget.ts");
  return { versions: new WorkspaceVersions(db), budget: new RateBudgetStore(db) };
}

export interface SwitchboardOptions {
  logger: Logger;
  /** Members of a Slack user group (S…), for SWITCHBOARD_WRITERS/BROADCASTERS. */
  resolveGroupMembers?: ResolveGroupMembers;
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  /** An open database to use instead of opening one from the config (tests). */
  db?: Db;
  /**
   * The database of the config, being opened by the caller (src/host/main.ts starts
   * it before loading the rest); the switchboard owns and closes it like one it opened.
   */
  opening?: Promise<Db>;
  /** Logs each phase of the start at debug level (default: a timer of its own). */
  phase?: (name: string) => void;
  /**
   * Each workspace's background work, attached as its runtime is built (default true): its inbox poller, its
   * live progress, its report schedules waiting for the deployment's scheduler. Tests that drive them by hand
   * (their own poller, scheduler or clock) leave them out.
   */
  background?: boolean;
  /** The Home tab's clock and how long its figures are kept (tests). */
  home?: Pick<HomeOptions, "clock" | "cacheMs">;
}

/** Events out (issue 40 §3): each workspace's automations, and the deliveries' worker of the deployment. */
export interface AutomationParts {
  /** A workspace's automations, over its store (its WorkspaceStores'). */
  of(store: AutomationStore): Automations;
  /** The worker on pg-boss (once the app answers): until then deliveries wait in the store, queued at its start. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Without `keyring` (single mode without SWITCHBOARD_SECRET_KEY) hooks cannot be kept: adding one says why. */
export function automationParts(
  config: Config,
  db: Db,
  keyring: Keyring | undefined,
  logger: Logger,
): AutomationParts {
  const rules = { allowPrivate: config.AUTOMATIONS_ALLOW_PRIVATE };
  const log = logger.child({ part: "automations" });
  let worker: AutomationWorker | undefined;
  let boss: PgBoss | undefined;
  return {
    of: (store) =>
      new Automations({ ...(keyring ? { keyring } : {}), rules, queue: () => worker, logger: log }, store),
    async start() {
      if (boss) return;
      // Rotating SWITCHBOARD_SECRET_KEY: hooks the previous key sealed are sealed again with the new one.
      if (keyring && config.SWITCHBOARD_SECRET_KEY_PREVIOUS) {
        const resealed = await resealAutomations(db, keyring);
        if (resealed) log.info({ resealed }, "automations sealed again with the new SWITCHBOARD_SECRET_KEY");
      }
      const { createBoss } = await import("../store/boss.ts");
      boss = await createBoss(db, AUTOMATIONS_BOSS);
      const w = new AutomationWorker({ db, boss, ...(keyring ? { keyring } : {}), rules, logger: log });
      await w.start();
      worker = w;
    },
    async stop() {
      const [w, b] = [worker, boss];
      worker = undefined;
      boss = undefined;
      await w?.stop();
      await b?.stop({ graceful: false }).catch(() => {});
    },
  };
}
