// The read/write budgets, on a clock moved by hand: assertions are on order
// and counts, never on elapsed time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import {
  type Clock,
  RateLimiter,
  type RateLimiterOptions,
  sharedLimiter,
  TokenBucket,
} from "../../src/api/rate-limit.ts";
import { eventually } from "../helpers/eventually.ts";
import { type OddServer, startOddServer } from "../helpers/odd-server.ts";

/** A clock whose time moves only when the test says so. */
class ManualClock implements Clock {
  private t = 0;
  private timers: Array<{ at: number; fn: () => void; id: number }> = [];
  private nextId = 1;
  now() {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = this.nextId++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown) {
    this.timers = this.timers.filter((x) => x.id !== handle);
  }
  /** Moves time forward, firing due timers in order, letting promises settle after each. */
  async advance(ms: number) {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await flush();
    }
    this.t = end;
    await flush();
  }
}

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
};

/**
 * A limiter on a hand-moved clock; `get(name, kind, lane)` acquires a token and records `name` in `order`
 * when it is granted; `grantedAfter(ms)` moves the clock and gives the names granted so far.
 */
function limiterOnClock(opts: Omit<RateLimiterOptions, "clock">) {
  const clock = new ManualClock();
  const limiter = new RateLimiter({ ...opts, clock });
  const order: string[] = [];
  const get = (name: string, kind: "read" | "write", lane: "interactive" | "background" = "interactive") =>
    limiter.acquire(kind, lane).then(() => {
      order.push(name);
    });
  const grantedAfter = async (ms: number) => {
    await clock.advance(ms);
    return [...order];
  };
  return { clock, limiter, order, get, grantedAfter };
}

describe("TokenBucket", () => {
  it("never grants more than the limit in any window, bursts included", async () => {
    const clock = new ManualClock();
    const bucket = new TokenBucket(60, clock, { windowMs: 60_000 });
    const grants: number[] = [];
    // Ask for a token every 100 ms for five minutes: far more than the limit.
    for (let t = 0; t < 300_000; t += 100) {
      if (bucket.waitMs() === 0) {
        bucket.take();
        grants.push(clock.now());
      }
      await clock.advance(100);
    }
    let worst = 0;
    for (let i = 0; i < grants.length; i++) {
      let j = i;
      while (j < grants.length && grants[j]! < grants[i]! + 60_000) j++;
      worst = Math.max(worst, j - i);
    }
    expect(worst).toBeLessThanOrEqual(60);
    // ...and still uses most of it: burst plus refill.
    expect(worst).toBeGreaterThanOrEqual(55);
  });
});

describe("RateLimiter", () => {
  it("queues requests beyond the budget until tokens refill", async () => {
    const { limiter, order, get, grantedAfter } = limiterOnClock({ readPerMinute: 3, writePerMinute: 2 });
    for (const name of ["r1", "r2", "r3"]) void get(name, "read");
    await flush();
    expect(order).toEqual(["r1"]);
    expect(limiter.stats().read.queued).toEqual({ interactive: 2, background: 0 });
    expect(await grantedAfter(31_000)).toEqual(["r1", "r2"]);
    expect(await grantedAfter(31_000)).toEqual(["r1", "r2", "r3"]);
    expect(limiter.stats().read.queued).toEqual({ interactive: 0, background: 0 });
    expect(limiter.stats().read.granted.interactive).toBe(3);
  });

  it("keeps reads and writes in separate budgets", async () => {
    const { limiter, order, get } = limiterOnClock({ readPerMinute: 3, writePerMinute: 3 });
    void get("r1", "read");
    void get("r2", "read");
    void get("w1", "write");
    await flush();
    expect(order).toEqual(["r1", "w1"]);
    expect(limiter.stats().write.queued.interactive).toBe(0);
    expect(limiter.stats().read.queued.interactive).toBe(1);
  });

  it("serves interactive requests before queued background ones", async () => {
    const { limiter, order, get, grantedAfter } = limiterOnClock({
      readPerMinute: 3,
      backgroundReadShare: 1,
    });
    void get("first", "read");
    await flush();
    void get("bg1", "read", "background");
    void get("bg2", "read", "background");
    void get("person", "read", "interactive");
    await flush();
    expect(order).toEqual(["first"]);
    expect(limiter.stats().read.queued).toEqual({ interactive: 1, background: 2 });
    expect(await grantedAfter(31_000)).toEqual(["first", "person"]);
    expect(await grantedAfter(62_000)).toEqual(["first", "person", "bg1", "bg2"]);
  });

  it("lets background reads use only their share, keeping the rest for people", async () => {
    const { clock, limiter, order, get } = limiterOnClock({ readPerMinute: 100, backgroundReadShare: 0.3 });
    for (let i = 0; i < 100; i++) void get(`bg${i}`, "read", "background");
    await flush();
    const burst = limiter.stats().read.capacity;
    const backgroundGranted = order.length;
    expect(backgroundGranted).toBeGreaterThan(0);
    expect(backgroundGranted).toBeLessThanOrEqual(Math.ceil(burst * 0.3));
    // People find the rest of the burst at once, background work still queued behind them.
    for (let i = 0; i < burst - backgroundGranted; i++) void get(`p${i}`, "read");
    await flush();
    expect(order.filter((n) => n.startsWith("p"))).toHaveLength(burst - backgroundGranted);
    expect(limiter.stats().read.queued.interactive).toBe(0);
    // Over a few minutes background work gets its share of the 100 a minute, no more.
    await clock.advance(180_000);
    const background = limiter.stats().read.granted.background;
    expect(background).toBeLessThanOrEqual(3 * 30 + Math.ceil(burst * 0.3));
    expect(background).toBeGreaterThanOrEqual(3 * 25);
    expect(limiter.stats().read.queued.background).toBe(100 - background);
    // A person arriving now is served at the next token, ahead of the waiting background work.
    const before = order.length;
    void get("late-person", "read");
    await clock.advance(1_000);
    expect(order.slice(before)).toContain("late-person");
  });

  it("holds everyone back after a 429 for the time the service asked", async () => {
    const { limiter, get, grantedAfter } = limiterOnClock({ writePerMinute: 60 });
    limiter.penalize("write", 10_000);
    void get("w1", "write");
    void get("w2", "write", "background");
    expect(await grantedAfter(9_000)).toEqual([]);
    expect(limiter.stats().write.available).toBe(0);
    expect(await grantedAfter(3_000)).toEqual(["w1", "w2"]);
  });

  it("removes an aborted waiter from the queue", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ readPerMinute: 3, clock });
    await limiter.acquire("read");
    const ctl = new AbortController();
    const waiting = limiter.acquire("read", "interactive", ctl.signal);
    expect(limiter.stats().read.queued.interactive).toBe(1);
    ctl.abort(new Error("gave up"));
    await expect(waiting).rejects.toThrow("gave up");
    expect(limiter.stats().read.queued.interactive).toBe(0);
  });

  it("is shared by every client of the same base URL and key, and only by them", () => {
    const a = sharedLimiter("http://h:1/v1", "key-one-123456");
    expect(sharedLimiter("http://h:1/v1/", "key-one-123456")).toBe(a);
    expect(sharedLimiter("http://h:1/v1", "key-two-123456")).not.toBe(a);
    expect(sharedLimiter("http://h:2/v1", "key-one-123456")).not.toBe(a);
  });
});

