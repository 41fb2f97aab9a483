// The environment's settings (issue 38 §4): the one place that reads a
// per-workspace setting from the deployment's config. A workspace's admin
// (admin.ts) applies them as the defaults of single mode's one workspace, read
// each time its settings are (a row it keeps wins; `none` goes back to them);
// in many-workspace mode they are no workspace's. Everything else (listeners,
// forms, steps, jobs, the runtime) reads the workspace's effective settings. A
// leaf (types only), so the start line can name them before the rest loads.
// test/architecture/settings.test.ts fails on a read of these names anywhere else.
import type { SettingValues } from "../commands/workspace-admin.ts";
import type { Config } from "../platform/config.ts";

/** The environment's settings, as SETTINGS names them (single mode's first values). */
export function envSettings(
  config: Pick<
    Config,
    | "SWITCHBOARD_WRITERS"
    | "SWITCHBOARD_BROADCASTERS"
    | "AUDIT_CHANNEL"
    | "MESSAGING_CHANNEL_ID"
    | "REPORTS_TIME_ZONE"
    | "WORKFLOW_STEPS"
    | "QUIET_HOURS"
    | "BUSINESS_HOURS"
    | "SWITCHBOARD_APPROVERS"
    | "APPROVE_FROM"
    | "DEFAULT_COUNTRY"
  >,
): Partial<SettingValues> {
  return {
    writers: config.SWITCHBOARD_WRITERS,
    broadcasters: config.SWITCHBOARD_BROADCASTERS,
    auditChannel: config.AUDIT_CHANNEL,
    messagingChannel: config.MESSAGING_CHANNEL_ID,
    reportsTimeZone: config.REPORTS_TIME_ZONE,
    workflowSteps: config.WORKFLOW_STEPS,
    quietHours: config.QUIET_HOURS,
    businessHours: config.BUSINESS_HOURS,
    approvers: config.SWITCHBOARD_APPROVERS,
    approveFrom: config.APPROVE_FROM,
    country: config.DEFAULT_COUNTRY,
  };
}
