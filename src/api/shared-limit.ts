// One budget per key, whoever spends it (docs/api.md, "One budget per key"):
// several replicas of a deployment on one PostgreSQL share each key's read and
// write token buckets through the store (src/store/rate-budget.ts), so N
// replicas never offer a key N times its limits. A request first passes this
// process's own limiter (rate-limit.ts: the lanes, people before background),
// then takes a token from the shared buckets in one statement; a background
// read also takes one from the shared background share, so people's requests
// on any replica still find tokens. Without a shared store (PGlite, no
// database) the in-memory limiter alone runs, as before.
import {
  type BudgetKind,
  limiterKey,
  RateLimiter,
  type RateLimiterOptions,
  TokenBucket,
} from "./rate-limit.ts";
import type { Lane } from "./types.ts";

/** The shared buckets (implemented by the store's RateBudgetStore). */
export interface SharedBudget {
  define(
    key: string,
    buckets: ReadonlyArray<{ bucket: string; capacity: number; perMs: number }>,
  ): Promise<void>;
  take(
    key: string,
    buckets: readonly string[],
  ): Promise<{ granted: boolean; waitMs: number; missing: boolean }>;
  penalize(key: string, bucket: string, ms: number): Promise<void>;
}

export interface SharedLimiterOptions extends RateLimiterOptions {
  /** Told once when the shared budget cannot be reached (this process's limiter alone then). */
  onUnreachable?: (err: unknown) => void;
}

const bucketsOf = (kind: BudgetKind, lane: Lane): string[] =>
  kind === "write" ? ["write"] : lane === "background" ? ["read", "read:background"] : ["read"];

export class SharedRateLimiter extends RateLimiter {
  private readonly budget: SharedBudget;
  private readonly key: string;
  private readonly shapes: Array<{ bucket: string; capacity: number; perMs: number }>;
  private readonly onUnreachable?: (err: unknown) => void;
  private ready?: Promise<void>;
  private told = false;

  /** `key`: the API key's hash (never the key). */
  constructor(budget: SharedBudget, key: string, opts: SharedLimiterOptions = {}) {
    super(opts);
    this.budget = budget;
    this.key = key;
    this.onUnreachable = opts.onUnreachable;
    // The same shapes as this process's buckets (rate-limit.ts), for the whole deployment.
    const windowMs = opts.windowMs ?? 60_000;
    const stats = this.stats();
    const clock = { now: () => 0, setTimeout: () => undefined, clearTimeout: () => {} };
    const read = new TokenBucket(stats.read.perMinute, clock, { windowMs });
    const share = stats.read.backgroundShare;
    const background = new TokenBucket(Math.max(1, stats.read.perMinute * share), clock, {
      windowMs,
      burst: Math.max(1, Math.floor(read.capacity * share)),
    });
    const write = new TokenBucket(stats.write.perMinute, clock, { windowMs });
    this.shapes = [
      { bucket: "read", capacity: read.capacity, perMs: read.rate },
      { bucket: "read:background", capacity: background.capacity, perMs: background.rate },
      { bucket: "write", capacity: write.capacity, perMs: write.rate },
    ];
  }

  override async acquire(kind: BudgetKind, lane: Lane = "interactive", signal?: AbortSignal): Promise<void> {
    await super.acquire(kind, lane, signal);
    const buckets = bucketsOf(kind, lane);
    for (;;) {
      signal?.throwIfAborted();
      let answer: Awaited<ReturnType<SharedBudget["take"]>>;
      try {
        this.ready ??= this.budget.define(this.key, this.shapes).catch((err) => {
          this.ready = undefined;
          throw err;
        });
        await this.ready;
        answer = await this.budget.take(this.key, buckets);
      } catch (err) {
        // The store unreachable: this process's limiter alone (the request fails there anyway, most likely).
        if (!this.told) this.onUnreachable?.(err);
        this.told = true;
        return;
      }
      this.told = false;
      if (answer.granted) return;
      if (answer.missing) {
        this.ready = undefined;
        continue;
      }
      // Until a token is there for this replica too; a little spread so replicas do not ask together.
      await sleep(Math.ceil(answer.waitMs) + 1 + Math.floor(Math.random() * 5), signal);
    }
  }

  override penalize(kind: BudgetKind, ms: number): void {
    super.penalize(kind, ms);
    void this.budget.penalize(this.key, kind, ms).catch(() => {});
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(t);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}

// One limiter per (shared budget, base URL, key) in the process, like rate-limit.ts's sharedLimiter.
// state: owned: keyed by its SharedBudget (the deployment's), then by base URL and key hash.
const limiters = new WeakMap<SharedBudget, Map<string, SharedRateLimiter>>();

/**
 * The limiter of a key on this shared budget: the first client of the key in
 * this process sets its shape. The rows are keyed by the key's hash alone, so
 * every replica's clients of the key share them whatever their base URL.
 */
export function sharedBudgetLimiter(
  budget: SharedBudget,
  baseUrl: string,
  apiKey: string,
  opts: SharedLimiterOptions = {},
): SharedRateLimiter {
  let mine = limiters.get(budget);
  if (!mine) {
    mine = new Map();
    limiters.set(budget, mine);
  }
  const id = limiterKey(baseUrl, apiKey);
  let limiter = mine.get(id);
  if (!limiter) {
    limiter = new SharedRateLimiter(budget, `key:${limiterKey("", apiKey).slice(1)}`, opts);
    mine.set(id, limiter);
  }
  return limiter;
}
