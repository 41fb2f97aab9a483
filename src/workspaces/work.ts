// What a workspace's background work is given (issue 38 §3): its argument
// names its power as a listener's does. A job of one workspace (its inbox
// poller, its campaigns' live progress) gets that workspace's reach — its id,
// stores, API client, bot bridge, report service, the commands' side of its
// inbox, its automations — and the deployment's settings it reads, by name,
// as an object of their own: no database, no source of other workspaces, no
// API key, no workspace's setting read from the environment.
//
// The runners that work across workspaces by nature hold the database, each
// with its reason where it takes it (`// db: …`): the held starts' due scan
// (slack/features/held-starts/runtime.ts), the later sends' runner, the report
// scheduler (reports/runtime.ts, createSharedScheduler), and background.ts's
// purge of departed workspaces and its start's scan of the workspaces with work.

import type { Config } from "../platform/config.ts";
import { settingsOf } from "../slack/context.ts";
import type { InboxHost, InboxJobConfig } from "../slack/features/inbox/runtime.ts";
import type { ReportsHost, ReportsJobConfig } from "../slack/features/reports/runtime.ts";
import type { SlackBridge } from "../slack/io/bridge.ts";
import type { WorkspaceRuntime } from "./runtime.ts";

/** One workspace's background job's argument: what its inbox poller and its live progress are given. */
export type WorkspaceJob = InboxHost & ReportsHost;

/** The deployment's settings the jobs read (the inbox's poll, the reports' read share and alert). */
export type JobConfig = InboxJobConfig & ReportsJobConfig;

const JOB_SETTINGS = [
  "INBOX_POLL_SECONDS",
  "INBOX_LOOKBACK_HOURS",
  "API_READ_LIMIT",
  "BACKGROUND_READ_SHARE",
  "REPORT_FAILURE_ALERT",
] as const satisfies readonly (keyof JobConfig)[];

/** The jobs' settings of `config`, an object of their own: nothing else of the deployment's config. */
export const jobConfig = (config: Config): JobConfig => settingsOf(config, JOB_SETTINGS);

/** A workspace's job argument, from its runtime: each member named, nothing else copied. */
export function jobOf(rt: WorkspaceRuntime, slack: SlackBridge): WorkspaceJob {
  return {
    workspace: rt.id,
    stores: rt.stores,
    slack,
    client: rt.client,
    reports: rt.reports,
    inbox: rt.inbox,
    ...(rt.automations ? { eventsTo: rt.automations } : {}),
    onClose: (fn) => rt.onClose(fn),
  };
}
