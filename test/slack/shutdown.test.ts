// Graceful stop (issue 10 §6), on the real process: `node
// src/host/main.ts` in HTTP mode against the fake Slack and a sandbox behind a
// proxy on loopback. A command is acked and its API read held at the proxy;
// SIGTERM arrives in the middle of it. The process stops taking work (a
// command sent while it stops is told to try again), hands back the held
// command after SHUTDOWN_GRACE_MS with a private answer that its outcome is
// unknown (never "try again": it may be a send that went out), and exits 0.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import { RESTARTING, STOPPED_UNKNOWN } from "../../src/slack/shutdown.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { eventually } from "../helpers/eventually.ts";
import { signedRequests, slackEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { freePort } from "../helpers/free-port.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";

let fake: FakeSlack;
let sandbox: Sandbox;
let proxy: CountingProxy;
let dataDir: string;
let child: ChildProcess | undefined;
let out = "";
/** Lets the held API read go on (never, in this test: the stop hands it back). */
let release: () => void = () => {};
const held = new Promise<void>((resolve) => {
  release = resolve;
});

/** How long to wait for what the process does; its output is told on time out. */
const ofProcess = {
  timeoutMs: 180_000,
  intervalMs: 100,
  detail: () => `process output:\n${out.slice(-3000)}`,
};

beforeAll(async () => {
  fake = await startFakeSlack();
  sandbox = await startSandbox({});
  proxy = await startProxy(sandbox.url, {
    // The contacts list of the first command waits here: the command is in flight.
    hold: (method, url) => (method === "GET" && url.includes("/contacts?") ? held : undefined),
  });
  dataDir = await mkdtemp(join(tmpdir(), "sb-shutdown-"));
}, 60_000);

afterAll(async () => {
  release();
  if (child && child.exitCode === null) child.kill("SIGKILL");
  await proxy?.close();
  await sandbox?.close();
  await fake?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("SIGTERM in the middle of work", () => {
  it("stops taking work, tells the command in flight its outcome is unknown (never 'try again'), and exits 0", async () => {
    const port = await freePort();
    const { DATABASE_URL: _pg, ...env } = process.env;
    child = spawn(process.execPath, ["src/host/main.ts"], {
      env: {
        ...env,
        ...slackEnv(fake),
        SLACK_APP_TOKEN: "",
        PORT: String(port),
        MESSAGING_API_URL: proxy.url,
        MESSAGING_API_KEY: sandbox.apiKey,
        DATA_DIR: dataDir,
        SHUTDOWN_GRACE_MS: "2000",
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout?.on("data", (d) => {
      out += d;
    });
    child.stderr?.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((resolve) => child?.on("exit", (code) => resolve(code)));

    await eventually(
      async () => {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
        return r?.status === 200;
      },
      "/readyz",
      ofProcess,
    );
    const req = signedRequests(fake, port);

    const first = await req.command("contacts");
    expect(first.status).toBe(200);
    await eventually(
      () => proxy.seen.some((s) => s.startsWith("GET") && s.includes("/contacts?")),
      "the held read",
      ofProcess,
    );

    child.kill("SIGTERM");
    await eventually(() => out.includes('"msg":"stopping"'), "the stop to begin", ofProcess);
    // Stopping: a new command is acked and told to try again, and nothing of it reaches the API.
    const seen = proxy.seen.length;
    const second = await req.command("contacts");
    expect(second.status).toBe(200);
    const toSecond = await fake.waitForResponse(second.responseUrl as string, 1, 20_000);
    expect(toSecond.body.text).toBe(RESTARTING);
    expect(toSecond.body.response_type).toBe("ephemeral");

    // The grace over, the command in flight is handed back, privately, as unknown: never "try again"
    // (a send in flight may have gone out), and nothing more is said of it as the parts close.
    const toFirst = await fake.waitForResponse(first.responseUrl as string, 1, 30_000);
    expect(toFirst.body.text).toBe(STOPPED_UNKNOWN);
    expect(toFirst.body.response_type).toBe("ephemeral");
    const code = await exited;
    if (code !== 0) console.log(out.slice(-4000));
    expect(code).toBe(0);
    expect(proxy.seen.length).toBe(seen);
    expect(out).toMatch(/"msg":"work handed back at stop"/);
    expect(out).toMatch(/"msg":"stopped"/);
    expect(fake.responsesTo(first.responseUrl as string).map((r) => r.body.text)).toEqual([STOPPED_UNKNOWN]);
  }, 300_000);
});
