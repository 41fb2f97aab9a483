// Many workspaces in the real process (`npm start` with SLACK_CLIENT_ID…):
// the start line says so, "Add to Slack" installs a workspace, `/sb connect
// demo` connects it, and after a restart on the same DATA_DIR the workspace is
// still installed and connected: its commands answer at once. The database
// files hold no token nor key in the clear.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FakeSlack, FakeTeam } from "../fakes/slack.ts";
import { SIGNING_SECRET, signedRequests, startFakeSlack } from "../helpers/fake-slack.ts";
import { freePort } from "../helpers/free-port.ts";

let fake: FakeSlack;
let dir: string;
let port: number;
let child: ChildProcess | undefined;
let out = "";
let allOut = "";
let team: FakeTeam;
const SECRET_KEY = randomBytes(32).toString("base64");

async function start(): Promise<void> {
  out = "";
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(SLACK_|SWITCHBOARD_|DATABASE_URL|MESSAGING_API|LOG_LEVEL|METRICS_TOKEN|PORT$|PUBLIC_URL)/.test(k),
    ),
  );
  child = spawn(process.execPath, ["--liftoff-only", resolve("src/start.js")], {
    cwd: dir,
    env: {
      ...env,
      SLACK_CLIENT_ID: fake.clientId,
      SLACK_CLIENT_SECRET: fake.clientSecret,
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_STATE_SECRET: "a-state-secret-for-the-tests",
      SWITCHBOARD_SECRET_KEY: SECRET_KEY,
      SLACK_API_URL: fake.apiUrl,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      PORT: String(port),
      DATA_DIR: join(dir, "data"),
      LOG_LEVEL: "debug",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    out += d;
    allOut += d;
  });
  child.stderr?.on("data", (d) => {
    out += d;
    allOut += d;
  });
  for (let i = 0; i < 2400; i++) {
    if (child.exitCode !== null) break;
    const r = await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined);
    if (r?.status === 200 && out.includes("Switchboard ready")) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`not ready; output:\n${out.slice(-3000)}`);
}

async function stop(): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child!.on("exit", r));
  child.kill("SIGTERM");
  await exited;
}

async function command(text: string): Promise<string> {
  const sent = await signedRequests(fake, port)
    .asTeam(team.teamId, team.botUserId)
    .command(text, { user: { id: team.installerUserId, name: "ana" } });
  expect(sent.status).toBe(200);
  return JSON.stringify((await fake.waitForResponse(sent.responseUrl!)).body);
}

beforeAll(async () => {
  fake = await startFakeSlack();
  team = fake.addTeam({ teamId: "TPROC", teamName: "Process Co", installerUserId: "U0ANA" });
  dir = await mkdtemp(join(tmpdir(), "sb-many-"));
  port = await freePort();
  await start();
}, 180_000);

afterAll(async () => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  await fake?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("many workspaces in the real process", () => {
  it("starts in many-workspace mode and installs a workspace with Add to Slack", async () => {
    expect(out).toMatch(/many workspaces|SLACK_CLIENT_ID/);
    const res = await fetch(`http://127.0.0.1:${port}/slack/install`);
    const page = await res.text();
    const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
    const href = /href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
    const consent = await fetch(`${href}&team=${team.teamId}`, { redirect: "manual" });
    const back = await fetch(consent.headers.get("location")!, { headers: { cookie } });
    expect(await back.text()).toContain("installed in Process Co");
    expect(await command("tags")).toContain("not connected");
  });

  it("connects with a demo account, and answers from it", async () => {
    expect(await command("connect demo")).toContain("Connected to");
    expect(await command("tags")).toContain("Support");
  });

  it("after a restart the workspace is still installed and connected", async () => {
    await stop();
    await start();
    expect(await command("tags")).toContain("Support");
  }, 120_000);

  it("logs, at debug level, no token, no client or state secret, no secret key", () => {
    expect(allOut).toContain("oauth.v2.access");
    for (const secret of [team.botToken!, fake.clientSecret, "a-state-secret-for-the-tests", SECRET_KEY])
      expect(allOut).not.toContain(secret);
  });

  it("keeps no token nor key in the clear in DATA_DIR", async () => {
    await stop();
    const files: Buffer[] = [];
    for (const e of await readdir(join(dir, "data"), { withFileTypes: true, recursive: true }))
      if (e.isFile()) files.push(await readFile(join(e.parentPath, e.name)));
    expect(files.some((f) => f.includes("Process Co"))).toBe(true);
    for (const secret of [team.botToken!, fake.clientSecret])
      expect(files.filter((f) => f.includes(secret))).toHaveLength(0);
  });
});
