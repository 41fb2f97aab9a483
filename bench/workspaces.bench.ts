// Many workspaces (issue 19, §6): the real process (`node --liftoff-only
// src/start.js`) in many-workspace mode with 1, 100 and 1,000 workspaces
// installed and connected, each N a fresh process, all in the same run; the
// sandbox serving 1,000 organizations (one key each) in a process of its own,
// so its memory is not counted. Figures beside the 1-workspace process's:
//   memory      the process's resident set (VmRSS): at ready, after the
//               warm-up (every workspace's first command, then one command
//               per workspace that reads the API, all answered, + 2 s), and
//               the lowest of the idle window (sampled each second); after a
//               full GC (through the process's inspector, --inspect on a
//               loopback port), its resident set and its V8 heap in use (from
//               its /metrics): what the workspaces keep, not what the load
//               left to collect; the peak column is VmHWM
//   ack p99     slash-command ack latency at a steady BENCH_WS_RATE (50) a
//               second, open loop, each command from a workspace picked at
//               random (uniformly) among the N: BENCH_WS_ROUNDS (5)
//               interleaved rounds of BENCH_WS_SECONDS (8) each, the
//               processes taking turns (the order rotates), the figure the
//               median of the rounds' p99, the ratio the median of the
//               rounds' ratios to N = 1 (slack-ack's method). The cold figure
//               is the warm-up's first command of each workspace (its runtime
//               built on that request) at the same rate
//   CPU         the process's CPU time a command (/proc/<pid>/stat over a
//               round, the answer's work included): a busy machine moves it
//               far less than latency
//   idle reads  the requests each key makes to the API while nothing is sent
//               for BENCH_WS_IDLE_S (60) after the load: a counting proxy in
//               this process, between each Switchboard and the sandbox, by
//               X-API-Key; per minute and per key
// Workspaces are seeded in the store before the start (Installations.save and
// connect, sealed with the process's SWITCHBOARD_SECRET_KEY), their bot tokens
// real grants of the fake Slack (a code, then oauth.v2.access, as an install).
// BENCH_WS_COUNTS ("1,100,1000", the first is the baseline) sets the Ns;
// BENCH_WS_SNAPSHOT=<path> writes each N's heap after the warm-up's full GC to
// <path>-<N>.heapsnapshot (Chrome's DevTools, Memory tab, reads it).
// Loopback only. Run alone: `node bench/workspaces.bench.ts`.
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { Agent, createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Keyring } from "../src/platform/secrets.ts";
import { openDb } from "../src/store/db.ts";
import { Installations } from "../src/store/installations.ts";
import { migrateStore } from "../src/store/migrations.ts";
import { FakeSlack, type FakeTeam } from "../test/fakes/slack.ts";
import { SlackRequests } from "../test/fakes/slack-requests.ts";
import {
  APP_ARGS,
  cleanEnv,
  cpuMsOf,
  freePort,
  type Launched,
  launch,
  median,
  SANDBOX_ARGS,
  SIGNING_SECRET,
  sleep,
  latencies as summary,
} from "./processes.ts";
import type { BenchRow } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const COUNTS = (process.env.BENCH_WS_COUNTS ?? "1,100,1000").split(",").map(Number);
const RATE = Number(process.env.BENCH_WS_RATE ?? 50);
const SECONDS = Number(process.env.BENCH_WS_SECONDS ?? 8);
const ROUNDS = Number(process.env.BENCH_WS_ROUNDS ?? 5);
const IDLE_S = Number(process.env.BENCH_WS_IDLE_S ?? 60);
/** The sandbox's first organization's read-write key (.env.example): the one that may create organizations. */
const SANDBOX_KEY = "sb_test_rw_5f2c8e1a9d";
/** The command of the measured rounds: the ack path alone, no API call after it. */
const COMMAND = "help";
/** The warm-up's second command: one API read per workspace, so every key has been used. */
const READ_COMMAND = "tags";

interface Load {
  p50: number;
  p99: number;
  max: number;
  sent: number;
  failed: number;
}

