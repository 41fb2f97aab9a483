// One pino logger for the process. Secrets are redacted by path, and then, in
// the finished line, by pattern (Slack's tokens) and by value (every key and
// secret the process holds, `hideSecrets`): a secret inside a message string,
// as Bolt's debug lines join a whole payload into one, is caught too.
import pino from "pino";

const REDACT = [
  "apiKey",
  "*.apiKey",
  "headers['x-api-key']",
  "req.headers['x-api-key']",
  "req.headers.authorization",
  "headers.authorization",
  "token",
  "*.token",
  "botToken",
  "signingSecret",
];

export type Logger = pino.Logger;

/** A logger of these levels only, as a part takes one (the app's, or a test's silent one): `LogsAt<"info" | "warn">`. */
export type LogsAt<Level extends "debug" | "info" | "warn" | "error"> = Record<
  Level,
  (obj: object, msg?: string) => void
>;

const CENSOR = "[redacted]";

// Slack's tokens (bot, user, app-level, workflow, refresh…) and the members of a payload
// that carry a secret, in a JSON line whose quotes may be escaped once (a payload inside `msg`).
const SECRET_PATTERNS: [RegExp, string][] = [
  [/\bx(?:ox[a-z]|app|wfp)-[A-Za-z0-9-]{6,}/g, CENSOR],
  [
    /(\\?"(?:token|verification_token|bot_access_token|access_token|refresh_token|client_secret|signing_secret|app_token|api_key|apiKey)\\?"\s*:\s*\\?")[^"\\]+/g,
    `$1${CENSOR}`,
  ],
  [/((?:authorization|x-api-key)\\?"?\s*[:=]\s*\\?"?(?:bearer\s+)?)[^\s"\\,}]+/gi, `$1${CENSOR}`],
  // An OAuth code, good once but good: in Slack's redirect (`/slack/oauth_redirect?code=…`) and in
  // the body of oauth.v2.access, as the Web API client's debug lines print it (`"code":"…","client_id"`).
  [/(oauth_redirect\?(?:[^\s"\\#]*?&)?code=)[^&\s"\\#]+/g, `$1${CENSOR}`],
  [/(\\?"code\\?"\s*:\s*\\?")[^"\\]+(?=\\?"\s*,\s*\\?"client_(?:id|secret)\\?")/g, `$1${CENSOR}`],
  // A Slack workflow's webhook trigger (an automation's address, docs/automations.md): its path is the secret,
  // caught in a slash command's payload (Bolt's debug lines) before the process knows it as a value.
  [/(hooks\.slack\.com\/triggers\/)[^\s"\\<>|]+/g, `$1${CENSOR}`],
];

// Every secret value this process holds; set at start from the settings (and later
// installations' tokens), read by every logger when it writes a line.
const secretValues = new Set<string>();

/** Adds values no log line may show (short values are ignored: they would censor ordinary words). */
export function hideSecrets(...values: (string | undefined)[]): void {
  for (const v of values) {
    if (!v || v.length < 8) continue;
    secretValues.add(v);
    const escaped = JSON.stringify(v).slice(1, -1); // as it appears inside a JSON string
    if (escaped !== v) secretValues.add(escaped);
  }
}

/** The secrets of the settings: keys, tokens, signing secret, the database URL's password. */
export function secretsOfConfig(config: {
  MESSAGING_API_KEY?: string;
  SLACK_BOT_TOKEN?: string;
  SLACK_SIGNING_SECRET?: string;
  SLACK_APP_TOKEN?: string;
  METRICS_TOKEN?: string;
  DATABASE_URL?: string;
  SLACK_CLIENT_SECRET?: string;
  SLACK_STATE_SECRET?: string;
  SWITCHBOARD_SECRET_KEY?: string;
  SWITCHBOARD_SECRET_KEY_PREVIOUS?: string;
}): (string | undefined)[] {
  let password: string | undefined;
  try {
    password = config.DATABASE_URL ? decodeURIComponent(new URL(config.DATABASE_URL).password) : undefined;
  } catch {
    password = undefined;
  }
  return [
    config.MESSAGING_API_KEY,
    config.SLACK_BOT_TOKEN,
    config.SLACK_SIGNING_SECRET,
    config.SLACK_APP_TOKEN,
    config.METRICS_TOKEN,
    config.SLACK_CLIENT_SECRET,
    config.SLACK_STATE_SECRET,
    config.SWITCHBOARD_SECRET_KEY,
    config.SWITCHBOARD_SECRET_KEY_PREVIOUS,
    password,
  ];
}

/** A text with every secret known to this process, or shaped like one, replaced by `[redacted]`. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const v of secretValues) if (out.includes(v)) out = out.split(v).join(CENSOR);
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** `destination` 2 writes to stderr (the shell keeps stdout for answers); default stdout; a stream (tests). */
export function createLogger(
  level: string = process.env.LOG_LEVEL ?? "info",
  destination?: 1 | 2 | pino.DestinationStream,
): Logger {
  const opts: pino.LoggerOptions = {
    level,
    redact: { paths: REDACT, censor: CENSOR },
    base: { app: "switchboard" },
    hooks: { streamWrite: redactSecrets },
  };
  if (typeof destination === "object") return pino(opts, destination);
  return destination ? pino(opts, pino.destination({ fd: destination, sync: true })) : pino(opts);
}

/** Shows only the last 4 characters of a secret: `…9d2f`. */
export function maskSecret(secret: string | undefined): string {
  if (!secret) return "(none)";
  return secret.length <= 4 ? "…" : `…${secret.slice(-4)}`;
}

/**
 * The phases of a start, each logged at debug level with its time when it
 * ends: `const phase = startPhases(logger); …; phase("store opened")`.
 */
export function startPhases(logger: Logger, since = performance.now()): (name: string) => void {
  let last = since;
  return (name) => {
    const now = performance.now();
    logger.debug(
      { phase: name, ms: Math.round(now - last), sinceStartMs: Math.round(now - since) },
      `start: ${name}`,
    );
    last = now;
  };
}
