// The shell's start (issue 38 §1): `npm start` with no Slack tokens, as a person
// runs it (`node --liftoff-only src/start.js`, the embedded sandbox and PGlite),
// given the line `exit` on a pipe: spawn to exit (warm: the same DATA_DIR, the
// compile cache filled), its peak resident memory, CPU time, and the modules it
// loads (of src/, of src/slack/), read in the process by bench/shell-probe.mjs.
// Median of BENCH_SHELL_STARTS (7) starts after one first start.
//
// Baseline, in the same run: BENCH_SHELL_BASELINE=<another checkout> (an older
// commit, with node_modules) is measured the same way, start for start
// interleaved, so load from elsewhere falls on both alike; without it, Node's own
// start with the same probe (`node -e 0`).
//   node bench/shell.bench.ts      npm run bench -- shell
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { APP_ARGS, cleanEnv, median, ROOT } from "./processes.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { runWhenMain } from "./setup.ts";

const STARTS = Number(process.env.BENCH_SHELL_STARTS ?? 7);
const PROBE = join(ROOT, "bench/shell-probe.mjs");

interface Start {
  wallMs: number;
  peakMb: number;
  cpuMs: number;
  modules: number;
  srcModules: number;
  slackModules: number;
}

/** One start of `args` in `cwd` with `exit` on its input, to its exit. */
async function start(cwd: string, args: string[], dataDir: string): Promise<Start> {
  const out = join(dataDir, "probe.json");
  const began = performance.now();
  const proc = spawn(process.execPath, ["--import", PROBE, ...args], {
    cwd,
    env: cleanEnv({ DATA_DIR: dataDir, SHELL_PROBE_OUT: out }),
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  proc.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  proc.stdin.end("exit\n");
  const code = await new Promise<number | null>((resolve) => proc.on("close", resolve));
  const wallMs = performance.now() - began;
  if (code !== 0) throw new Error(`${args.join(" ")} in ${cwd} exited with ${code}: ${stderr.slice(-500)}`);
  return { wallMs, ...(JSON.parse(await readFile(out, "utf8")) as Omit<Start, "wallMs">) };
}

const medians = (starts: Start[]) => ({
  wallMs: median(starts.map((s) => s.wallMs)),
  peakMb: median(starts.map((s) => s.peakMb)),
  cpuMs: median(starts.map((s) => s.cpuMs)),
  modules: median(starts.map((s) => s.modules)),
  srcModules: median(starts.map((s) => s.srcModules)),
  slackModules: median(starts.map((s) => s.slackModules)),
});

export async function run(): Promise<BenchRow[]> {
  const other = process.env.BENCH_SHELL_BASELINE;
  const dirs = [await mkdtemp(join(tmpdir(), "sb-shell-")), await mkdtemp(join(tmpdir(), "sb-shell-base-"))];
  const [mine, theirs] = dirs as [string, string];
  const baseline = other
    ? { cwd: other, args: APP_ARGS, name: `the shell at ${other}` }
    : { cwd: ROOT, args: ["-e", "0"], name: "Node's own start, node -e 0" };
  try {
    // First starts: DATA_DIR made, migrations run, the compile cache filled.
    await start(ROOT, APP_ARGS, mine);
    await start(baseline.cwd, baseline.args, theirs);
    const a: Start[] = [];
    const b: Start[] = [];
    for (let i = 0; i < STARTS; i++) {
      a.push(await start(ROOT, APP_ARGS, mine));
      b.push(await start(baseline.cwd, baseline.args, theirs));
    }
    const [m, base] = [medians(a), medians(b)];
    console.error(JSON.stringify({ shell: m, baseline: { ...base, name: baseline.name } }));
    const peak = peakRssMb();
    const r = (x: number) => Math.round(x * 10) / 10;
    const label = `the shell, warm, \`exit\` piped, median of ${STARTS} (baseline: ${baseline.name})`;
    const rows: Array<[string, number, number, string]> = [
      ["spawn to exit", r(m.wallMs), r(base.wallMs), "ms"],
      ["CPU time", r(m.cpuMs), r(base.cpuMs), "ms"],
      ["peak RSS", r(m.peakMb), r(base.peakMb), "MiB"],
      ["modules loaded", m.modules, base.modules, ""],
      [
        `modules of src/ loaded (of src/slack/: ${m.slackModules}, baseline ${base.slackModules})`,
        m.srcModules,
        base.srcModules,
        "",
      ],
    ];
    return rows.map(([what, figure, baseline, unit]) => ({
      name: `${label}: ${what}`,
      figure,
      unit,
      baseline,
      peakRssMb: peak,
    }));
  } finally {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

runWhenMain(import.meta.url, () => run());
