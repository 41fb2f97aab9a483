// The Web API client's default policy retries any failed call for half an
// hour, including a chat.postMessage whose answer was lost after Slack had
// already posted it: a double post. Switchboard promises no double send, so
// calls are retried only when Slack certainly did nothing: a 429 (after its
// Retry-After, which the client waits out itself) or a connection that never
// opened. Everything else fails at once and is handled (logged, or a report
// marked uncertain) by the caller.
import type { webApi } from "@slack/bolt";

const NEVER_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NEVER_SENT.has(code)) return code;
    e = (e as { original?: unknown; cause?: unknown }).original ?? (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when a failed attempt certainly did not reach Slack, so trying again cannot post twice. */
export function safeToRetry(err: unknown): boolean {
  const message = err instanceof Error ? err.message : String(err);
  return message.includes("A rate limit was exceeded") || causeCode(err) !== undefined;
}

export const noDoubleSendRetries: webApi.RetryOptions = {
  retries: 5,
  factor: 2,
  minTimeout: 500,
  maxTimeout: 30_000,
  randomize: true,
  // p-retry stops retrying when onFailedAttempt throws.
  onFailedAttempt: (error: Error) => {
    if (!safeToRetry(error)) throw error;
  },
} as webApi.RetryOptions;
