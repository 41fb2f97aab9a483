// The listeners' work in flight, so a graceful stop (shutdown.ts) can wait for
// it or hand it back. A leaf: it imports nothing of the app, so the context,
// the middleware and the stop can all name it without a cycle.
import type { RespondArguments } from "@slack/bolt";

export const RESTARTING = "Switchboard is restarting, try again in a moment.";
/** What is told of work still running when the grace is over: it may have been done (a send), so never "try again". */
export const STOPPED_UNKNOWN =
  "Switchboard had to stop while this was still running: it may or may not have been done. Check before running it again.";

/** Whom to tell when the work is refused or handed back: the request's response_url, when it has one. */
export type Tell = ((message: RespondArguments) => Promise<unknown>) | undefined;

interface Entry {
  where: string;
  tell: Tell;
}

export interface Drained {
  finished: number;
  /** What was still running after the grace (each told its outcome is unknown where someone could be). */
  handedBack: string[];
  /** How many hand-backs ran (an import settled as unknown, …). */
  settled: number;
}

export class InFlight {
  draining = false;
  /** Set once the grace is over: what still runs was told its outcome is unknown, and says nothing more on failure. */
  stopped = false;
  private readonly running = new Set<Entry>();
  private readonly handBacks = new Set<() => Promise<unknown>>();
  private idle?: () => void;

  get size(): number {
    return this.running.size;
  }

  /**
   * Runs `work`, unless the app is stopping: then the person is told to try
   * again in a moment, and `refused` (an ack) runs instead. With `always`,
   * work that nobody could be told about runs even while stopping (a
   * workflow step, a thread reply to a customer), still waited for.
   */
  async run(
    where: string,
    tell: Tell,
    work: () => Promise<void>,
    opts: { always?: boolean; refused?: () => Promise<void> } = {},
  ): Promise<void> {
    if (this.draining && !opts.always) {
      await opts.refused?.();
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
   * What to do with a piece of work if the stop hands it back (an import
   * settled as unknown, so its message says so). Returns the unregister, to
   * call when the work is over.
   */
  onHandBack(settle: () => Promise<unknown>): () => void {
    this.handBacks.add(settle);
    return () => {
      this.handBacks.delete(settle);
    };
  }

  /**
   * Stops taking work and waits up to `graceMs` for what runs; what still
   * runs then is told its outcome is unknown (where it has someone to tell)
   * and its hand-backs run.
   */
  async drain(graceMs: number): Promise<Drained> {
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
    let settled = 0;
    for (const settle of [...this.handBacks]) {
      this.handBacks.delete(settle);
      await settle();
      settled += 1;
    }
    return { finished: before - left.length, handedBack: left.map((e) => e.where), settled };
  }
}

async function restarting(tell: Tell): Promise<void> {
  await tell?.({ response_type: "ephemeral", replace_original: false, text: RESTARTING }).catch(() => {});
}
