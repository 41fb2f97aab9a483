// Client overhead benchmark (issue 2, section 6): GET /tags against the
// sandbox on loopback, through MessagingClient and through a bare undici
// Pool.request with the X-API-Key header and a JSON parse of the answer (what
// any caller would do). The sandbox runs in its own child process.
//
// Times come from one child that interleaves the two request by request (the
// order swapped every pair), so load from elsewhere on this shared machine
// falls on both alike; the overhead is the median of the paired differences.
// Peak memory comes from two more children, one per way of asking, doing the
// same requests alone, so each maxRSS is its own.
//
//   node bench/api.bench.ts [requests]   prints the rows
//   run() from bench/run.ts                 returns them
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type BenchRow, runBenchChild } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const CONCURRENCY = 8;
const BLOCKS = 6;
const WARMUP = 300;
const VALIDATIONS = 20_000;
// Far above any loop here: the limiters must not pace the requests, only their overhead counts.
const NO_LIMIT = 1_000_000_000;

const peakRssMb = () => process.resourceUsage().maxRSS / 1024;

// ---------------------------------------------------------------- children

/** Starts the sandbox, prints its URL and key, and on stdin's end prints its own peak memory. */
async function serve(): Promise<void> {
  const { startSandbox } = await import("../src/sandbox/index.ts");
  const sandbox = await startSandbox({ readLimit: NO_LIMIT, writeLimit: NO_LIMIT, campaignTickMs: 0 });
  process.stdout.write(`${JSON.stringify({ url: sandbox.url, apiKey: sandbox.apiKey })}\n`);
  process.stdin.resume();
  await new Promise((resolve) => process.stdin.once("end", resolve));
  await sandbox.close();
  process.stdout.write(`${JSON.stringify({ peakRssMb: peakRssMb() })}\n`);
}

type Ask = () => Promise<unknown>;

async function bareAsker(url: string, apiKey: string): Promise<{ ask: Ask; close: () => Promise<void> }> {
  const { Pool } = await import("undici");
  const base = new URL(url);
  // The same pool settings as the client's (src/api/http.ts).
  const pool = new Pool(base.origin, { connections: 32, keepAliveTimeout: 4_000 });
  const path = `${base.pathname}/tags`;
  const headers = { "x-api-key": apiKey, accept: "application/json" };
  return {
    ask: async () => {
      const res = await pool.request({ method: "GET", path, headers });
      const body = await res.body.json();
      if (res.statusCode !== 200) throw new Error(`GET /tags answered ${res.statusCode}`);
      return body;
    },
    close: () => pool.close(),
  };
}

async function clientAsker(url: string, apiKey: string): Promise<{ ask: Ask; close: () => Promise<void> }> {
  const { MessagingClient } = await import("../src/api/client.ts");
  const client = new MessagingClient({
    baseUrl: url,
    apiKey,
    readPerMinute: NO_LIMIT,
    writePerMinute: NO_LIMIT,
  });
  return { ask: () => client.listTags(), close: () => client.close() };
}

/** `n` requests in all with CONCURRENCY in flight; resolves with the time taken in ms. */
async function concurrently(ask: Ask, n: number): Promise<number> {
  let left = n;
  const worker = async () => {
    while (left-- > 0) await ask();
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return performance.now() - started;
}

interface Timing {
  bareUs: number[];
  clientUs: number[];
  bareConcurrentMs: number;
  clientConcurrentMs: number;
  templateParseUs: number;
  contactParseUs: number;
}

async function timing(url: string, apiKey: string, n: number): Promise<Timing> {
  const bare = await bareAsker(url, apiKey);
  const client = await clientAsker(url, apiKey);
  const time = async (ask: Ask) => {
    const t = performance.now();
    await ask();
    return (performance.now() - t) * 1000;
  };
  for (let i = 0; i < WARMUP; i++) {
    await bare.ask();
    await client.ask();
  }
  const bareUs: number[] = [];
  const clientUs: number[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      bareUs.push(await time(bare.ask));
      clientUs.push(await time(client.ask));
    } else {
      clientUs.push(await time(client.ask));
      bareUs.push(await time(bare.ask));
    }
  }
  // Blocks in turn, for the same reason.
  let bareConcurrentMs = 0;
  let clientConcurrentMs = 0;
  for (let b = 0; b < BLOCKS; b++) {
    bareConcurrentMs += await concurrently(bare.ask, n / BLOCKS);
    clientConcurrentMs += await concurrently(client.ask, n / BLOCKS);
  }
  await bare.close();
  await client.close();

  const { parseTemplate, parseContact } = await schemaChecks();
  return {
    bareUs,
    clientUs,
    bareConcurrentMs,
    clientConcurrentMs,
    templateParseUs: perCallUs(parseTemplate),
    contactParseUs: perCallUs(parseContact),
  };
}

