// Client-side rate limiting: the service allows 300 reads and 60 writes a
// minute per API key, and every call a person waits for must fit in that. Each
// key has a read and a write token bucket (shared by every client of that key
// and base URL in the process); callers wait in a queue for a token, the
// interactive lane is served before the background lane, and background reads
// draw on a sub-bucket so they can never use more than their share of reads.
import { createHash } from "node:crypto";
import type { Lane } from "./types.ts";

export type BudgetKind = "read" | "write";

/** Time source and timers, injectable so tests can move time by hand. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A waiting queue must not keep the process alive on its own.
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/**
 * A token bucket that holds at most `capacity` tokens and refills continuously
 * so that no window of `windowMs` ever grants more than `limit` tokens:
 * capacity + refill over one window = limit. A bucket as large as the limit
 * would allow up to twice the limit in one fixed or sliding window of the
 * service, which is exactly what earns a 429.
 */
export class TokenBucket {
  readonly capacity: number;
  /** Tokens per millisecond. */
  readonly rate: number;
  private tokens: number;
  private updatedAt: number;
  private blockedUntil = 0;

  readonly limit: number;
  private readonly clock: Clock;
  constructor(limit: number, clock: Clock, opts: { burst?: number; windowMs?: number } = {}) {
    this.limit = limit;
    this.clock = clock;
    const windowMs = opts.windowMs ?? 60_000;
    // A tenth of the limit as burst keeps 90% of it as sustained throughput.
    this.capacity = Math.max(1, Math.min(limit, opts.burst ?? Math.round(limit / 10)));
    const refillPerWindow = Math.max(limit - this.capacity, Math.min(limit, 1));
    this.rate = refillPerWindow / windowMs;
    this.tokens = this.capacity;
    this.updatedAt = clock.now();
  }

  private refill(): void {
    const now = this.clock.now();
    if (now > this.updatedAt) {
      const from = Math.max(this.updatedAt, this.blockedUntil);
      if (now > from) this.tokens = Math.min(this.capacity, this.tokens + (now - from) * this.rate);
      this.updatedAt = now;
    }
  }

  available(): number {
    this.refill();
    return this.clock.now() < this.blockedUntil ? 0 : this.tokens;
  }

  /** Milliseconds until one token is available (0 when one is). */
  waitMs(): number {
    this.refill();
    const now = this.clock.now();
    const blocked = Math.max(0, this.blockedUntil - now);
    if (this.tokens >= 1) return blocked;
    return blocked + (1 - this.tokens) / this.rate;
  }

  /** Milliseconds until `n` tokens will have been available (0 when they are). */
  waitForMs(n: number): number {
    this.refill();
    const blocked = Math.max(0, this.blockedUntil - this.clock.now());
    const missing = n - this.tokens;
    return blocked + (missing > 0 ? missing / this.rate : 0);
  }

  take(): void {
    this.refill();
    this.tokens -= 1;
  }

  /** After a 429: no tokens until `ms` from now, so every caller of the key waits; then one probe. */
  drain(ms: number): void {
    this.refill();
    this.tokens = Math.min(this.tokens, 1);
    this.blockedUntil = Math.max(this.blockedUntil, this.clock.now() + ms);
  }
}

