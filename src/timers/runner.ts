// The claimed-once timer's runner (issue 37 §6, issue 40 §2): one per process
// and kind, over every workspace's timers of that kind (src/store/timers.ts):
// messages sent later (src/commands/later-sends.ts) and held starts
// (src/campaigns/held-start-runner.ts) run on it.
// Each due timer is claimed first (waiting → running, one conditional update
// on the version read), so whichever process — a restart, another replica on
// the same database — gets there first does it, once, and one cancelled or
// changed since it was read is not done. The kind's `run` does the work and
// records its outcome (done, failed, unknown); its `beforeClaim` may settle a
// due timer without doing it (one missed while Switchboard was stopped). A timer its claimer left
// `running` (the process stopped) is settled as unknown, never done again,
// once that process is not alive (the replicas' heartbeats) and it has run
// longer than the work can take, or after `staleMs` whatever; the kind's
// `settled` tells whom it concerns. A workspace not connected (or departed):
// its timers wait (`forWorkspace` gives nothing), holding up no other.
import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { isApiError, NetworkError } from "../api/errors.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import { PacedLoop } from "../platform/paced-loop.ts";
import type { Db } from "../store/db.ts";
import { LiveReplicas } from "../store/live-replicas.ts";
import { type Timer, Timers } from "../store/timers.ts";

/** What became of a due timer besides the kind's own outcomes: another process had it; its workspace waits. */
export type TimerPassOutcome = "taken" | "waiting" | "failed";

export interface TimerRunnerOptions<P, W, O extends string> {
  db: Db;
  kind: string;
  /** A workspace's parts the work needs, or undefined when it is not connected (its timers wait). */
  forWorkspace: (workspace: WorkspaceId) => Promise<W | undefined>;
  /** The work of a timer this process claimed (`running`): it records the outcome in the store. */
  run: (timer: Timer<P>, ws: W, store: Timers<P>) => Promise<O>;
  /**
   * Before the claim: an outcome settles the due timer without doing it (moved by the version read, as the
   * claim is); undefined: claimed and run.
   */
  beforeClaim?: (timer: Timer<P>, ws: W, store: Timers<P>) => Promise<O | undefined>;
  /** A timer settled as unknown (its claimer stopped mid-work): tell whom it concerns. */
  settled?: (timer: Timer<P>, ws: W | undefined) => Promise<void>;
  /** Words of what a stopped process left (the timer's detail). */
  stoppedDetail?: string;
  now?: () => Date;
  /** Longest wait between two looks at the store (default 15 s). */
  pollMs?: number;
  /** A timer left `running` this long is settled whatever (default 10 minutes). */
  staleMs?: number;
  /** How long the work can take (default one minute): a claimer not alive is settled only after it. */
  workMaxMs?: number;
  workerId?: string;
  /** The processes alive now (store/live-replicas.ts), this one among them; unset: only staleMs. */
  liveWorkers?: () => Promise<ReadonlySet<string>>;
  logger?: { info(o: object, m?: string): void; warn(o: object, m?: string): void };
}

const silent = { info() {}, warn() {} };
export const words = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * Claims as this process (`processId`), whose heartbeat on PostgreSQL says it still runs (store/live-replicas.ts):
 * what a killed replica left running is settled as unknown by any other once its heartbeat stops. The
 * embedded database is one process's: what another left running is settled at once.
 */
export function claimsAs(
  db: Db,
  processId: string,
): { workerId: string; liveWorkers: () => Promise<Set<string>> } {
  return {
    workerId: processId,
    liveWorkers: async () =>
      db.kind === "postgres" ? new Set(await new LiveReplicas(db).live()) : new Set([processId]),
  };
}

/**
 * What a claimed timer's work that threw is recorded as: `unknown` when its request may have reached the
 * messaging API (never done again: `mayHave` says what may have happened), else `failed`, in words.
 */
export function failureOf(err: unknown, mayHave: string): { state: "failed" | "unknown"; detail: string } {
  if (err instanceof NetworkError && err.mayHaveReachedServer)
    return { state: "unknown", detail: `the messaging API did not answer; ${mayHave}` };
  return {
    state: "failed",
    detail: isApiError(err) ? `the messaging API refused it (${err.message})` : words(err),
  };
}

export class TimerRunner<P, W, O extends string> {
  protected readonly opts: TimerRunnerOptions<P, W, O>;
  private readonly loop: PacedLoop<Array<O | TimerPassOutcome>>;
  readonly workerId: string;

