// Neighbours: two workspaces' keys behind one API address. Key A's calls hang
// (the server never answers them); key B's answers are timed, p50 and p99,
// beside B alone in the same run (the baseline). Before per-key pools, B
// queued behind A's calls in one pool of 32 connections per origin: p50
// 11.8 s; that design is measured too, with A's attempts timing out after 2 s
// so the run stays short. A few seconds in all: a loopback server in this process.
//
//   npm run bench -- neighbours
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { MessagingClient } from "../src/api/client.ts";
import { UndiciPool, undiciRequest } from "../src/api/http.ts";
import { percentile } from "./processes.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const KEY_A = "bench_neighbour_a_5d1f";
const KEY_B = "bench_neighbour_b_0c7e";
const HANGING = 40;
const REQUESTS = 300;
const NO_LIMIT = 1_000_000_000;
/** A's attempt timeout in the former design's run: B waits about this long, instead of 15 s. */
const FORMER_TIMEOUT_MS = 2_000;
const FORMER_REQUESTS = 20;

async function timeB(b: MessagingClient): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const t = performance.now();
    await b.listTags();
    ms.push(performance.now() - t);
  }
  ms.sort((x, y) => x - y);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

/**
 * The former design for comparison, bounded: one pool of 32 connections for
 * the origin, shared by both keys (bare undici, as src/api/http.ts had it), A's
 * attempts timing out after FORMER_TIMEOUT_MS rather than 15 s.
 */
async function formerDesign(url: string, hanging: () => number): Promise<{ p50: number; p99: number }> {
  const base = new URL(url);
  const pool = new UndiciPool(base.origin, { connections: 32, keepAliveTimeout: 4_000 });
  const ask = (apiKey: string, timeoutMs: number) =>
    undiciRequest
      .call(pool, {
        method: "GET",
        path: `${base.pathname}/tags`,
        headers: { "x-api-key": apiKey },
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
      .then((r) => r.body.text());
  const before = hanging();
  const pending = Array.from({ length: HANGING }, () => ask(KEY_A, FORMER_TIMEOUT_MS).catch(() => {}));
  while (hanging() - before < 32) await new Promise((r) => setTimeout(r, 5));
  const ms: number[] = [];
  for (let i = 0; i < FORMER_REQUESTS; i++) {
    const t = performance.now();
    await ask(KEY_B, 15_000);
    ms.push(performance.now() - t);
  }
  // A's calls still queued are ended with the pool, not waited out.
  await pool.destroy();
  await Promise.all(pending);
  ms.sort((x, y) => x - y);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

export async function run(): Promise<BenchRow[]> {
  let hangingNow = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      if (req.headers["x-api-key"] === KEY_A) {
        hangingNow += 1;
        return; // never answered
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end('[{"id":1,"name":"vip"}]');
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const options = { baseUrl: url, readPerMinute: NO_LIMIT, writePerMinute: NO_LIMIT, backgroundReadShare: 1 };
  const a = new MessagingClient({
    ...options,
    apiKey: KEY_A,
    timeoutMs: 60_000,
    deadlineMs: 0,
    maxRetries: 0,
  });
  const b = new MessagingClient({ ...options, apiKey: KEY_B, timeoutMs: 15_000, maxRetries: 0 });
  try {
    for (let i = 0; i < 100; i++) await b.listTags(); // warm-up
    const alone = await timeB(b);
    const former = await formerDesign(url, () => hangingNow);
    hangingNow = 0;
    const pending = Array.from({ length: HANGING }, () => a.listTags({ lane: "background" }).catch(() => {}));
    while (hangingNow === 0) await new Promise((r) => setTimeout(r, 5));
    const beside = await timeB(b);
    console.error(`A's calls at the server while B was timed: ${hangingNow} of ${HANGING}`);
    // No more connections, then none open: A's calls fail at once, queued ones included.
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await Promise.all(pending);
    await closed;
    const peak = peakRssMb();
    const r2 = (n: number) => Math.round(n * 100) / 100;
    return [
      {
        name: `key B's answer p50 with ${HANGING} of key A's calls hanging (baseline: B alone), ${REQUESTS} sequential`,
        figure: r2(beside.p50),
        unit: "ms",
        baseline: r2(alone.p50),
        peakRssMb: peak,
      },
      {
        name: `key B's answer p99 with ${HANGING} of key A's calls hanging (baseline: B alone)`,
        figure: r2(beside.p99),
        unit: "ms",
        baseline: r2(alone.p99),
        peakRssMb: peak,
      },
      {
        name: `the former design, one pool of 32 per origin, A's attempts timing out after ${FORMER_TIMEOUT_MS / 1000} s (15 s by default): B's p99 of ${FORMER_REQUESTS} (baseline: B alone)`,
        figure: r2(former.p99),
        unit: "ms",
        baseline: r2(alone.p99),
        peakRssMb: peak,
      },
    ];
  } finally {
    if (server.listening) server.close();
    server.closeAllConnections();
    await Promise.all([a.close(), b.close()]);
  }
}

runWhenMain(import.meta.url, () => run());