interface Waiter {
  resolve(): void;
  reject(reason: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

export interface LaneStats {
  interactive: number;
  background: number;
}

export interface BucketStats {
  perMinute: number;
  capacity: number;
  /** Tokens available now (fractional: refill is continuous). */
  available: number;
  /** Requests waiting for a token, per lane. */
  queued: LaneStats;
  /** Requests granted since the limiter was created, per lane. */
  granted: LaneStats;
}

export interface BudgetStats {
  read: BucketStats & { backgroundShare: number; backgroundAvailable: number };
  write: BucketStats;
}

export interface RateLimiterOptions {
  readPerMinute?: number;
  writePerMinute?: number;
  /** Share (0..1) of the read budget background work may use; the rest is kept for people. */
  backgroundReadShare?: number;
  clock?: Clock;
  windowMs?: number;
}

class Budget {
  readonly queues: Record<Lane, Waiter[]> = { interactive: [], background: [] };
  readonly granted: LaneStats = { interactive: 0, background: 0 };
  readonly bucket: TokenBucket;
  /** Extra bucket a background request also needs a token from (reads only). */
  readonly backgroundBucket?: TokenBucket;
  constructor(bucket: TokenBucket, backgroundBucket?: TokenBucket) {
    this.bucket = bucket;
    this.backgroundBucket = backgroundBucket;
  }
}

export class RateLimiter {
  private readonly clock: Clock;
  private readonly budgets: Record<BudgetKind, Budget>;
  private readonly share: number;
  private timer: unknown;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(opts: RateLimiterOptions = {}) {
    this.clock = opts.clock ?? systemClock;
    const windowMs = opts.windowMs ?? 60_000;
    const reads = opts.readPerMinute ?? 300;
    const writes = opts.writePerMinute ?? 60;
    // A share of 0 would starve background reads forever; keep a trickle.
    this.share = Math.min(1, Math.max(0.01, opts.backgroundReadShare ?? 0.3));
    const read = new TokenBucket(reads, this.clock, { windowMs });
    const background = new TokenBucket(Math.max(1, reads * this.share), this.clock, {
      windowMs,
      burst: Math.max(1, Math.floor(read.capacity * this.share)),
    });
    this.budgets = {
      read: new Budget(read, background),
      write: new Budget(new TokenBucket(writes, this.clock, { windowMs }), undefined),
    };
  }

  /** Waits for a token of `kind` in `lane`; rejects with the signal's reason when aborted while waiting. */
  acquire(kind: BudgetKind, lane: Lane = "interactive", signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const budget = this.budgets[kind];
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal };
      if (signal) {
        waiter.onAbort = () => {
          const queue = budget.queues[lane];
          const i = queue.indexOf(waiter);
          if (i >= 0) queue.splice(i, 1);
          reject(signal.reason);
          this.pump();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      budget.queues[lane].push(waiter);
      this.pump();
    });
  }

  /**
   * About how long a new interactive call of `kind` would wait for its token now,
   * behind those already queued, in ms.
   */
  waitEstimateMs(kind: BudgetKind): number {
    const budget = this.budgets[kind];
    return budget.bucket.waitForMs(budget.queues.interactive.length + 1);
  }

  /** The service said 429: hold back every caller of this key for `ms`. */
  penalize(kind: BudgetKind, ms: number): void {
    this.budgets[kind].bucket.drain(ms);
    this.pump();
  }

  stats(): BudgetStats {
    const one = (b: Budget): BucketStats => ({
      perMinute: b.bucket.limit,
      capacity: b.bucket.capacity,
      available: b.bucket.available(),
      queued: { interactive: b.queues.interactive.length, background: b.queues.background.length },
      granted: { ...b.granted },
    });
    const read = this.budgets.read;
    return {
      read: {
        ...one(read),
        backgroundShare: this.share,
        backgroundAvailable: Math.min(read.bucket.available(), read.backgroundBucket!.available()),
      },
      write: one(this.budgets.write),
    };
  }

  /** Grants every token that is available, then sleeps until the next one could be. */
  private pump(): void {
    let nextWait = Number.POSITIVE_INFINITY;
    for (const budget of Object.values(this.budgets)) {
      nextWait = Math.min(nextWait, this.drainQueues(budget));
    }
    this.schedule(nextWait);
  }

  /** Returns the wait until the head of this budget's queues could be served. */
  private drainQueues(budget: Budget): number {
    for (;;) {
      const { interactive, background } = budget.queues;
      if (interactive.length > 0) {
        const wait = budget.bucket.waitMs();
        if (wait > 0) return wait;
        budget.bucket.take();
        this.grant(budget, "interactive");
        continue;
      }
      if (background.length > 0) {
        const wait = Math.max(budget.bucket.waitMs(), budget.backgroundBucket?.waitMs() ?? 0);
        if (wait > 0) return wait;
        budget.bucket.take();
        budget.backgroundBucket?.take();
        this.grant(budget, "background");
        continue;
      }
      return Number.POSITIVE_INFINITY;
    }
  }

  private grant(budget: Budget, lane: Lane): void {
    const waiter = budget.queues[lane].shift()!;
    budget.granted[lane] += 1;
    if (waiter.onAbort) waiter.signal?.removeEventListener("abort", waiter.onAbort);
    waiter.resolve();
  }

  private schedule(waitMs: number): void {
    if (!Number.isFinite(waitMs)) {
      this.cancelTimer();
      return;
    }
    const at = this.clock.now() + waitMs;
    if (this.timer !== undefined && this.timerAt <= at) return;
    this.cancelTimer();
    this.timerAt = at;
    // +1 ms: refill is continuous, so waking exactly on time can find 0.9999 tokens.
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      this.pump();
    }, Math.ceil(waitMs) + 1);
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
  }
}

// One limiter per (base URL, API key) in the process, so that several clients
// of the same key share the budget the service counts per key.
// state: the deployment's: the API budget belongs to the key (by base URL and key hash), shared by every workspace that spends it.
const registry = new Map<string, RateLimiter>();

/** A key's name in the process's registries (limiters, connection pools): its hash, never the key. */
export function keyHash(apiKey: string): string {
  return createHash("sha256").update(apiKey).digest("hex").slice(0, 16);
}

export function limiterKey(baseUrl: string, apiKey: string): string {
  return `${baseUrl.replace(/\/+$/, "")}#${keyHash(apiKey)}`;
}

/** The shared limiter of a key; the first client of a key sets its budget. */
export function sharedLimiter(baseUrl: string, apiKey: string, opts: RateLimiterOptions = {}): RateLimiter {
  const key = limiterKey(baseUrl, apiKey);
  let limiter = registry.get(key);
  if (!limiter) {
    limiter = new RateLimiter(opts);
    registry.set(key, limiter);
  }
  return limiter;
}
