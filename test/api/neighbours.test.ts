// One customer's trouble stays theirs: two keys behind the same API address,
// key A's calls hang, and key B's call still reaches the server and is
// answered while every one of A's is pending. No timing: B's answer, then A's
// calls counted as still unsettled.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { TimeoutError } from "../../src/api/errors.ts";
import { KEY_CONNECTIONS, MAX_POOLS, openPoolCount } from "../../src/api/http.ts";
import { eventually } from "../helpers/eventually.ts";
import { type OddServer, startOddServer } from "../helpers/odd-server.ts";
import { rejection } from "../helpers/rejection.ts";

const KEY_A = "neighbours_key_a_7f3e";
const KEY_B = "neighbours_key_b_91c2";

let odd: OddServer;
beforeAll(async () => {
  odd = await startOddServer();
});
afterAll(async () => {
  await odd?.close();
});

const clientOf = (apiKey: string, extra: Partial<ConstructorParameters<typeof MessagingClient>[0]> = {}) =>
  new MessagingClient({
    baseUrl: odd.url,
    apiKey,
    random: () => 0,
    readPerMinute: 60_000,
    writePerMinute: 60_000,
    backgroundReadShare: 1,
    ...extra,
  });

describe("keys behind one API address", () => {
  it("B is answered while 40 of A's calls hang", async () => {
    odd.on("GET /tags", (req) =>
      req.headers["x-api-key"] === KEY_A ? { hang: true } : { json: [{ id: 1, name: "vip" }] },
    );
    // A's calls wait as long as the test runs: no retry, no deadline of their own.
    const a = clientOf(KEY_A, { timeoutMs: 120_000, deadlineMs: 0, maxRetries: 0 });
    // B's call has a deadline: behind A's calls in a shared queue it would fail, not hang the test.
    const b = clientOf(KEY_B, { timeoutMs: 5_000, deadlineMs: 5_000, maxRetries: 0 });
    let settled = 0;
    const done = () => {
      settled += 1;
    };
    const calls = Array.from({ length: 40 }, () => a.listTags({ lane: "background" }).then(done, done));
    try {
      // A's calls have taken every connection they may before B asks.
      await eventually(() => odd.count("GET /tags") >= KEY_CONNECTIONS, "A's calls reaching the server");
      await eventually(() => a.budget().read.queued.background === 0, "A's calls past the limiter");

      const page = await b.listTags();
      expect(page.items.map((t) => t.name)).toEqual(["vip"]);
      expect(odd.requests.filter((r) => r.headers["x-api-key"] === KEY_B)).toHaveLength(1);
      // B's answer came while every one of A's calls was still waiting.
      expect(settled).toBe(0);
    } finally {
      await odd.close();
      odd = await startOddServer();
      await Promise.all(calls);
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("a call queued behind its own key's hanging calls still ends at its deadline", async () => {
    odd.on("GET /tags", { hang: true });
    const a = clientOf(KEY_A, { timeoutMs: 120_000, deadlineMs: 0, maxRetries: 0 });
    const hanging = Array.from({ length: KEY_CONNECTIONS }, () =>
      a.listTags({ lane: "background" }).catch(() => {}),
    );
    try {
      await eventually(() => odd.count("GET /tags") >= KEY_CONNECTIONS, "A's connections all taken");
      // Another client of the same key: the same pool, every connection taken.
      const person = clientOf(KEY_A, { timeoutMs: 5_000, deadlineMs: 300, maxRetries: 0 });
      const err = (await rejection(person.listTags())) as TimeoutError;
      await person.close();
      expect(err).toBeInstanceOf(TimeoutError);
      expect(odd.count("GET /tags")).toBe(KEY_CONNECTIONS);
    } finally {
      await odd.close();
      odd = await startOddServer();
      await Promise.all(hanging);
      await a.close();
    }
  });

  it("keeps at most MAX_POOLS pools open; a key whose pool was closed opens one again", async () => {
    odd.on("GET /tags", { json: [] });
    const clients = Array.from({ length: MAX_POOLS + 2 }, (_, i) =>
      clientOf(`neighbours_many_${String(i).padStart(4, "0")}`, { readPerMinute: 600 }),
    );
    try {
      for (const c of clients) await c.listTags();
      expect(openPoolCount()).toBeLessThanOrEqual(MAX_POOLS);
      // The first key's pool was the least recently used: closed, and opened again now.
      await clients[0]!.listTags();
      expect(odd.count("GET /tags")).toBe(MAX_POOLS + 3);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    expect(openPoolCount()).toBe(0);
  });
});