  constructor(opts: TimerRunnerOptions<P, W, O>) {
    this.opts = opts;
    this.workerId = opts.workerId ?? `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
    this.loop = new PacedLoop({
      pass: () => this.pass(),
      next: async () => {
        const poll = this.opts.pollMs ?? 15_000;
        const due = await Timers.nextDue(this.opts.db, opts.kind).catch(() => undefined);
        if (!due) return poll;
        return Math.max(250, Math.min(poll, due.getTime() - this.now().getTime()));
      },
      onError: (err) => this.log.warn({ kind: opts.kind, err: words(err) }, "timers: a pass failed"),
    });
  }

  protected get log() {
    return this.opts.logger ?? silent;
  }
  protected now(): Date {
    return this.opts.now?.() ?? new Date();
  }

  /** Looks at the store on a timer, the first pass at once (it settles what a stopped process left). */
  async start(): Promise<void> {
    this.loop.start();
  }
  async stop(): Promise<void> {
    await this.loop.stop();
  }
  /** A timer was set or moved: look now. */
  wake(): void {
    this.loop.wake();
  }

  /** One look: what a stopped process left settled, then every timer due now, each done once. */
  async pass(): Promise<Array<O | TimerPassOutcome>> {
    const { db, kind } = this.opts;
    await this.settleStale().catch((err: unknown) =>
      this.log.warn({ kind, err: words(err) }, "timers: could not settle what a stopped process left"),
    );
    const out: Array<O | TimerPassOutcome> = [];
    // A workspace not connected keeps its timers waiting; the next batch leaves it out.
    const waiting = new Set<WorkspaceId>();
    for (let batch = 0; batch < 5; batch++) {
      const due = await Timers.dueAll<P>(db, kind, this.now(), 50, [...waiting]);
      if (!due.length) break;
      for (const t of due) {
        if (waiting.has(t.workspace)) continue;
        const outcome = await this.runOne(t).catch((err) => {
          this.log.warn({ kind, workspace: t.workspace, err: words(err) }, "timers: the work failed");
          return "failed" as const;
        });
        if (outcome === "waiting") waiting.add(t.workspace);
        out.push(outcome);
      }
      if (due.length < 50) break;
    }
    return out;
  }

  /** Timers their process left `running`: unknown, never done again; whom it concerns told. */
  async settleStale(): Promise<number> {
    const { db, kind } = this.opts;
    const running = await Timers.running<P>(db, kind);
    if (running.length === 0) return 0;
    const live = await this.opts.liveWorkers?.().catch(() => undefined);
    const now = this.now().getTime();
    const before = now - (this.opts.staleMs ?? 10 * 60_000);
    const worked = now - (this.opts.workMaxMs ?? 60_000);
    const stale = running.filter(
      (t) =>
        t.claimedBy !== this.workerId &&
        (t.updatedAt.getTime() < before ||
          (live !== undefined &&
            t.claimedBy !== undefined &&
            !live.has(t.claimedBy) &&
            t.updatedAt.getTime() < worked)),
    );
    for (const t of stale) {
      // stores: the timers' runner works over every workspace: the timer's own workspace's store
      const moved = await new Timers<P>(db, t.workspace, kind).move(
        t.number,
        ["running"],
        "unknown",
        this.now(),
        {
          detail: this.opts.stoppedDetail ?? "Switchboard stopped while doing it",
        },
      );
      if (moved) await this.opts.settled?.(moved, await this.opts.forWorkspace(t.workspace));
    }
    return stale.length;
  }

  private async runOne(t: Timer<P>): Promise<O | TimerPassOutcome> {
    const ws = await this.opts.forWorkspace(t.workspace);
    if (ws === undefined) return "waiting";
    // stores: the timers' runner works over every workspace: the timer's own workspace's store
    const store = new Timers<P>(this.opts.db, t.workspace, this.opts.kind);
    const settled = await this.opts.beforeClaim?.(t, ws, store);
    if (settled !== undefined) return settled;
    // The claim: of every process that read it as due, one moves it on — only as it was read (its version).
    const mine = await store.move(t.number, ["waiting"], "running", this.now(), {
      claimedBy: this.workerId,
      version: t.version,
    });
    if (!mine) return "taken";
    return this.opts.run(mine, ws, store);
  }
}
