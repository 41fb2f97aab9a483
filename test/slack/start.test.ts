// The start of the real process as `npm start` runs it (`node src/start.js`,
// HTTP mode, the embedded sandbox on PGlite, the fake Slack): /readyz answers
// before the report scheduler and the inbox poller have started (they start
// right after, docs/memory.md "Start-up"), and what needs them then still
// works: the Home tab opened at once is the reports runtime's, not the
// fallback welcome. A SIGTERM during their start still stops cleanly (exit 0).
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { configSchema } from "../../src/platform/config.ts";
import { maskSecret } from "../../src/platform/log.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { eventually } from "../helpers/eventually.ts";
import { signedRequests, slackEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { freePort } from "../helpers/free-port.ts";
import { textOf } from "./reports-harness.ts";

let fake: FakeSlack;
let dataDir: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  fake = await startFakeSlack();
  dataDir = await mkdtemp(join(tmpdir(), "sb-start-"));
}, 60_000);

afterAll(async () => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** Starts `node src/start.js`; resolves once GET /readyz answers 200, with the output so far. */
async function start(): Promise<{
  child: ChildProcess;
  port: number;
  out: () => string;
  exit: Promise<number | null>;
}> {
  const port = await freePort();
  const { DATABASE_URL: _pg, MESSAGING_API_URL: _api, ...env } = process.env;
  const child = spawn(process.execPath, ["--liftoff-only", "src/start.js"], {
    env: {
      ...env,
      ...slackEnv(fake),
      SLACK_APP_TOKEN: "",
      PORT: String(port),
      SANDBOX_PORT: "0",
      DATA_DIR: dataDir,
      LOG_LEVEL: "debug",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let out = "";
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const state = await eventually(
    async () => {
      if (child.exitCode !== null) return "exited";
      return (
        (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200 && "ready"
      );
    },
    "/readyz",
    { timeoutMs: 60_000, detail: () => `output:\n${out.slice(-3000)}` },
  );
  if (state === "exited") throw new Error(`exited before ready; output:\n${out.slice(-3000)}`);
  return { child, port, out: () => out, exit };
}

const lines = (out: string) =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as { msg?: string; phase?: string });

describe("the start of the process", () => {
  it("answers /readyz before the scheduler starts; the Home tab opened at once waits for the reports runtime", async () => {
    const p = await start();
    const req = signedRequests(fake, p.port);
    await req.event({ type: "app_home_opened", user: "U0ALICE", channel: "D0HOME", tab: "home" });
    const publish = await fake.waitForCall("views.publish", 1, 60_000);
    const text = textOf((publish.args.view as { blocks: unknown[] }).blocks);
    // The reports runtime's Home tab (the account, the key masked), not the fallback welcome.
    expect(text).toContain(maskSecret(configSchema.parse({}).SANDBOX_API_KEY));

    await eventually(
      () => p.out().includes(`"phase":"workspaces' inboxes and progress resumed, after ready"`),
      "the inboxes' start",
    );
    const logged = lines(p.out());
    const at = (what: (l: { msg?: string; phase?: string }) => boolean) => logged.findIndex(what);
    const ready = at((l) => l.msg === "Switchboard ready");
    const scheduler = at((l) => l.phase === "report scheduler (pg-boss), after ready");
    expect(ready).toBeGreaterThanOrEqual(0);
    expect(scheduler).toBeGreaterThan(ready);
    expect(at((l) => l.phase === "workspaces' inboxes and progress resumed, after ready")).toBeGreaterThan(
      scheduler,
    );

    p.child.kill("SIGTERM");
    expect(await p.exit).toBe(0);
  }, 180_000);

  it("stops cleanly (exit 0) on a SIGTERM at once after ready, the scheduler most likely still starting", async () => {
    const p = await start();
    p.child.kill("SIGTERM");
    const code = await p.exit;
    if (code !== 0) console.log(p.out().slice(-4000));
    expect(code).toBe(0);
    expect(p.out()).toMatch(/"msg":"stopped"/);
  }, 180_000);
});
