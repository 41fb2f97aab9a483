// A graceful stop of the Slack app (SIGTERM, SIGINT): stop taking work, let
// what is in flight finish within SHUTDOWN_GRACE_MS, hand back the rest, then
// close everything and exit 0.
//   1. Draining: every listener's work goes through `guarded` (deliver.ts),
//      which runs it through InFlight; from now on a new command or click is
//      acked and answered privately "Switchboard is restarting…" instead.
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
import type { RespondArguments } from "@slack/bolt";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { settleInterruptedConfirmations } from "../store/confirmations.ts";
import type { SlackApp } from "./app.ts";
import { settleOwnImports } from "./uploads/flow.ts";

const CLOSE_STEP_MS = 3000;

export const RESTARTING = "Switchboard is restarting, try again in a moment.";
/** What is told of work still running when the grace is over: it may have been done (a send), so never "try again". */
export const STOPPED_UNKNOWN =
  "Switchboard had to stop while this was still running: it may or may not have been done. Check before running it again.";

type Tell = ((message: RespondArguments) => Promise<unknown>) | undefined;

interface Entry {
  where: string;
  tell: Tell;
}

/** The work of the listeners in flight, so a stop can wait for it or hand it back. */
export class InFlight {
  draining = false;
  /** Set once the grace is over: what still runs was told its outcome is unknown, and says nothing more on failure. */
  stopped = false;
  private readonly running = new Set<Entry>();
  private idle?: () => void;

  get size(): number {
    return this.running.size;
  }

  /** Runs `work`, unless the app is stopping: then the person is told to try again in a moment. */
  async run(where: string, tell: Tell, work: () => Promise<void>): Promise<void> {
    if (this.draining) {
      await restarting(tell);
      return;
    }
    const entry: Entry = { where, tell };
    this.running.add(entry);
    try {
      await work();
    } finally {
      this.running.delete(entry);
      if (this.running.size === 0) this.idle?.();
    }
  }

  /**
   * Stops taking work and waits up to `graceMs` for what runs; what still
   * runs then is told its outcome is unknown (where it has someone to tell). Returns
   * how many finished and how many were handed back.
   */
  async drain(graceMs: number): Promise<{ finished: number; handedBack: string[] }> {
    this.draining = true;
    const before = this.running.size;
    if (before > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const left = [...this.running];
    this.stopped = true;
    for (const e of left)
      await e
        .tell?.({ response_type: "ephemeral", replace_original: false, text: STOPPED_UNKNOWN })
        .catch(() => {});
    return { finished: before - left.length, handedBack: left.map((e) => e.where) };
  }
}

async function restarting(tell: Tell): Promise<void> {
  await tell?.({ response_type: "ephemeral", replace_original: false, text: RESTARTING }).catch(() => {});
}

export interface StopParts {
  slack: SlackApp;
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
  log.info({ signal, inFlight: slack.deps.work?.size ?? 0, graceMs: config.SHUTDOWN_GRACE_MS }, "stopping");
  let code = 0;
  try {
    const drained = (await slack.deps.work?.drain(config.SHUTDOWN_GRACE_MS)) ?? {
      finished: 0,
      handedBack: [],
    };
    if (drained.handedBack.length) {
      // Told "restarting" above; what they were doing is left in a state a person can act on.
      const imports = await settleOwnImports(slack.deps, slack.client);
      const confirmations = slack.deps.db ? await settleInterruptedConfirmations(slack.deps.db) : 0;
      log.warn({ handedBack: drained.handedBack, imports, confirmations }, "work handed back at stop");
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
