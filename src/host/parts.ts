import type { ResolveGroupMembers } from "../commands/permissions.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import type { Sandbox } from "../sandbox/index.ts";
import type { AuditEntry } from "../store/audit.ts";
import type { Db } from "../store/db.ts";

/** The embedded sandbox (no MESSAGING_API_URL), on Switchboard's database, from the SANDBOX_* settings. */
export async function startEmbeddedSandbox(config: Config, db: Db, logger: Logger): Promise<Sandbox> {
  const { sandboxSettings, startSandbox } = await import("../sandbox/index.ts");
  return startSandbox({ db, ...sandboxSettings(config), logger: logger.child({ part: "sandbox" }) });
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
}
