// Starting Switchboard (and the bare Bolt baseline) as processes of their
// own, the way `npm start` does, for the process and ack benchmarks: spawn
// to the first 200 from GET /readyz, and the process's resident memory read
// from /proc/<pid>/status (VmHWM: its high-water mark; VmRSS: now). Only the
// app's own process is measured: no npm, no wrapper.
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** What `npm start` and `npm run sandbox` run, without npm: Node's own type stripping, no transpiler. */
export const APP_ARGS = ["--liftoff-only", "src/start.js"];
export const SANDBOX_ARGS = ["--liftoff-only", "src/sandbox/main.ts"];
export const BARE_BOLT_ARGS = ["bench/bare-bolt.ts"];

/** Extra Node arguments before the script, e.g. BENCH_NODE_ARGS="--import tsx" to measure a transpiler's cost. */
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);

export const SIGNING_SECRET = "bench-signing-secret";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** The environment of a measured process: ours, without any setting of Switchboard's that the run does not give. */
export function cleanEnv(extra: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ["PATH", "HOME", "TMPDIR", "LANG", "TZ"])
    if (process.env[key]) env[key] = process.env[key];
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/** VmHWM and VmRSS of a process in MiB; NaN where /proc is missing (not Linux). */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (key: string) =>
      Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
    return { peakMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024 };
  } catch {
    return { peakMb: Number.NaN, rssMb: Number.NaN };
  }
}

/** User + system CPU time a process has used, in ms (from /proc/<pid>/stat; NaN elsewhere). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) start at state; utime and stime are the 12th and 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

export interface Launched {
  proc: ChildProcess;
  pid: number;
  port: number;
  /** Spawn to the first 200 from /readyz, in ms. */
  readyMs: number;
  /** CPU time the process had used when it was ready: less disturbed by a busy machine than readyMs. */
  readyCpuMs: number;
  /** The last lines the process wrote to stderr and stdout (for errors). */
  output(): string;
  memory(): { peakMb: number; rssMb: number };
  /** SIGTERM, then waits for the exit (SIGKILL after 10 s). */
  stop(): Promise<void>;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Spawns `node <args>` in the repository with `env` (PORT is set to a free
 * port unless `port` is given) and resolves once GET /readyz answers 200.
 */
export async function launch(
  args: string[],
  env: NodeJS.ProcessEnv,
  opts: {
    port?: number;
    /** The variable that takes the port (default PORT). */
    portEnv?: string;
    timeoutMs?: number;
    /** Default /readyz. */
    readyPath?: string;
    readyHeaders?: Record<string, string>;
  } = {},
): Promise<Launched> {
  const port = opts.port ?? (await freePort());
  const started = performance.now();
  const proc = spawn(process.execPath, [...NODE_ARGS, ...args], {
    cwd: ROOT,
    env: { ...env, [opts.portEnv ?? "PORT"]: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let tail = "";
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  };
  proc.stdout?.on("data", keep);
  proc.stderr?.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    proc.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const url = `http://127.0.0.1:${port}${opts.readyPath ?? "/readyz"}`;
  const deadline = started + (opts.timeoutMs ?? 120_000);
  let readyMs = Number.NaN;
  let readyCpuMs = Number.NaN;
  while (!exited && performance.now() < deadline) {
    try {
      const res = await fetch(url, { headers: opts.readyHeaders, signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) {
        readyMs = performance.now() - started;
        readyCpuMs = cpuMsOf(proc.pid as number);
        break;
      }
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
  const launched: Launched = {
    proc,
    pid: proc.pid as number,
    port,
    readyMs,
    readyCpuMs,
    output: () => tail,
    memory: () => memoryOf(proc.pid as number),
    async stop() {
      if (exited) return;
      proc.kill("SIGTERM");
      const timer = setTimeout(() => proc.kill("SIGKILL"), 10_000);
      await exit;
      clearTimeout(timer);
    },
  };
  if (Number.isNaN(readyMs)) {
    await launched.stop();
    throw new Error(
      `node ${args.join(" ")} was not ready on ${url}: ${tail.trim().split("\n").slice(-3).join(" / ")}`,
    );
  }
  return launched;
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  if (!s.length) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
};

/** The p-th percentile of sorted figures (nearest rank); NaN when there are none. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const i = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, i)] as number;
}

/** p50, p99 and the slowest of latencies in ms (sorted here). */
export function latencies(ms: number[]): { p50: number; p99: number; max: number } {
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), max: ms.at(-1) ?? Number.NaN };
}

/** A fresh database on the server of DATABASE_URL; drop() removes it. */
export async function freshDatabase(
  url: string,
  name: string,
): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(url);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
