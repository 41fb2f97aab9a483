// The shell loads what the shell needs (issue 38 §1): `npm start` with no Slack
// tokens answers its lines without loading the Slack app's background work (report
// posts, held starts, messages sent later, the Home tab, start-up recovery), and
// without the indexes of libraries it uses a few functions of. The modules are
// read in the process by bench/shell-probe.mjs (the probe bench/shell.bench.ts uses).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the shell's start", () => {
  it("answers without loading the Slack side's runners nor whole library indexes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-lean-"));
    const out = join(dir, "probe.json");
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATA_DIR: dir,
      SANDBOX_CAMPAIGN_TICK_MS: "3600000",
      SHELL_PROBE_OUT: out,
      SHELL_PROBE_URLS: "1",
    };
    const child = spawn(process.execPath, ["--import", "./bench/shell-probe.mjs", "src/start.js"], {
      cwd: ROOT,
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stdin.end("tags\n");
    const code = await new Promise((resolve) => child.on("close", resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/== Tags ==/);

    const { urls } = JSON.parse(readFileSync(out, "utf8")) as { urls: string[] };
    const loaded = urls.map((u) => u.replace(/^file:\/\/.*?\/(src|node_modules)\//, "$1/"));
    expect(loaded).toContain("src/shell/index.ts");
    const notNeeded = loaded.filter(
      (m) =>
        /^src\/slack\/(features|recovery|listeners)\//.test(m) ||
        /^node_modules\/(@slack\/bolt|pg-boss)\//.test(m) ||
        m === "node_modules/undici/index.js" ||
        m === "node_modules/date-fns/index.js",
    );
    expect(notNeeded).toEqual([]);
  }, 120_000);
});