describe("the client keeps inside its budget over HTTP", () => {
  let odd: OddServer;
  beforeAll(async () => {
    odd = await startOddServer();
  });
  afterAll(async () => {
    await odd.close();
  });

  it("sends requests beyond the budget only as tokens come, people first", async () => {
    const clock = new ManualClock();
    const limiter = new RateLimiter({ readPerMinute: 3, backgroundReadShare: 1, clock });
    odd.on("GET /tags/1", { json: { id: 1 } });
    odd.on("GET /tags/2", { json: { id: 2 } });
    odd.on("GET /tags/3", { json: { id: 3 } });
    odd.on("GET /tags/4", { json: { id: 4 } });
    const c = new MessagingClient({ baseUrl: odd.url, apiKey: "budget-key-0001", limiter });
    const b1 = c.getTag(1, { lane: "background" });
    const b2 = c.getTag(2, { lane: "background" });
    const b3 = c.getTag(3, { lane: "background" });
    await b1;
    expect(odd.count()).toBe(1);
    const person = c.getTag(4);
    await flush();
    expect(c.budget().read.queued).toEqual({ interactive: 1, background: 2 });
    expect(odd.count()).toBe(1);
    await clock.advance(31_000);
    await person;
    expect(odd.requests.map((r) => r.path)).toEqual(["/tags/1", "/tags/4"]);
    await clock.advance(62_000);
    await Promise.all([b2, b3]);
    expect(odd.requests.map((r) => r.path)).toEqual(["/tags/1", "/tags/4", "/tags/2", "/tags/3"]);
    await c.close();
  });

  it("shares one budget between two clients of the same key", async () => {
    odd.reset();
    odd.on("GET /me", { json: {} });
    const url = odd.url;
    const key = `shared-key-${Math.random()}`;
    const a = new MessagingClient({ baseUrl: url, apiKey: key, readPerMinute: 3 });
    const b = new MessagingClient({ baseUrl: url, apiKey: key, readPerMinute: 300 });
    await a.getMe();
    // b's first call finds the bucket a emptied (capacity 1 at 3 a minute) and waits.
    const ctl = new AbortController();
    const pending = b.getMe({ signal: ctl.signal });
    await eventually(() => b.budget().read.queued.interactive === 1, "b's read to queue");
    expect(a.budget().read.queued).toEqual(b.budget().read.queued);
    expect(a.budget().read.granted).toEqual({ interactive: 1, background: 0 });
    expect(odd.count()).toBe(1);
    ctl.abort(new Error("test over"));
    await expect(pending).rejects.toThrow("test over");
    expect(odd.count()).toBe(1);
    await a.close();
    await b.close();
  });
});
