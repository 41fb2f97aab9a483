// `.env` and the one line a start logs: which front end runs and why, the API,
// the store and the features, so that whoever runs Switchboard sees at once
// what it made of its settings (docs/operations.md).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { Config } from "../platform/config.ts";
import { envSettings } from "../workspaces/env-settings.ts";

/** Where each setting came from: the environment, or `.env`. */
export interface EnvSource {
  /** The `.env` read, or undefined when there was none. */
  file?: string;
  /** Settings taken from the file (the environment had none of them). */
  fromFile: Set<string>;
}

/**
 * Reads `.env` in the working folder when it exists (Node's own
 * process.loadEnvFile), the environment winning: a variable already set, even
 * empty, is kept.
 */
export function loadDotEnv(path = resolve(".env"), env: NodeJS.ProcessEnv = process.env): EnvSource {
  if (!existsSync(path)) return { fromFile: new Set() };
  const before = new Set(Object.keys(env));
  process.loadEnvFile(path);
  return { file: path, fromFile: new Set(Object.keys(env).filter((k) => !before.has(k))) };
}

export type Mode = "slack-http" | "slack-socket" | "slack-many" | "shell";

export function modeOf(
  config: Pick<Config, "SLACK_BOT_TOKEN" | "SLACK_APP_TOKEN"> &
    Partial<Pick<Config, "SLACK_CLIENT_ID" | "SLACK_CLIENT_SECRET">>,
): Mode {
  if (config.SLACK_CLIENT_ID || config.SLACK_CLIENT_SECRET) return "slack-many";
  if (!config.SLACK_BOT_TOKEN) return "shell";
  return config.SLACK_APP_TOKEN ? "slack-socket" : "slack-http";
}

/** The start line's fields and its message. */
export function startLine(
  config: Config,
  source: EnvSource,
): { fields: Record<string, unknown>; message: string } {
  const from = (name: string) => (source.fromFile.has(name) ? `${name} from .env` : `${name} set`);
  const mode = modeOf(config);
  const how =
    mode === "shell"
      ? { mode: "the shell", why: "SLACK_BOT_TOKEN is not set" }
      : mode === "slack-many"
        ? {
            mode: `Slack over HTTP on port ${config.PORT}, many workspaces (Add to Slack)`,
            why: `${from("SLACK_CLIENT_ID")}`,
          }
        : mode === "slack-socket"
          ? {
              mode: "Slack in Socket Mode, one workspace",
              why: `${from("SLACK_BOT_TOKEN")}, ${from("SLACK_APP_TOKEN")}`,
            }
          : {
              mode: `Slack over HTTP on port ${config.PORT}, one workspace`,
              why: `${from("SLACK_BOT_TOKEN")}, SLACK_APP_TOKEN not set`,
            };
  const api = config.MESSAGING_API_URL
    ? `the messaging API at ${config.MESSAGING_API_URL}`
    : "the embedded sandbox (MESSAGING_API_URL not set)";
  const store = config.DATABASE_URL
    ? `PostgreSQL at ${hostOf(config.DATABASE_URL)}`
    : `PGlite in ${resolve(config.DATA_DIR)}`;
  // The environment's settings, as the one place reads them (a workspace's own settings win over them).
  const env = envSettings(config);
  const steps = env.workflowSteps;
  const features = [
    `Workflow Builder steps ${steps === "off" ? "off" : `on (${steps})`}`,
    env.writers?.length ? "changes limited to SWITCHBOARD_WRITERS" : "anyone may make changes",
    env.auditChannel ? "audit channel" : "no audit channel",
    `inbox polled every ${config.INBOX_POLL_SECONDS} s where turned on`,
    config.METRICS_TOKEN ? "/metrics behind METRICS_TOKEN" : "/metrics open",
  ];
  const read = source.file ? `${source.file} read (${source.fromFile.size} settings from it)` : "no .env";
  return {
    fields: { mode, why: how.why, api, store, features, env: read },
    message: `Switchboard starting: ${how.mode} (${how.why}) · ${api} · store: ${store} · ${read}`,
  };
}

/** host:port/database of a PostgreSQL URL, never its user or password. */
function hostOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname}`;
  } catch {
    return "(an unreadable DATABASE_URL)";
  }
}
