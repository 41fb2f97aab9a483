// The process's Prometheus metrics (prom-client), served as GET /metrics on
// PORT (src/slack/app.ts; docs/operations.md). Labels are bounded: command
// ids, operations, outcomes, statuses, never a user, channel, thread,
// workspace or message id.
import client from "prom-client";

export const registry = new client.Registry();
client.collectDefaultMetrics({ register: registry });

const counter = (name: string, help: string, labelNames: string[] = []) =>
  new client.Counter({ name, help, labelNames, registers: [registry] });

export const metrics = {
  commands: counter(
    "switchboard_commands_total",
    "Commands run, by command, front end (slack, shell) and outcome",
    ["command", "front_end", "outcome"],
  ),
  confirmations: counter("switchboard_confirmations_total", "Confirm clicks, by command and outcome", [
    "command",
    "outcome",
  ]),
  clicks: counter("switchboard_clicks_total", "Button clicks, by action and outcome", ["action", "outcome"]),
  apiRequests: counter(
    "switchboard_api_requests_total",
    "Attempts at the messaging API, by operation, lane and status (an HTTP status, network or timeout)",
    ["operation", "lane", "status"],
  ),
  apiLatency: new client.Histogram({
    name: "switchboard_api_request_seconds",
    help: "Time of one attempt at the messaging API, by operation and lane",
    labelNames: ["operation", "lane"],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20],
    registers: [registry],
  }),
  rateLimitWaits: counter(
    "switchboard_api_rate_limit_waits_total",
    "Requests that waited for the rate budget, by kind (read, write) and lane",
    ["kind", "lane"],
  ),
  slackCalls: counter(
    "switchboard_slack_calls_total",
    "Slack Web API requests (each attempt), by method and error (ok when none)",
    ["method", "error"],
  ),
  postQueueDepth: new client.Gauge({
    name: "switchboard_post_queue_depth",
    help: "Messages waiting in the one-a-second-per-channel queue",
    registers: [registry],
  }),
  reportRuns: counter("switchboard_report_runs_total", "Scheduled report runs, by outcome", ["outcome"]),
  inboxPollLag: new client.Gauge({
    name: "switchboard_inbox_poll_lag_seconds",
    help: "Seconds since the inbox poller last finished a pass",
    registers: [registry],
    collect() {
      if (lastInboxPass) this.set((Date.now() - lastInboxPass) / 1000);
    },
  }),
  inboxMirrored: counter(
    "switchboard_inbox_mirrored_messages_total",
    "Customer messages mirrored into Slack",
  ),
  imports: counter("switchboard_imports_total", "Contact imports, by outcome", ["outcome"]),
  importRows: counter("switchboard_import_rows_total", "Rows of contact imports, by outcome", ["outcome"]),
};

// state: the process's: its metrics are its own (one /metrics a process).
let lastInboxPass = 0;
/** The inbox poller finished a pass (its lag is counted from here). */
export function inboxPassDone(at = Date.now()): void {
  lastInboxPass = at;
}

/** A bounded label: `value` when it is one of `known`, else "other". */
export function bounded(value: string | undefined, known: ReadonlySet<string>): string {
  return value && known.has(value) ? value : "other";
}

/** The text format and its content type. */
export async function metricsText(): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