/** What the client checks before a write leaves: the shared request schemas. */
async function schemaChecks(): Promise<{ parseTemplate: () => unknown; parseContact: () => unknown }> {
  const { createContactSchema, createTemplateSchema } = await import("../src/api/schemas.ts");
  const template = {
    integrationId: 1,
    name: "Order Shipped Notice",
    language: "en",
    category: "UTILITY",
    bodyText: "Hi {{first_name}}, order {{order}} is on its way.",
    bodyExamples: { first_name: "Ana", order: "A-1042" },
    footerText: "Acme",
    buttons: [{ type: "URL", text: "Track", url: "https://example.com/track" }],
  };
  const contact = {
    phone: "+1 212 555 0142",
    first_name: "Ana",
    last_name: "Silva",
    email: "ana@example.com",
  };
  return {
    parseTemplate: () => createTemplateSchema.parse(template),
    parseContact: () => createContactSchema.parse(contact),
  };
}

function perCallUs(fn: () => unknown): number {
  for (let i = 0; i < 1000; i++) fn();
  const t = performance.now();
  for (let i = 0; i < VALIDATIONS; i++) fn();
  return ((performance.now() - t) * 1000) / VALIDATIONS;
}

/** The same requests by one way of asking alone, for its peak memory. */
interface Memory {
  peakRssMb: number;
  /** After the schema checks too (client only). */
  checksPeakRssMb?: number;
}

async function memory(mode: string, url: string, apiKey: string, n: number): Promise<Memory> {
  const { ask, close } = mode === "bare" ? await bareAsker(url, apiKey) : await clientAsker(url, apiKey);
  for (let i = 0; i < WARMUP + n; i++) await ask();
  await concurrently(ask, n);
  await close();
  const requestsPeak = peakRssMb();
  if (mode === "bare") return { peakRssMb: requestsPeak };
  const { parseTemplate, parseContact } = await schemaChecks();
  perCallUs(parseTemplate);
  perCallUs(parseContact);
  return { peakRssMb: requestsPeak, checksPeakRssMb: peakRssMb() };
}

// ---------------------------------------------------------------- parent side

const script = fileURLToPath(import.meta.url);

function lastJson<T>(text: string): T {
  return JSON.parse(text.trim().split("\n").pop()!) as T;
}

function runChild<T>(args: string[]): Promise<T> {
  return runBenchChild<T>(script, args);
}

type Server = ChildProcessByStdio<Writable, Readable, null>;

function startServer(): Promise<{ proc: Server; url: string; apiKey: string; lines: () => string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, "--serve"], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    let out = "";
    let started = false;
    proc.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      if (!started && out.includes("\n")) {
        started = true;
        const { url, apiKey } = JSON.parse(out.split("\n")[0]!) as { url: string; apiKey: string };
        resolve({ proc, url, apiKey, lines: () => out });
      }
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (!started) reject(new Error(`sandbox child exited with ${code} before listening`));
    });
  });
}

