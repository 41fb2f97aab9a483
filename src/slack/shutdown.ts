// A graceful stop of the Slack app (SIGTERM, SIGINT): stop taking work, let
// what is in flight finish within SHUTDOWN_GRACE_MS, hand back the rest, then
// close everything and exit 0.
//   1. Draining: every listener's work goes through the guard middleware
//      (listeners/middleware.ts), which runs it through InFlight (in-flight.ts);
//      from now on a new command or click is acked and answered privately
//      "Switchboard is restarting…" instead.
//   2. What is still running after the grace is told that it may or may not
//      have been done, to check before running it again (never "try again": a
//      send in flight may have gone out); a failure it meets later, as the
//      parts close under it, is logged, not told. Imports this process
//      was running are settled as unknown with Try again (their messages say
//      so), confirmations left running as unknown (a later click says to
//      check).
//   3. The Bolt app, the reports (scheduler leases, live progress) and the
//      store close, each given 3 s (a request handed back may still hold an
//      API connection); the process exits 0. A stop hanging past the grace +
//      10 s ends the process with 1.
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import { Confirmations } from "../store/confirmations.ts";
import type { Db } from "../store/db.ts";
import type { InFlight } from "./in-flight.ts";

export { RESTARTING, STOPPED_UNKNOWN } from "./in-flight.ts";

const CLOSE_STEP_MS = 3000;

export interface StopParts {
  /** The Bolt app's part in the stop: its work in flight, its database, its close. */
  slack: { work: InFlight; db?: Db; stop(): Promise<void> };
  /** The reports runtime (scheduler, live progress). */
  reports: { stop(): Promise<void> };
  /** The inbox poller (leases released). */
  inbox?: { stop(): Promise<void> };
  switchboard: { close(): Promise<void> };
  config: Pick<Config, "SHUTDOWN_GRACE_MS">;
  logger: Logger;
}

/** Stops the Slack app as above; resolves with the exit code (0, or 1 when closing failed). */
export async function gracefulStop(parts: StopParts, signal: string): Promise<number> {
  const { slack, logger, config } = parts;
  const log = logger.child({ part: "shutdown" });
  log.info({ signal, inFlight: slack.work.size, graceMs: config.SHUTDOWN_GRACE_MS }, "stopping");
  let code = 0;
  try {
    // What still runs after the grace is told "restarting" and its hand-backs run (imports: unknown).
    const drained = await slack.work.drain(config.SHUTDOWN_GRACE_MS);
    if (drained.handedBack.length) {
      // What they were doing is left in a state a person can act on.
      const confirmations = slack.db ? (await Confirmations.settleInterruptedAll(slack.db)).length : 0;
      log.warn(
        { handedBack: drained.handedBack, imports: drained.settled, confirmations },
        "work handed back at stop",
      );
    }
    log.info({ finished: drained.finished }, "in-flight work done");
  } catch (err) {
    code = 1;
    log.error({ err: String(err) }, "could not settle the work in flight");
  }
  for (const [name, close] of [
    ["slack", () => slack.stop()],
    ["reports", () => parts.reports.stop()],
    ["inbox", () => parts.inbox?.stop() ?? Promise.resolve()],
    ["store", () => parts.switchboard.close()],
  ] as const) {
    // Each part gets a few seconds: a request handed back may still hold a connection, and exit ends it.
    const outcome = await Promise.race([
      close().then(
        () => "closed",
        (err) => `failed: ${String(err)}`,
      ),
      new Promise<string>((resolve) => setTimeout(resolve, CLOSE_STEP_MS, "timed out").unref()),
    ]);
    if (outcome !== "closed") log.warn({ part: name, outcome }, "close did not finish");
  }
  log.info({ code }, "stopped");
  return code;
}

/**
 * SIGTERM and SIGINT stop the app gracefully, once; a close hanging past the grace + 10 s ends it with 1.
 * Returns the same stop for other reasons (`exitCode` then replaces the stop's own).
 */
export function stopOnSignals(parts: StopParts): (reason: string, exitCode?: number) => void {
  let stopping = false;
  const stop = (signal: string, exitCode?: number) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => {
      parts.logger.error("stop took too long: exiting");
      process.exit(1);
    }, parts.config.SHUTDOWN_GRACE_MS + 10_000).unref();
    gracefulStop(parts, signal).then(
      (code) => process.exit(exitCode ?? code),
      () => process.exit(1),
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  return stop;
}
