// One pino logger for the process. Secrets are redacted by path, and the API
// key never reaches a log line: anything that might carry it goes through redact.
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

/** `destination` 2 writes to stderr (the shell keeps stdout for answers); default stdout. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? "info", destination?: 1 | 2): Logger {
  const opts = { level, redact: { paths: REDACT, censor: "[redacted]" }, base: { app: "switchboard" } };
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
