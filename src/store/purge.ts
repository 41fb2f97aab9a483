// The one place that removes everything a workspace kept in Switchboard's own
// schemas (the records of a workspace that uninstalled, once its retention
// has passed: docs/workspaces.md). Every table of those schemas has a
// `workspace` column and is listed here, or follows a listed table (its rows
// removed with their parent's by the foreign key's `on delete cascade`);
// test/store/workspace-scope.test.ts reads the catalog and fails on a table
// that is neither. The installation, its tokens and its API key (schema
// `workspaces`) are Installations' to remove.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Db } from "./db.ts";

/** Every table holding a workspace's records, children before the tables they refer to. */
export const WORKSPACE_TABLES: readonly string[] = [
  "switchboard.audit",
  "switchboard.confirmations",
  "switchboard.commands_in_flight",
  "channels.names",
  "slack.seen_events",
  "imports.pending",
  "inbox.away_sends",
  "inbox.replies",
  "inbox.clocks",
  "inbox.desk_events",
  "inbox.targets",
  "inbox.mirrored",
  "inbox.routes",
  "inbox.threads",
  "inbox.inboxes",
  // media.chunks follow their file (on delete cascade).
  "media.files",
  "progress.tracked",
  "sends.own",
  "sends.tests",
  "saved.replies",
  "reports.runs",
  "reports.snapshots",
  "reports.schedules",
  "steps.runs",
  "campaigns.audiences",
  "campaigns.test_phones",
  "campaigns.cards",
  "outcomes.undelivered",
  "approvals.cards",
  "approvals.requests",
  "home.last_counts",
  "timers.due",
  "timers.numbers",
  "automations.deliveries",
  "automations.hooks",
];

/** Removes every record of `workspace`, in one transaction; returns the rows removed per table. */
export async function purgeWorkspace(db: Db, workspace: WorkspaceId): Promise<Record<string, number>> {
  return db.transaction(async (tx) => {
    const removed: Record<string, number> = {};
    for (const table of WORKSPACE_TABLES) {
      const r = await tx.query(`delete from ${table} where workspace = $1`, [workspace]);
      removed[table] = r.rowCount;
    }
    return removed;
  });
}
