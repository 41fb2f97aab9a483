// The process as a person runs it (issue 13): `node --liftoff-only src/start.js` in HTTP mode,
// side by side with a bare Bolt app that only acks, each in its own process.
//   memory  the app process's resident set (no npm, no wrapper): peak = its
//           high-water mark (VmHWM) at ready + BENCH_PROCESS_PEAK_S (30 s),
//           steady = its RSS at ready + BENCH_PROCESS_IDLE_S (60 s), idle
//   start   spawn to the first 200 from GET /readyz; warm: median of
//           BENCH_PROCESS_STARTS (5) starts on the same DATA_DIR
// Set-ups: the embedded default (sandbox + PGlite, a fresh DATA_DIR, then a warm
// start on it); with DATABASE_URL set, also PostgreSQL with the embedded
// sandbox, and PostgreSQL with the API in another process (`npm run sandbox`,
// MESSAGING_API_URL). Timed starts run alone; the memory-only runs overlap.
// Run alone: `node bench/process.bench.ts`.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FakeSlack } from "../test/fakes/slack.ts";
import {
  APP_ARGS,
  BARE_BOLT_ARGS,
  cleanEnv,
  freshDatabase,
  type Launched,
  launch,
  median,
  SANDBOX_ARGS,
  SIGNING_SECRET,
  sleep,
} from "./processes.ts";
import type { BenchRow } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const PEAK_S = Number(process.env.BENCH_PROCESS_PEAK_S ?? 30);
const IDLE_S = Number(process.env.BENCH_PROCESS_IDLE_S ?? 60);
/** The sandbox's default read-write test key (.env.example). */
const SANDBOX_KEY = "sb_test_rw_5f2c8e1a9d";
const STARTS = Number(process.env.BENCH_PROCESS_STARTS ?? 5);

interface Observed {
  readyMs: number;
  readyCpuMs: number;
  peakMb: number;
  steadyMb: number;
}

/** Waits until ready + PEAK_S for the peak, then until ready + IDLE_S for the steady figure. */
async function observe(p: Launched, readyAt: number): Promise<Observed> {
  const until = async (s: number) => {
    const wait = readyAt + s * 1000 - performance.now();
    if (wait > 0) await sleep(wait);
  };
  await until(PEAK_S);
  const { peakMb } = p.memory();
  await until(Math.max(PEAK_S, IDLE_S));
  const { rssMb } = p.memory();
  if (p.proc.exitCode !== null) throw new Error(`the process exited early: ${p.output().slice(-500)}`);
  return { readyMs: p.readyMs, readyCpuMs: p.readyCpuMs, peakMb, steadyMb: rssMb };
}

async function launchAndObserve(args: string[], env: NodeJS.ProcessEnv): Promise<Observed> {
  const p = await launch(args, env);
  const readyAt = performance.now();
  try {
    return await observe(p, readyAt);
  } finally {
    await p.stop();
  }
}

async function timedStarts(
  args: string[],
  env: NodeJS.ProcessEnv,
  n: number,
): Promise<{ readyMs: number; cpuMs: number }> {
  const times: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    const p = await launch(args, env);
    times.push(p.readyMs);
    cpu.push(p.readyCpuMs);
    await p.stop();
  }
  return { readyMs: median(times), cpuMs: median(cpu) };
}

