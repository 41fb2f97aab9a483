// What the bench modules that measure against the embedded sandbox start
// with: the sandbox with no campaign ticks and budgets out of the way, so
// that only what is measured counts.
//
// Also what every bench module ends with: `runWhenMain`. Nothing of src/ is
// loaded until used, so a bench child measuring memory (bench/api.bench.ts's
// bare undici) carries only what it measures.
import { pathToFileURL } from "node:url";
import type { MessagingClient } from "../src/api/client.ts";
import type { SandboxOptions } from "../src/sandbox/index.ts";

/** A budget no bench reaches (requests a minute). */
export const NO_LIMIT = 10_000_000;

export async function startBenchSandbox(extra: Partial<SandboxOptions> = {}) {
  const { startSandbox } = await import("../src/sandbox/index.ts");
  return startSandbox({ campaignTickMs: 0, readLimit: NO_LIMIT, writeLimit: NO_LIMIT, ...extra });
}

/** A client whose own budget is out of the way too (the background lane may use all of it). */
export async function benchClient(baseUrl: string, apiKey: string): Promise<MessagingClient> {
  const { MessagingClient } = await import("../src/api/client.ts");
  const { RateLimiter } = await import("../src/api/rate-limit.ts");
  return new MessagingClient({
    baseUrl,
    apiKey,
    limiter: new RateLimiter({ readPerMinute: NO_LIMIT, writePerMinute: NO_LIMIT, backgroundReadShare: 1 }),
  });
}

/**
 * Runs `run` with the command line's arguments when this module is the one Node started
 * (`node bench/store.bench.ts 1000`), never when `npm run bench` imports it for its run():
 * prints what it returns as a table (a mode that writes its own output returns nothing), and
 * a failure on stderr with exit code 1. `url` is the module's own `import.meta.url`.
 */
export function runWhenMain(url: string, run: (args: string[]) => unknown): void {
  const started = process.argv[1];
  if (!started || url !== pathToFileURL(started).href) return;
  Promise.resolve()
    .then(() => run(process.argv.slice(2)))
    .then(
      (out) => {
        if (out !== undefined) console.table(out);
      },
      (err: unknown) => {
        console.error(err);
        process.exitCode = 1;
      },
    );
}
