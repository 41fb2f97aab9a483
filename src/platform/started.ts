// A runtime made at once (its parts wired) and started later, once the app
// answers; a caller that wants both in one call (the tests, a lone start)
// awaits this.

/** The runtime, once its start has finished. */
export async function started<R extends { start(): Promise<unknown> }>(runtime: R): Promise<R> {
  await runtime.start();
  return runtime;
}

/**
 * A runtime's start and stop, each done once: a second start waits for the
 * first, and a stop waits for a start under way before it ends the work.
 */
export class StartStop {
  private starting: Promise<void> | undefined;
  private ended = false;
  private readonly begin: () => Promise<void>;
  private readonly end: () => Promise<void>;

  constructor(begin: () => Promise<void>, end: () => Promise<void>) {
    this.begin = begin;
    this.end = end;
  }

  /** Whether a stop has been asked for (work started afterwards is not begun). */
  get stopped(): boolean {
    return this.ended;
  }

  /** Settles once a start under way has (at once when none was asked for). */
  get started(): Promise<void> {
    return this.starting ?? Promise.resolve();
  }

  start(): Promise<void> {
    this.starting ??= this.begin();
    return this.starting;
  }

  async stop(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.starting?.catch(() => {});
    await this.end();
  }
}