/**
 * Sends `total` commands at RATE a second on a fixed schedule (open loop: a
 * slow answer does not slow the sender), the i-th from `teamOf(i)`.
 */
async function load(
  requests: (i: number) => SlackRequests,
  total: number,
  text: string,
): Promise<Load & { answers: string[] }> {
  const start = performance.now();
  const latencies: number[] = [];
  const answers: string[] = [];
  let failed = 0;
  const inFlight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const req = requests(i);
    inFlight.push(
      (async () => {
        const t0 = performance.now();
        try {
          const res = await req.command(text);
          if (res.status === 200) {
            latencies.push(performance.now() - t0);
            if (res.responseUrl) answers.push(res.responseUrl);
          } else failed += 1;
        } catch {
          failed += 1;
        }
      })(),
    );
  }
  await Promise.all(inFlight);
  return {
    ...summary(latencies),
    sent: total,
    failed,
    answers,
  };
}

/** A tiny proxy in front of the sandbox that counts each key's requests (reads: GET). */
async function countingProxy(target: string): Promise<{
  url: string;
  reads: Map<string, number>;
  others: Map<string, number>;
  close(): Promise<void>;
}> {
  const to = new URL(target);
  const agent = new Agent({ keepAlive: true });
  const reads = new Map<string, number>();
  const others = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const header = req.headers["x-api-key"];
    const key = (Array.isArray(header) ? header[0] : header) ?? "";
    const counts = req.method === "GET" ? reads : others;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    const upstream = request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
        agent,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    reads,
    others,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}

/** `count` - 1 more organizations on the sandbox (the first is its own), each with its key: the keys, first one first. */
async function organizationKeys(sandboxUrl: string, count: number): Promise<string[]> {
  const keys: string[] = [SANDBOX_KEY];
  let next = 1;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const res = await fetch(`${sandboxUrl}/_sandbox/organizations`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": SANDBOX_KEY },
        body: JSON.stringify({ seed: "empty" }),
      });
      if (res.status !== 201)
        throw new Error(`the sandbox made no organization: ${res.status} ${await res.text()}`);
      keys.push(((await res.json()) as { apiKey: string }).apiKey);
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
  return keys;
}

/** A bot token grant of the fake Slack, as "Add to Slack" gets it: a code, then oauth.v2.access. */
async function grant(
  fake: FakeSlack,
  team: FakeTeam,
): Promise<{ token: string; refresh: string; expiresIn: number }> {
  const res = await fetch(`${fake.apiUrl}oauth.v2.access`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      client_id: fake.clientId,
      client_secret: fake.clientSecret,
      code: fake.authorizeCode(team),
    }).toString(),
  });
  const body = (await res.json()) as {
    ok: boolean;
    access_token: string;
    refresh_token: string;
    expires_in: number;
  };
  if (!body.ok) throw new Error("the fake Slack refused the code");
  return { token: body.access_token, refresh: body.refresh_token, expiresIn: body.expires_in };
}

interface Workspace {
  team: FakeTeam;
  grant: { token: string; refresh: string; expiresIn: number };
  apiKey: string;
}

/** Seeds `DATA_DIR` with the workspaces, installed and connected, sealed with `secretKey`; closes it (the process locks it). */
async function seed(dataDir: string, secretKey: string, workspaces: Workspace[]): Promise<void> {
  const db = await openDb({ dataDir });
  try {
    await migrateStore(db);
    const installations = await Installations.open(db, Keyring.fromSettings(secretKey));
    for (const { team, grant: g, apiKey } of workspaces) {
      await installations.save({
        isEnterpriseInstall: false,
        teamId: team.teamId,
        teamName: team.teamName,
        appId: "A0SWITCH",
        installerUserId: team.installerUserId,
        bot: {
          token: g.token,
          refreshToken: g.refresh,
          expiresAt: new Date(Date.now() + g.expiresIn * 1000),
          id: team.botId,
          userId: team.botUserId,
          scopes: ["commands", "chat:write"],
        },
      });
      await installations.connect({
        teamId: team.teamId,
        apiKey,
        organizationName: "Sandbox",
        connectedBy: team.installerUserId,
      });
    }
  } finally {
    await db.close();
  }
}

