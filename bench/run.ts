// `npm run bench`: runs every bench/*.bench.ts module, each in its own child
// process (so its peak memory is its own and one crash does not stop the
// rest), and prints one markdown table for the README.
//
//   npm run bench                    every module
//   npm run bench -- store import    only modules whose file name contains a word
//   npm run bench -- --json out.json the rows as JSON too
//
// A module exports `async function run(): Promise<BenchRow[]>`; each row holds
// its figure side by side with the baseline measured in the same run.
import { spawn } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { runWhenMain } from "./setup.ts";

export interface BenchRow {
  /** What was measured, naming the baseline when it is not obvious: "… (baseline: bare undici)". */
  name: string;
  figure: number;
  unit: string;
  /** The same measure for the baseline, in the same unit, from the same run. */
  baseline?: number;
  /** Peak resident memory of the process that measured, in MB. */
  peakRssMb: number;
}

interface ModuleResult {
  module: string;
  rows: BenchRow[];
  error?: string;
  seconds: number;
}

const here = dirname(fileURLToPath(import.meta.url));

/**
 * Runs `script` (a bench module) again in a child Node process with `args`, and
 * resolves with the JSON of the last line it prints. Modules use it so that
 * each measure's peak memory is its own.
 */
export function runBenchChild<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [script, ...args], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    proc.stdout.on("data", (c: Buffer) => {
      out += c.toString();
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0)
        return reject(new Error(`bench child ${args.slice(0, 2).join(" ")} exited with ${code}`));
      try {
        resolve(JSON.parse(out.trim().split("\n").pop()!) as T);
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** The process's peak resident memory so far, in MB (for modules' rows). */
export const peakRssMb = (): number => Math.round((process.resourceUsage().maxRSS / 1024) * 10) / 10;

async function benchModules(filters: string[]): Promise<string[]> {
  const files = (await readdir(here)).filter((f) => f.endsWith(".bench.ts")).sort();
  return filters.length ? files.filter((f) => filters.some((w) => f.includes(w))) : files;
}

/** Child side: run one module, write its rows as JSON to `out`. */
async function runChild(file: string, out: string): Promise<void> {
  const mod = (await import(pathToFileURL(join(here, file)).href)) as { run?: () => Promise<BenchRow[]> };
  if (typeof mod.run !== "function") throw new Error(`${file} exports no run() function`);
  const rows = await mod.run();
  if (!Array.isArray(rows)) throw new Error(`${file}: run() did not return a list of rows`);
  await writeFile(out, JSON.stringify(rows));
}

function runInChild(file: string, out: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [fileURLToPath(import.meta.url), "--child", file, out],
      // The module's own progress goes to our stderr; stdout is kept for the table.
      { stdio: ["ignore", "inherit", "pipe"], env: process.env },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      process.stderr.write(chunk);
      stderr = (stderr + chunk.toString()).slice(-4000);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

const number = (n: number | undefined) =>
  n === undefined || !Number.isFinite(n)
    ? "—"
    : Number.isInteger(n)
      ? n.toLocaleString("en-US")
      : n.toLocaleString("en-US", { maximumSignificantDigits: 4 });

export function markdownTable(results: ModuleResult[]): string {
  const lines = [
    "| Module | Measure | Figure | Baseline | Figure / baseline | Peak RSS |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
  ];
  for (const r of results) {
    if (r.error) {
      lines.push(`| ${r.module} | failed: ${r.error.replaceAll("|", "\\|").replaceAll("\n", " ")} | | | | |`);
      continue;
    }
    for (const row of r.rows) {
      const ratio = row.baseline ? `${number(Math.round((row.figure / row.baseline) * 100) / 100)}×` : "";
      lines.push(
        `| ${r.module} | ${row.name.replaceAll("|", "\\|")} | ${number(row.figure)} ${row.unit} | ${
          row.baseline === undefined ? "" : `${number(row.baseline)} ${row.unit}`
        } | ${ratio} | ${number(row.peakRssMb)} MB |`,
      );
    }
  }
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "--child") {
    await runChild(argv[1]!, argv[2]!);
    return 0;
  }
  const jsonAt = argv.indexOf("--json");
  const jsonOut = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  const filters = argv.filter((a, i) => !a.startsWith("--") && (jsonAt < 0 || i !== jsonAt + 1));
  const modules = await benchModules(filters);
  if (!modules.length) {
    console.error(`no bench module matches ${filters.join(", ") || "bench/*.bench.ts"}`);
    return 1;
  }

  const dir = await mkdtemp(join(tmpdir(), "switchboard-bench-"));
  const results: ModuleResult[] = [];
  try {
    for (const file of modules) {
      const module = basename(file, ".bench.ts");
      console.error(`\n== ${module}`);
      const out = join(dir, `${module}.json`);
      const started = performance.now();
      const { code, stderr } = await runInChild(file, out);
      const seconds = Math.round((performance.now() - started) / 100) / 10;
      if (code === 0) {
        results.push({ module, rows: JSON.parse(await readFile(out, "utf8")) as BenchRow[], seconds });
      } else {
        const last = stderr.trim().split("\n").filter(Boolean).slice(-1)[0] ?? `exit code ${code}`;
        results.push({ module, rows: [], error: last.slice(0, 200), seconds });
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }

  // The rows first, so a formatting problem cannot lose a long run's figures.
  if (jsonOut) await writeFile(jsonOut, JSON.stringify(results, null, 2));
  console.log(`\n${markdownTable(results)}\n`);
  console.log(
    `Node ${process.version}, ${process.platform}/${process.arch}; ` +
      results.map((r) => `${r.module} ${r.seconds} s`).join(", "),
  );
  return results.some((r) => r.error) ? 1 : 0;
}

// `npm run bench`: exits with main's code (1 when a module failed) even if a module left a handle open.
runWhenMain(import.meta.url, async (argv) => process.exit(await main(argv)));
