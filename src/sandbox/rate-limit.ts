// Per-key request budgets, reads and writes counted apart, in fixed one-minute
// windows (the spec: 300 reads and 60 writes a minute per key). A window
// starts at a key's first request; Retry-After is the wait until it ends.
import type { Scope } from "../api/operations.ts";

const WINDOW_MS = 60_000;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window ends (at least 1). */
  resetSeconds: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  private readonly limits: Record<Scope, number>;
  private readonly nowMs: () => number;
  constructor(limits: Record<Scope, number>, nowMs: () => number) {
    this.limits = limits;
    this.nowMs = nowMs;
  }

  hit(key: string, scope: Scope): RateDecision {
    const now = this.nowMs();
    const id = `${scope}:${key}`;
    let w = this.windows.get(id);
    if (!w || now - w.start >= WINDOW_MS) {
      w = { start: now, count: 0 };
      this.windows.set(id, w);
    }
    const limit = this.limits[scope];
    const resetSeconds = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
    if (w.count >= limit) return { allowed: false, limit, remaining: 0, resetSeconds };
    w.count += 1;
    return { allowed: true, limit, remaining: limit - w.count, resetSeconds };
  }
}
