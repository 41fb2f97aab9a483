// What the bench modules that measure against the embedded sandbox start
// with: the sandbox with no campaign ticks and budgets out of the way, so
// that only what is measured counts.
import { MessagingClient } from "../src/api/client.ts";
import { RateLimiter } from "../src/api/rate-limit.ts";
import { type SandboxOptions, startSandbox } from "../src/sandbox/index.ts";

/** A budget no bench reaches (requests a minute). */
export const NO_LIMIT = 10_000_000;

export function startBenchSandbox(extra: Partial<SandboxOptions> = {}) {
  return startSandbox({ campaignTickMs: 0, readLimit: NO_LIMIT, writeLimit: NO_LIMIT, ...extra });
}

/** A client whose own budget is out of the way too (the background lane may use all of it). */
export function benchClient(baseUrl: string, apiKey: string): MessagingClient {
  return new MessagingClient({
    baseUrl,
    apiKey,
    limiter: new RateLimiter({ readPerMinute: NO_LIMIT, writePerMinute: NO_LIMIT, backgroundReadShare: 1 }),
  });
}