export async function run(): Promise<BenchRow[]> {
  const fake = await FakeSlack.start();
  const dirs: string[] = [];
  const cleanups: Array<() => Promise<void>> = [];
  const slackEnv = {
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    LOG_LEVEL: "warn",
  };
  const bareEnv = cleanEnv(slackEnv);
  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), "switchboard-process-bench-"));
    dirs.push(dir);
    return dir;
  };
  const r = (n: number) => Math.round(n);
  try {
    // 1. Timed, alone: a first start on an empty DATA_DIR, then the bare app's
    //    starts and warm starts of ours on that folder.
    const embeddedEnv = cleanEnv({ ...slackEnv, DATA_DIR: await newDataDir(), SANDBOX_PORT: "0" });
    console.error(`process: a first start, then ${STARTS} timed starts each`);
    const firstStart = await launch(APP_ARGS, embeddedEnv);
    await firstStart.stop();
    const bareStart = await timedStarts(BARE_BOLT_ARGS, bareEnv, STARTS);
    const warmStart = await timedStarts(APP_ARGS, embeddedEnv, STARTS);

    // 2. Memory only, side by side (memory does not depend on the others'
    //    CPU): a first start on another empty folder, a warm start on the
    //    first one, the bare app, and the PostgreSQL set-ups.
    console.error("process: memory of the set-ups, side by side");
    const firstEnv = cleanEnv({ ...slackEnv, DATA_DIR: await newDataDir(), SANDBOX_PORT: "0" });
    const firstRun = launchAndObserve(APP_ARGS, firstEnv);
    const runs: Array<Promise<Observed | undefined>> = [
      launchAndObserve(BARE_BOLT_ARGS, bareEnv),
      launchAndObserve(APP_ARGS, embeddedEnv),
    ];
    const databaseUrl = process.env.DATABASE_URL;
    let sandboxSteady: Observed | undefined;
    if (databaseUrl) {
      const suffix = `${process.pid}_${Date.now() % 100_000}`;
      const [appDb, apiDb, mixedDb] = await Promise.all([
        freshDatabase(databaseUrl, `sb_bench_app_${suffix}`),
        freshDatabase(databaseUrl, `sb_bench_api_${suffix}`),
        freshDatabase(databaseUrl, `sb_bench_mixed_${suffix}`),
      ]);
      cleanups.push(appDb.drop, apiDb.drop, mixedDb.drop);
      runs.push(
        launchAndObserve(APP_ARGS, cleanEnv({ ...slackEnv, DATABASE_URL: mixedDb.url, SANDBOX_PORT: "0" })),
      );
      runs.push(
        (async () => {
          const sandbox = await launch(
            SANDBOX_ARGS,
            cleanEnv({ DATABASE_URL: apiDb.url, LOG_LEVEL: "warn" }),
            { portEnv: "SANDBOX_PORT", readyPath: "/v1/me", readyHeaders: { "x-api-key": SANDBOX_KEY } },
          );
          try {
            const sandboxReady = performance.now();
            const app = await launchAndObserve(
              APP_ARGS,
              cleanEnv({
                ...slackEnv,
                DATABASE_URL: appDb.url,
                MESSAGING_API_URL: `http://127.0.0.1:${sandbox.port}/v1`,
                MESSAGING_API_KEY: SANDBOX_KEY,
              }),
            );
            sandboxSteady = {
              readyMs: sandbox.readyMs,
              readyCpuMs: sandbox.readyCpuMs,
              ...memoryFigures(sandbox, sandboxReady),
            };
            return app;
          } finally {
            await sandbox.stop();
          }
        })(),
      );
    }
    const [bare, warm, mixed, separate] = await Promise.all(runs);
    const first = { ...(await firstRun), readyMs: firstStart.readyMs };
    if (!bare || !warm) throw new Error("no figures");

    const idle = `${IDLE_S} s after ready`;
    const rows: BenchRow[] = [
      {
        name: `start-up, warm: spawn → first 200 from /readyz, median of ${STARTS} (goal ≤ 2,000 ms)`,
        figure: r(warmStart.readyMs),
        unit: "ms",
        baseline: r(bareStart.readyMs),
        peakRssMb: r(warm.peakMb),
      },
      {
        name: "start-up, warm: CPU time used to ready, median (a busy machine moves it less)",
        figure: r(warmStart.cpuMs),
        unit: "ms",
        baseline: r(bareStart.cpuMs),
        peakRssMb: r(warm.peakMb),
      },
      {
        name: "start-up, first start on an empty DATA_DIR",
        figure: r(first.readyMs),
        unit: "ms",
        baseline: r(bareStart.readyMs),
        peakRssMb: r(first.peakMb),
      },
      {
        name: `embedded default, first start: peak RSS to ready + ${PEAK_S} s (goal ≤ 500 MiB)`,
        figure: r(first.peakMb),
        unit: "MiB",
        baseline: r(bare.peakMb),
        peakRssMb: r(first.peakMb),
      },
      {
        name: `embedded default, first start: steady RSS, ${idle} (goal ≤ 300 MiB)`,
        figure: r(first.steadyMb),
        unit: "MiB",
        baseline: r(bare.steadyMb),
        peakRssMb: r(first.peakMb),
      },
      {
        name: `embedded default, warm start: peak RSS (goal ≤ 400 MiB)`,
        figure: r(warm.peakMb),
        unit: "MiB",
        baseline: r(bare.peakMb),
        peakRssMb: r(warm.peakMb),
      },
      {
        name: `embedded default, warm start: steady RSS, ${idle}`,
        figure: r(warm.steadyMb),
        unit: "MiB",
        baseline: r(bare.steadyMb),
        peakRssMb: r(warm.peakMb),
      },
    ];
    if (separate) {
      rows.push(
        {
          name: "API in another process (MESSAGING_API_URL) + PostgreSQL: peak RSS",
          figure: r(separate.peakMb),
          unit: "MiB",
          baseline: r(bare.peakMb),
          peakRssMb: r(separate.peakMb),
        },
        {
          name: `API in another process + PostgreSQL: steady RSS, ${idle} (goal ≤ 2× bare Bolt)`,
          figure: r(separate.steadyMb),
          unit: "MiB",
          baseline: r(bare.steadyMb),
          peakRssMb: r(separate.peakMb),
        },
      );
    }
    if (sandboxSteady) {
      rows.push({
        name: `the other process, \`npm run sandbox\` on PostgreSQL: steady RSS (not the app's)`,
        figure: r(sandboxSteady.steadyMb),
        unit: "MiB",
        peakRssMb: r(sandboxSteady.peakMb),
      });
    }
    if (mixed) {
      rows.push(
        {
          name: "PostgreSQL, embedded sandbox: peak RSS",
          figure: r(mixed.peakMb),
          unit: "MiB",
          baseline: r(bare.peakMb),
          peakRssMb: r(mixed.peakMb),
        },
        {
          name: `PostgreSQL, embedded sandbox: steady RSS, ${idle}`,
          figure: r(mixed.steadyMb),
          unit: "MiB",
          baseline: r(bare.steadyMb),
          peakRssMb: r(mixed.peakMb),
        },
      );
    }
    return rows;
  } finally {
    await fake.close();
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

function memoryFigures(p: Launched, _readyAt: number): { peakMb: number; steadyMb: number } {
  const { peakMb, rssMb } = p.memory();
  return { peakMb, steadyMb: rssMb };
}

runWhenMain(import.meta.url, () => run());
