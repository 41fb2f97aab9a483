// The one list of Switchboard's schemas. Each store module keeps its own
// migrations (an `…_MIGRATIONS` set beside its queries); this list names them
// all, and migrateStore() runs them once, when the store opens (src/host/app.ts),
// before any part uses it. No runtime migrates on its own. A new schema is one
// line here. The sandbox's schema is not listed: the sandbox also runs on its
// own (`npm run sandbox`) and migrates its own set (src/sandbox/index.ts);
// pg-boss keeps its own schema too (boss.ts).

import { APPROVALS_MIGRATIONS } from "./approvals.ts";
import { AUTOMATIONS_MIGRATIONS } from "./automations.ts";
import { CAMPAIGNS_MIGRATIONS } from "./campaigns.ts";
import { CHANNEL_MIGRATIONS } from "./channels.ts";
import type { Db } from "./db.ts";
import { SLACK_MIGRATIONS } from "./events.ts";
import { HOME_MIGRATIONS } from "./home-counts.ts";
import { IMPORTS_MIGRATIONS } from "./imports.ts";
import { INBOX_MIGRATIONS } from "./inbox.ts";
import { WORKSPACES_MIGRATIONS } from "./installations.ts";
import { MEDIA_MIGRATIONS } from "./media.ts";
import { type MigrationSet, migrate } from "./migrate.ts";
import { OWN_SENDS_MIGRATIONS } from "./own-sends.ts";
import { PROGRESS_MIGRATIONS } from "./progress.ts";
import { RATE_BUDGET_MIGRATIONS } from "./rate-budget.ts";
import { REPORTS_MIGRATIONS } from "./reports.ts";
import { SAVED_REPLIES_MIGRATIONS } from "./saved-replies.ts";
import { SWITCHBOARD_MIGRATIONS } from "./schema.ts";
import { STEPS_MIGRATIONS } from "./steps.ts";
import { TIMERS_MIGRATIONS } from "./timers.ts";
import { OUTCOMES_MIGRATIONS } from "./undelivered.ts";
import { REPLICAS_MIGRATIONS } from "./workspace-changes.ts";

export const STORE_MIGRATIONS: readonly MigrationSet[] = [
  SWITCHBOARD_MIGRATIONS,
  REPORTS_MIGRATIONS,
  CHANNEL_MIGRATIONS,
  INBOX_MIGRATIONS,
  PROGRESS_MIGRATIONS,
  IMPORTS_MIGRATIONS,
  STEPS_MIGRATIONS,
  SLACK_MIGRATIONS,
  WORKSPACES_MIGRATIONS,
  MEDIA_MIGRATIONS,
  // After WORKSPACES_MIGRATIONS: its triggers watch those tables.
  REPLICAS_MIGRATIONS,
  RATE_BUDGET_MIGRATIONS,
  OWN_SENDS_MIGRATIONS,
  SAVED_REPLIES_MIGRATIONS,
  CAMPAIGNS_MIGRATIONS,
  OUTCOMES_MIGRATIONS,
  // Schema `held` is no longer migrated: its starts moved onto the timer (timers' 002_campaign_starts).
  APPROVALS_MIGRATIONS,
  HOME_MIGRATIONS,
  TIMERS_MIGRATIONS,
  AUTOMATIONS_MIGRATIONS,
];

/** Brings every schema of the list up to date (one read each when nothing is new). */
export async function migrateStore(db: Db): Promise<void> {
  for (const set of STORE_MIGRATIONS) await migrate(db, set);
}