/** `load` against one process, with the CPU time that process used meanwhile (less moved by a busy machine than latency). */
async function measured(
  d: Deployment,
  fake: FakeSlack,
  requests: (i: number) => SlackRequests,
  total: number,
  text: string,
): Promise<Load & { answers: string[]; cpuMs: number }> {
  const cpu0 = cpuMsOf(d.proc.pid);
  const calls0 = fake.calls.length;
  const l = await load(requests, total, text);
  await answered(fake, l.answers, 30_000);
  const cpuMs = cpuMsOf(d.proc.pid) - cpu0;
  const methods = new Map<string, number>();
  for (const c of fake.calls.slice(calls0)) methods.set(c.method, (methods.get(c.method) ?? 0) + 1);
  console.error(
    `workspaces: N=${d.n} ${total} × /sb ${text}: p99 ${r2(l.p99)} ms, ${r2(cpuMs / total)} ms CPU a command` +
      (methods.size ? `, Slack calls ${[...methods].map(([m, k]) => `${m} ${k}`).join(", ")}` : ""),
  );
  return { ...l, cpuMs };
}

/** The process's V8 heap in use, in MiB, from its /metrics (prom-client's default metrics). */
async function heapUsedMb(port: number): Promise<number> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    return Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? Number.NaN) / 1048576;
  } catch {
    return Number.NaN;
  }
}

/**
 * A full garbage collection in the process, through its inspector (the
 * process runs with --inspect on a loopback port of its own): what the heap
 * holds then is what the workspaces keep, not what the load left to collect.
 */
async function collectGarbage(d: Deployment): Promise<void> {
  await inspect(d, "HeapProfiler.collectGarbage");
  await sleep(500);
}

/** Sends one method to the process's inspector and waits for its answer; `onEvent` gets the events meanwhile. */
async function inspect(
  d: Deployment,
  method: string,
  onEvent: (msg: { method?: string; params?: { chunk?: string } }) => void = () => {},
): Promise<void> {
  const url = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(d.inspector)?.[0];
  if (!url) throw new Error(`N=${d.n}: no inspector address in the process's output`);
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  await new Promise<void>((resolve) => {
    ws.onmessage = (m) => {
      const msg = JSON.parse(String(m.data)) as { id?: number; method?: string; params?: { chunk?: string } };
      if (msg.id === 1) resolve();
      else onEvent(msg);
    };
    ws.send(JSON.stringify({ id: 1, method }));
  });
  ws.close();
}

/** A heap snapshot of the process, through its inspector, written to `file` (BENCH_WS_SNAPSHOT: what a workspace keeps). */
async function heapSnapshot(d: Deployment, file: string): Promise<void> {
  const out = createWriteStream(file);
  await inspect(d, "HeapProfiler.takeHeapSnapshot", (msg) => {
    if (msg.method === "HeapProfiler.addHeapSnapshotChunk") out.write(msg.params?.chunk ?? "");
  });
  await new Promise((r) => out.end(r));
}

interface Deployment {
  /** The process's first output, where the inspector says its address. */
  inspector: string;
  n: number;
  proc: Launched;
  proxy: Awaited<ReturnType<typeof countingProxy>>;
  requests: SlackRequests[];
  atReadyMb: number;
  cold?: Load & { answers: string[]; cpuMs: number };
  warmMb?: number;
  /** After a full GC. */
  warmGcMb?: number;
  warmGcHeapMb?: number;
  endGcMb?: number;
  endGcHeapMb?: number;
  rounds: Array<Load & { answers: string[]; cpuMs: number }>;
  endMb?: number;
  idleMinMb?: number;
  idleReadsPerKeyMin?: number;
  idleMaxPerKeyMin?: number;
}

