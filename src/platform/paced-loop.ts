// A paced loop: passes run one after another on a timer (real time) until
// stop(). After each pass `next` says how long to wait before the following
// one (undefined: sleep until wake()). Shared by the inbox poller and the
// campaign progress tracker.

export interface PacedLoopOptions<R> {
  /** One pass. */
  pass: () => Promise<R>;
  /** After a pass: milliseconds until the next one, or undefined to sleep until wake(). */
  next: () => Promise<number | undefined>;
  /** A pass threw (the loop goes on). */
  onError: (err: unknown) => void;
}

export class PacedLoop<R> {
  private stepping: Promise<R> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  private readonly opts: PacedLoopOptions<R>;

  constructor(opts: PacedLoopOptions<R>) {
    this.opts = opts;
  }

  /** One pass now. Passes never overlap: a timer pass and a manual pass wait for each other. */
  step(): Promise<R> {
    const pass = () => this.opts.pass();
    const run = (this.stepping ?? Promise.resolve()).then(pass, pass);
    this.stepping = run;
    return run;
  }

  /** Passes on the timer, the first at once. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.arm(0);
  }

  /** No more passes; resolves once the pass under way (if any) has ended. */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.stepping?.catch(() => {});
  }

  /** Something new: a pass now rather than at the next tick (when started). */
  wake(): void {
    if (this.running) this.arm(0);
  }

  private arm(ms: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.loop(), ms);
    this.timer.unref();
  }

  private async loop(): Promise<void> {
    this.timer = undefined;
    try {
      await this.step();
    } catch (err) {
      this.opts.onError(err);
    }
    if (!this.running || this.timer) return;
    const ms = await this.opts.next();
    // Stopped, or woken (a timer armed), while the delay was read: that wins.
    if (!this.running || this.timer) return;
    if (ms !== undefined) this.arm(ms);
  }
}
