// The real process (`node src/start.js`) as an operator runs it, in Socket
// Mode against the fake Slack, its settings in a `.env` (issue 21 §3-§5, issue 22 §1):
// - `.env` is read, the environment winning, and the start line says the mode and why;
// - malformed Socket Mode frames (the text `null`, an `events_api` envelope
//   without `payload.event`) are dropped and the process keeps answering;
// - no token or secret reaches the trace-level logs of the whole run (Bolt's
//   "Received a message on the WebSocket" joins every payload into one string);
// - GET /metrics: Prometheus text behind METRICS_TOKEN, with bounded labels only;
// - GET /readyz: the store, Slack and the messaging API, each with its state.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeSlack } from "../fakes/slack.ts";
import { eventually } from "../helpers/eventually.ts";
import { freePort } from "../helpers/free-port.ts";

const BOT_TOKEN = "xoxb-4242-ops-bot-token-Zq8";
const VERIFICATION_TOKEN = "verif-Tok3n-0ps-abcdef";
const WORKFLOW_TOKEN = "xwfp-77-workflow-token-Qx1";
const METRICS_TOKEN = "metrics-s3cret-0ps-991";
const ALICE = { id: "U0ALICE", name: "alice" };

let fake: FakeSlack;
let dir: string;
let child: ChildProcess;
let out = "";
let port: number;
let exit: Promise<number | null>;