/** A deterministic uniform pick (mulberry32), so runs send the same spread. */
function randomTeams(seedValue: number): (n: number) => number {
  let a = seedValue >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Waits until every answer the fake Slack is owed has come (the work after the acks), at most `ms`. */
async function answered(fake: FakeSlack, urls: string[], ms = 30_000): Promise<number> {
  const deadline = performance.now() + ms;
  const got = () => {
    const seen = new Set(fake.responses.map((r) => r.id));
    return urls.filter((u) => seen.has(u.split("/").pop() as string)).length;
  };
  while (performance.now() < deadline && got() < urls.length) await sleep(100);
  return got();
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;

export async function run(): Promise<BenchRow[]> {
  const maxN = Math.max(...COUNTS);
  const fake = await FakeSlack.start();
  const dirs: string[] = [];
  const tempDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchboard-ws-bench-"));
    dirs.push(dir);
    return dir;
  };
  const deployments: Deployment[] = [];
  let sandbox: Launched | undefined;
  try {
    // 1. The sandbox in its own process, with maxN organizations (one key each).
    const t0 = performance.now();
    sandbox = await launch(SANDBOX_ARGS, cleanEnv({ DATA_DIR: await tempDir(), LOG_LEVEL: "warn" }), {
      portEnv: "SANDBOX_PORT",
      readyPath: "/v1/me",
      readyHeaders: { "x-api-key": SANDBOX_KEY },
    });
    const sandboxUrl = `http://127.0.0.1:${sandbox.port}`;
    const keys = await organizationKeys(sandboxUrl, maxN);
    console.error(
      `workspaces: sandbox with ${keys.length} organizations in ${Math.round(performance.now() - t0)} ms`,
    );

    // 2. The workspaces: teams of the fake Slack, each with a bot token granted as an install would get it.
    const workspaces: Workspace[] = [];
    for (let i = 0; i < maxN; i++) {
      const team = fake.addTeam({ teamId: `TW${String(i).padStart(5, "0")}`, teamName: `Workspace ${i}` });
      workspaces.push({ team, grant: await grant(fake, team), apiKey: keys[i] as string });
    }

    // 3. One process per N, each on its own seeded DATA_DIR and its own counting proxy to the sandbox.
    const secretKey = randomBytes(32).toString("base64");
    for (const n of COUNTS) {
      const dataDir = await tempDir();
      const t1 = performance.now();
      await seed(dataDir, secretKey, workspaces.slice(0, n));
      const proxy = await countingProxy(sandboxUrl);
      const port = await freePort();
      const proc = await launch(
        ["--inspect=127.0.0.1:0", ...APP_ARGS],
        cleanEnv({
          SLACK_CLIENT_ID: fake.clientId,
          SLACK_CLIENT_SECRET: fake.clientSecret,
          SLACK_SIGNING_SECRET: SIGNING_SECRET,
          SLACK_STATE_SECRET: "a-state-secret-for-the-bench",
          SWITCHBOARD_SECRET_KEY: secretKey,
          SLACK_API_URL: fake.apiUrl,
          MESSAGING_API_URL: `${proxy.url}/v1`,
          PUBLIC_URL: `http://127.0.0.1:${port}`,
          DATA_DIR: dataDir,
          LOG_LEVEL: "warn",
        }),
        { port },
      );
      const base = new SlackRequests(`http://127.0.0.1:${port}/slack/events`, SIGNING_SECRET, fake);
      const requests = workspaces.slice(0, n).map((w) => base.asTeam(w.team.teamId, w.team.botUserId));
      deployments.push({
        n,
        proc,
        inspector: proc.output(),
        proxy,
        requests,
        atReadyMb: proc.memory().rssMb,
        rounds: [],
      });
      console.error(
        `workspaces: N=${n} seeded and ready in ${Math.round(performance.now() - t1)} ms (ready ${Math.round(proc.readyMs)} ms)`,
      );
    }

    // 4. Warm-up, one process at a time: every workspace's first command (its
    //    runtime built on that request: the cold figure), then one command
    //    each that reads the API, all answered.
    for (const d of deployments) {
      d.cold = await measured(d, fake, (i) => d.requests[i] as SlackRequests, d.n, COMMAND);
      const reading = await measured(d, fake, (i) => d.requests[i] as SlackRequests, d.n, READ_COMMAND);
      const owed = [...d.cold.answers, ...reading.answers];
      const got = await answered(fake, owed);
      if (got < owed.length)
        console.error(`workspaces: N=${d.n}: ${owed.length - got} warm-up commands not answered`);
      await sleep(2000);
      d.warmMb = d.proc.memory().rssMb;
      await collectGarbage(d);
      d.warmGcMb = d.proc.memory().rssMb;
      d.warmGcHeapMb = await heapUsedMb(d.proc.port);
      if (process.env.BENCH_WS_SNAPSHOT)
        await heapSnapshot(d, `${process.env.BENCH_WS_SNAPSHOT}-${d.n}.heapsnapshot`);
      console.error(
        `workspaces: N=${d.n} warm: ${r1(d.warmMb)} MiB, cold ack p99 ${r2(d.cold.p99)} ms, ` +
          `reads ${[...d.proxy.reads.values()].reduce((a, b) => a + b, 0)}`,
      );
    }

    // 5. The load: interleaved rounds, each process in turn, the order rotating.
    const total = Math.round(RATE * SECONDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (let k = 0; k < deployments.length; k++) {
        const d = deployments[(round + k) % deployments.length] as Deployment;
        const pick = randomTeams(round * 7919 + d.n);
        const picks = Array.from({ length: total }, () => pick(d.n));
        d.rounds.push(
          await measured(d, fake, (i) => d.requests[picks[i] as number] as SlackRequests, total, COMMAND),
        );
      }
      console.error(
        `workspaces: round ${round + 1}: p99 ${deployments.map((d) => `N=${d.n} ${r2(d.rounds.at(-1)!.p99)} ms`).join(", ")}`,
      );
    }

    // 6. Idle: nothing sent; each key's requests counted by its process's proxy.
    for (const d of deployments) {
      d.proxy.reads.clear();
      d.proxy.others.clear();
    }
    console.error(`workspaces: idle for ${IDLE_S} s`);
    // The lowest resident set over the window, sampled each second: less moved by when V8 happens to collect.
    const idleEnd = performance.now() + IDLE_S * 1000;
    while (performance.now() < idleEnd) {
      for (const d of deployments)
        d.idleMinMb = Math.min(d.idleMinMb ?? Number.POSITIVE_INFINITY, d.proc.memory().rssMb);
      await sleep(1000);
    }
    for (const d of deployments) {
      const perKey = workspaces.slice(0, d.n).map((w) => (d.proxy.reads.get(w.apiKey) ?? 0) / (IDLE_S / 60));
      d.idleReadsPerKeyMin = perKey.reduce((a, b) => a + b, 0) / d.n;
      d.idleMaxPerKeyMin = Math.max(...perKey);
      d.endMb = d.proc.memory().rssMb;
      await collectGarbage(d);
      d.endGcMb = d.proc.memory().rssMb;
      d.endGcHeapMb = await heapUsedMb(d.proc.port);
      if (d.proc.proc.exitCode !== null) throw new Error(`N=${d.n}: the process exited: ${d.proc.output()}`);
    }

    // 7. Rows: each N beside the first (N = 1).
    const [one, ...rest] = deployments as [Deployment, ...Deployment[]];
    const p99 = (d: Deployment) => median(d.rounds.map((l) => l.p99));
    const failed = (d: Deployment) => d.rounds.reduce((a, l) => a + l.failed, 0) + (d.cold?.failed ?? 0);
    const rows: BenchRow[] = [];
    const label = `${RATE}/s spread uniformly over the workspaces, ${ROUNDS} interleaved rounds of ${SECONDS} s`;
    for (const d of rest) {
      const peakRssMb = r1(d.proc.memory().peakMb);
      const ws = `${d.n.toLocaleString("en-US")} workspaces`;
      rows.push(
        {
          name: `${ws}: resident memory at ready (installed and connected, no request yet)`,
          figure: r1(d.atReadyMb),
          unit: "MiB",
          baseline: r1(one.atReadyMb),
          peakRssMb,
        },
        {
          name: `${ws}: resident memory after warm-up (each workspace: /sb ${COMMAND}, then /sb ${READ_COMMAND}) (goal < 2× one)`,
          figure: r1(d.warmMb!),
          unit: "MiB",
          baseline: r1(one.warmMb!),
          peakRssMb,
        },
        {
          name: `${ws}: resident memory while idle after the load, lowest of ${IDLE_S} s sampled each second (at the end: ${r1(d.endMb!)}, one: ${r1(one.endMb!)})`,
          figure: r1(d.idleMinMb!),
          unit: "MiB",
          baseline: r1(one.idleMinMb!),
          peakRssMb,
        },
        {
          name: `${ws}: resident memory after warm-up and a full GC (through the inspector)`,
          figure: r1(d.warmGcMb!),
          unit: "MiB",
          baseline: r1(one.warmGcMb!),
          peakRssMb,
        },
        {
          name: `${ws}: V8 heap in use after warm-up and a full GC: what the workspaces keep`,
          figure: r1(d.warmGcHeapMb!),
          unit: "MiB",
          baseline: r1(one.warmGcHeapMb!),
          peakRssMb,
        },
        {
          name: `${ws}: after the load and the idle window, a full GC: resident memory ${r1(d.endGcMb!)} MiB (one: ${r1(one.endGcMb!)}); V8 heap in use`,
          figure: r1(d.endGcHeapMb!),
          unit: "MiB",
          baseline: r1(one.endGcHeapMb!),
          peakRssMb,
        },
        {
          name: `${ws}: slash ack p99, cold: each workspace's first command (its runtime built), ${RATE}/s (baseline: one workspace after warm-up)`,
          figure: r2(d.cold!.p99),
          unit: "ms",
          baseline: r2(p99(one)),
          peakRssMb,
        },
        {
          name: `${ws}: slash ack p50 after warm-up (${label}, median)`,
          figure: r2(median(d.rounds.map((l) => l.p50))),
          unit: "ms",
          baseline: r2(median(one.rounds.map((l) => l.p50))),
          peakRssMb,
        },
        {
          name: `${ws}: slash ack p99 after warm-up (${label}, median)`,
          figure: r2(p99(d)),
          unit: "ms",
          baseline: r2(p99(one)),
          peakRssMb,
        },
        {
          name: `${ws}: the process's CPU time a command after warm-up (/sb ${COMMAND}, ack and answer), median of the rounds`,
          figure: r2(median(d.rounds.map((l) => l.cpuMs / l.sent))),
          unit: "ms",
          baseline: r2(median(one.rounds.map((l) => l.cpuMs / l.sent))),
          peakRssMb,
        },
        {
          name: `${ws}: the process's CPU time a command, cold: each workspace's first (baseline: one workspace after warm-up)`,
          figure: r2(d.cold!.cpuMs / d.cold!.sent),
          unit: "ms",
          baseline: r2(median(one.rounds.map((l) => l.cpuMs / l.sent))),
          peakRssMb,
        },
        {
          name: `${ws}: slash ack p99 ratio to one workspace, median of the rounds' ratios (goal < 1.3)`,
          figure: r2(median(d.rounds.map((l, i) => l.p99 / (one.rounds[i] as Load).p99))),
          unit: "×",
          baseline: 1,
          peakRssMb,
        },
        {
          name: `${ws}: commands not acked with 200 (warm-up and rounds)`,
          figure: failed(d),
          unit: "requests",
          baseline: failed(one),
          peakRssMb,
        },
        {
          name: `${ws}: idle API reads a minute per key, mean over the keys (max ${r2(d.idleMaxPerKeyMin!)}), ${IDLE_S} s after the load (goal ≤ one)`,
          figure: r2(d.idleReadsPerKeyMin!),
          unit: "reads/min",
          baseline: r2(one.idleReadsPerKeyMin!),
          peakRssMb,
        },
      );
    }
    return rows;
  } finally {
    for (const d of deployments) {
      await d.proc.stop();
      await d.proxy.close();
    }
    await sandbox?.stop();
    await fake.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, () => run());
