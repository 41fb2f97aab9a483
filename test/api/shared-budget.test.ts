// One budget per key, whoever spends it (issue 27 §2, docs/api.md): two
// clients of one key, as two replicas would hold them (each its own pool on
// one PostgreSQL, each its own process-wide limiter), together never exceed
// the key's limit. A loopback proxy in front of the sandbox plays the service:
// it counts every request and answers 429 past the limit in its window. The
// control, today's per-process budgets, gets 429s: the proxy can tell.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import { SharedRateLimiter } from "../../src/api/shared-limit.ts";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { RateBudgetStore } from "../../src/store/rate-budget.ts";
import { openTwoPools, postgresUrl } from "../helpers/db.ts";
import { closeInOrder } from "../helpers/per-file.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";

// 20 reads per 2 s: a burst of 2, then 9 a second. The proxy refuses a 20th
// request within 1.2 s: a shared budget grants at most 2 + 9 × 1.2 ≈ 13 in
// that time (room for requests arriving late on a busy machine), two budgets
// of their own twice that.
const LIMIT = 20;
const WINDOW_MS = 2_000;
const SERVICE_WINDOW_MS = 1_200;
const EACH = 25;

describe.skipIf(!postgresUrl())("one budget per key across replicas", () => {
  let theSandbox: Sandbox;
  const sandbox = () => theSandbox;
  let pools: Awaited<ReturnType<typeof openTwoPools>>;
  let proxy: CountingProxy;
  const arrivals: number[] = [];
  let refused = 0;

  beforeAll(async () => {
    pools = await openTwoPools();
    await migrateStore(pools.first);
    // The sandbox on the same PostgreSQL (PGlite would only add a start-up here).
    theSandbox = await startSandbox({ db: pools.first });
    proxy = await startProxy(sandbox().url, {
      answer: () => {
        const now = performance.now();
        while (arrivals.length && arrivals[0]! <= now - SERVICE_WINDOW_MS) arrivals.shift();
        if (arrivals.length >= LIMIT) {
          refused += 1;
          return { status: 429, headers: { "retry-after": "1" } };
        }
        arrivals.push(now);
        return undefined;
      },
    });
  }, 120_000);

  afterAll(() => closeInOrder(proxy, theSandbox, pools));

  const client = (apiKey: string, limiter: RateLimiter) =>
    new MessagingClient({ baseUrl: proxy.url, apiKey, deadlineMs: 0, limiter });

  async function readTogether(a: MessagingClient, b: MessagingClient) {
    arrivals.length = 0;
    refused = 0;
    const seenBefore = proxy.seen.length;
    const all = await Promise.allSettled(
      [a, b].flatMap((c) => Array.from({ length: EACH }, () => c.getMe())),
    );
    await a.close();
    await b.close();
    return {
      ok: all.filter((r) => r.status === "fulfilled").length,
      sent: proxy.seen.length - seenBefore,
      refused,
    };
  }

  it("two replicas' clients of one key stay within its limit together: no 429", async () => {
    const key = sandbox().apiKey;
    const shape = { readPerMinute: LIMIT, writePerMinute: LIMIT, windowMs: WINDOW_MS };
    const one = new SharedRateLimiter(new RateBudgetStore(pools.first), "key:test-shared", shape);
    const two = new SharedRateLimiter(new RateBudgetStore(pools.second), "key:test-shared", shape);
    const result = await readTogether(client(key, one), client(key, two));
    expect(result).toEqual({ ok: 2 * EACH, sent: 2 * EACH, refused: 0 });
  }, 60_000);

  it("control: two budgets of their own (one per process, as before) exceed it", async () => {
    const key = sandbox().readKey;
    const shape = { readPerMinute: LIMIT, writePerMinute: LIMIT, windowMs: WINDOW_MS };
    const result = await readTogether(
      client(key, new RateLimiter(shape)),
      client(key, new RateLimiter(shape)),
    );
    expect(result.refused).toBeGreaterThan(0);
  }, 60_000);

  it("background work of every replica draws on one background share: people still find read tokens", async () => {
    const stores = [new RateBudgetStore(pools.first), new RateBudgetStore(pools.second)];
    // No refill to speak of during the test: the burst alone.
    await stores[0]!.define("key:test-share", [
      { bucket: "read", capacity: 10, perMs: 1e-9 },
      { bucket: "read:background", capacity: 3, perMs: 1e-9 },
    ]);
    const background = [];
    for (let i = 0; i < 8; i++)
      background.push(await stores[i % 2]!.take("key:test-share", ["read", "read:background"]));
    expect(background.filter((t) => t.granted)).toHaveLength(3);
    expect(background.at(-1)?.waitMs).toBeGreaterThan(0);
    const people = [];
    for (let i = 0; i < 8; i++) people.push(await stores[i % 2]!.take("key:test-share", ["read"]));
    expect(people.filter((t) => t.granted)).toHaveLength(7);
  });
});