beforeAll(async () => {
  fake = await FakeSlack.start({ botToken: BOT_TOKEN });
  fake.addUser(ALICE);
  fake.addChannel({ id: "C0GENERAL", name: "general" });
  dir = await mkdtemp(join(tmpdir(), "sb-ops-"));
  port = await freePort();
  // The settings in .env, as .env.example says; PORT also in the environment, which wins.
  await writeFile(
    join(dir, ".env"),
    [
      `SLACK_BOT_TOKEN=${BOT_TOKEN}`,
      `SLACK_APP_TOKEN=${fake.appToken}`,
      `SLACK_API_URL=${fake.apiUrl}`,
      `METRICS_TOKEN=${METRICS_TOKEN}`,
      "LOG_LEVEL=trace",
      "PORT=1",
    ].join("\n"),
  );
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^(SLACK_|DATABASE_URL|MESSAGING_API|LOG_LEVEL|METRICS_TOKEN|PORT$)/.test(k),
    ),
  );
  child = spawn(process.execPath, ["--liftoff-only", resolve("src/start.js")], {
    cwd: dir,
    env: { ...env, PORT: String(port), SANDBOX_PORT: "0", DATA_DIR: join(dir, "data") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    out += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
  });
  exit = new Promise((r) => child.on("exit", (code) => r(code)));
  for (let i = 0; i < 2400; i++) {
    if (child.exitCode !== null) break;
    const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (r?.status === 200 && out.includes("Slack app connected in Socket Mode")) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready; output:\n${out.slice(-3000)}`);
}, 180_000);

afterAll(async () => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

const logLines = () =>
  out
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

const command = (text: string) => ({
  token: VERIFICATION_TOKEN,
  team_id: fake.teamId,
  channel_id: "C0GENERAL",
  channel_name: "general",
  user_id: ALICE.id,
  user_name: ALICE.name,
  command: "/sb",
  text,
  api_app_id: "A0SWITCH",
  response_url: fake.newResponseUrl(),
  trigger_id: fake.newTriggerId(),
});

describe("the process as operators run it", () => {
  it("reads .env (the environment winning) and says which mode it chose and why", () => {
    const start = logLines().find((l) => String(l.msg).startsWith("Switchboard starting"));
    expect(start).toMatchObject({
      mode: "slack-socket",
      why: "SLACK_BOT_TOKEN from .env, SLACK_APP_TOKEN from .env",
      api: "the embedded sandbox (MESSAGING_API_URL not set)",
    });
    expect(String(start?.store)).toContain(join(dir, "data"));
    expect(String(start?.env)).toContain(".env read");
    expect(String(start?.msg)).toContain("Slack in Socket Mode, one workspace");
    // PORT=1 in the file, the test's port in the environment: the environment won.
    expect(out).not.toContain('"port":1,');
  });

  it("survives malformed Socket Mode frames and goes on answering", async () => {
    const conn = await fake.socketMode.connected();
    conn.sendJson(null);
    conn.sendJson({ envelope_id: "env-no-event", type: "events_api", payload: {} });
    conn.sendJson({ envelope_id: "env-no-payload", type: "events_api" });
    // A workflow step's event, for a step Switchboard does not have: logged at trace level, token and all.
    conn.sendJson({
      envelope_id: "env-step",
      type: "events_api",
      payload: {
        token: VERIFICATION_TOKEN,
        team_id: fake.teamId,
        api_app_id: "A0SWITCH",
        type: "event_callback",
        event_id: "Ev0STEP",
        event_time: Math.floor(Date.now() / 1000),
        event: {
          type: "function_executed",
          function: { callback_id: "not_a_switchboard_step" },
          inputs: {},
          function_execution_id: "Fx0STEP",
          workflow_execution_id: "Wx0STEP",
          event_ts: "1.0",
        },
        bot_access_token: WORKFLOW_TOKEN,
      },
    });
    const ack = await fake.socketMode.send("slash_commands", command("help"));
    expect(ack.envelope_id).toBeTruthy();
    expect(child.exitCode).toBeNull();
    // The child's log reaches this process by a pipe, after the ack may: wait for the line.
    await eventually(
      () => out.includes("ignored a malformed Socket Mode frame"),
      "the malformed-frame log line",
      {
        timeoutMs: 20_000,
      },
    );
    expect(child.exitCode).toBeNull();
  }, 60_000);

  it("serves /metrics behind METRICS_TOKEN, with bounded labels only", async () => {
    const url = `http://127.0.0.1:${port}/metrics`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
    const read = async () => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    // The help command acked above may still be running.
    let text = await read();
    for (let i = 0; i < 200 && !text.includes('command="help"'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      text = await read();
    }
    for (const name of [
      "process_cpu_seconds_total",
      "switchboard_commands_total",
      "switchboard_api_requests_total",
      "switchboard_api_request_seconds_bucket",
      "switchboard_post_queue_depth",
      "switchboard_report_runs_total",
      "switchboard_inbox_mirrored_messages_total",
      "switchboard_imports_total",
    ])
      expect(text).toContain(name);
    expect(text).toMatch(/switchboard_commands_total\{command="help",front_end="slack",outcome="ok"\} 1/);
    // Every WebClient call (here Bolt's authorize), not only chat.postMessage through the post queue.
    expect(text).toMatch(/switchboard_slack_calls_total\{method="auth.test",error="ok"\} [1-9]/);
    // Never a user, channel, workspace, thread or message id in a label.
    const labels = [...text.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!).join("\n");
    for (const id of [ALICE.id, "C0GENERAL", fake.teamId, "Fx0STEP", "Ev0STEP"])
      expect(labels).not.toContain(id);
    expect(labels).not.toMatch(/"[UCDTGW]0[A-Z0-9]{4,}"/);
  });

  it("says in /readyz whether the store, Slack and the messaging API answer", async () => {
    const res = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      ready: true,
      checks: { store: { ok: true }, slack: { ok: true }, messagingApi: { ok: true } },
    });
  });

  it("logs no token nor secret at trace level, from start to stop", async () => {
    child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(out).toMatch(/Received a message on the WebSocket/); // the line that used to carry them
    for (const secret of [BOT_TOKEN, fake.appToken, VERIFICATION_TOKEN, WORKFLOW_TOKEN, METRICS_TOKEN])
      expect(out).not.toContain(secret);
    expect(out).not.toMatch(/x(?:ox[a-z]|app|wfp)-[A-Za-z0-9-]{6,}/);
  }, 60_000);
});