function stopServer(server: Awaited<ReturnType<typeof startServer>>): Promise<number> {
  return new Promise((resolve) => {
    server.proc.on("close", () => {
      try {
        resolve(lastJson<{ peakRssMb: number }>(server.lines()).peakRssMb);
      } catch {
        resolve(Number.NaN);
      }
    });
    server.proc.stdin.end();
  });
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const percentile = (xs: number[], p: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const round1 = (n: number) => Math.round(n * 10) / 10;

export async function run(requests = 3_000): Promise<BenchRow[]> {
  const n = Math.ceil(requests / BLOCKS) * BLOCKS;
  const server = await startServer();
  let t: Timing;
  let bareMem: Memory;
  let clientMem: Memory;
  let serverPeak: number;
  try {
    const args = [server.url, server.apiKey, String(n)];
    t = await runChild<Timing>(["--timing", ...args]);
    bareMem = await runChild<Memory>(["--memory", "bare", ...args]);
    clientMem = await runChild<Memory>(["--memory", "client", ...args]);
  } finally {
    serverPeak = await stopServer(server);
  }

  const count = n.toLocaleString("en-US");
  const barePeak = round1(bareMem.peakRssMb);
  const clientPeak = round1(clientMem.peakRssMb);
  const checksPeak = round1(clientMem.checksPeakRssMb!);
  const paired = t.clientUs.map((c, i) => c - t.bareUs[i]!);
  const bareP50 = round1(percentile(t.bareUs, 50));
  const perSecond = (ms: number) => Math.round(n / (ms / 1000));
  return [
    {
      name: `GET /tags, ${count} sequential, interleaved with the baseline, mean: MessagingClient, its limiter set to ${NO_LIMIT.toLocaleString("en-US")}/min so only overhead counts (baseline: bare undici Pool.request + JSON parse, peak RSS ${barePeak} MB; sandbox in its own process, peak RSS ${round1(serverPeak)} MB)`,
      figure: round1(mean(t.clientUs)),
      unit: "µs",
      baseline: round1(mean(t.bareUs)),
      peakRssMb: clientPeak,
    },
    ...[50, 99].map((p) => ({
      name: `GET /tags sequential, p${p}: MessagingClient (baseline: bare undici)`,
      figure: round1(percentile(t.clientUs, p)),
      unit: "µs",
      baseline: round1(percentile(t.bareUs, p)),
      peakRssMb: clientPeak,
    })),
    {
      name: "client overhead per request: median of paired differences, MessagingClient − bare undici (baseline: the bare request's p50)",
      figure: round1(percentile(paired, 50)),
      unit: "µs",
      baseline: bareP50,
      peakRssMb: clientPeak,
    },
    {
      name: `GET /tags, ${CONCURRENCY} in flight, ${count} requests in ${BLOCKS} blocks taking turns: MessagingClient (baseline: bare undici)`,
      figure: perSecond(t.clientConcurrentMs),
      unit: "req/s",
      baseline: perSecond(t.bareConcurrentMs),
      peakRssMb: clientPeak,
    },
    {
      name: "client-side check of a createTemplate input: createTemplateSchema.parse (baseline: one bare GET /tags, p50)",
      figure: round1(t.templateParseUs),
      unit: "µs",
      baseline: bareP50,
      peakRssMb: checksPeak,
    },
    {
      name: "client-side check of a createContact input: createContactSchema.parse, phone by libphonenumber (baseline: one bare GET /tags, p50)",
      figure: round1(t.contactParseUs),
      unit: "µs",
      baseline: bareP50,
      peakRssMb: checksPeak,
    },
  ];
}

runWhenMain(import.meta.url, async ([flag, ...rest]) => {
  if (flag === "--serve") return serve();
  if (flag === "--timing") {
    const [url, apiKey, n] = rest;
    process.stdout.write(`${JSON.stringify(await timing(url!, apiKey!, Number(n)))}\n`);
  } else if (flag === "--memory") {
    const [mode, url, apiKey, n] = rest;
    process.stdout.write(`${JSON.stringify(await memory(mode!, url!, apiKey!, Number(n)))}\n`);
  } else return run(flag ? Number(flag) : undefined);
});
