// kill -9 between a form's claim and its work (issue 38 §5), on two processes
// (`node src/host/main.ts`) over one PostgreSQL. Process 1 claims a submission
// and is killed while it looks for the form's channel; the same submission sent
// again to process 2 is answered "Already submitted" (the work is done once),
// and the person is told, by DM, once process 1 is seen dead: its outcome is
// not known (the path of interrupted slash commands,
// src/slack/recovery/interrupted-commands.ts). PostgreSQL only: PGlite is one
// process per folder.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { createTestDatabase, dropTestDatabase, postgresUrl } from "../helpers/db.ts";
import { eventually } from "../helpers/eventually.ts";
import { signedRequests, slackEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { freePort } from "../helpers/free-port.ts";

interface Running {
  child: ChildProcess;
  port: number;
  out: string;
}

describe.skipIf(!postgresUrl())("a form claimed by a process killed before its work", () => {
  let fake: FakeSlack;
  let sandbox: Sandbox;
  let dbUrl: URL;
  let db: pg.Client;
  let dataDir: string;
  const running: Running[] = [];

  /** How long to wait for what a process does; the processes' output is told on time out. */
  const ofProcesses = {
    timeoutMs: 120_000,
    intervalMs: 100,
    detail: () => running.map((r, i) => `process ${i + 1}:\n${r.out.slice(-2500)}`).join("\n"),
  };

  /** A replica in single-workspace mode on the test database, ready. */
  async function start(): Promise<Running> {
    const port = await freePort();
    const { DATABASE_URL: _pg, ...env } = process.env;
    const child = spawn(process.execPath, ["src/host/main.ts"], {
      env: {
        ...env,
        ...slackEnv(fake),
        SLACK_APP_TOKEN: "",
        PORT: String(port),
        DATABASE_URL: dbUrl.toString(),
        MESSAGING_API_URL: sandbox.url,
        MESSAGING_API_KEY: sandbox.apiKey,
        DATA_DIR: join(dataDir, String(running.length + 1)),
        LOG_LEVEL: "info",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const r: Running = { child, port, out: "" };
    running.push(r);
    child.stdout?.on("data", (d) => {
      r.out += d;
    });
    child.stderr?.on("data", (d) => {
      r.out += d;
    });
    await eventually(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
      "/readyz",
      ofProcesses,
    );
    return r;
  }

  const liveIds = async () =>
    (await db.query<{ id: string }>("select id from replicas.live")).rows.map((r) => r.id);

  beforeAll(async () => {
    [fake, sandbox, dbUrl, dataDir] = await Promise.all([
      startFakeSlack(),
      startSandbox({}),
      createTestDatabase(),
      mkdtemp(join(tmpdir(), "sb-form-kill-")),
    ]);
    db = new pg.Client({ connectionString: dbUrl.toString() });
    await db.connect();
  }, 60_000);

  afterAll(async () => {
    for (const r of running)
      if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill("SIGKILL");
    await db?.end();
    if (dbUrl) await dropTestDatabase(dbUrl);
    await sandbox?.close();
    await fake?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it("is answered 'Already submitted' on the other process, and its person told once the first is seen dead", async () => {
    const one = await start();
    const [oneId] = await liveIds();
    expect(oneId).toBeDefined();
    const two = await start();

    // A submission whose channel was never kept with the view: process 1 looks for it for a second after its claim.
    const submission = {
      id: "V0KILLED",
      callback_id: "sb_template",
      title: { type: "plain_text", text: "New template" },
      private_metadata: JSON.stringify({ ch: "C0NOTKEPT" }),
      state: { name: { name: { type: "plain_text_input", value: "killed_template" } } },
    };
    const first = signedRequests(fake, one.port)
      .viewSubmission(submission)
      .catch(() => undefined);
    await eventually(
      async () =>
        (await db.query("select 1 from slack.seen_events where starts_with(event_id, 'view:V0KILLED:')"))
          .rowCount,
      "process 1's claim",
      { ...ofProcesses, intervalMs: 5 },
    );
    // kill -9 between the claim and the form's work.
    one.child.kill("SIGKILL");
    await eventually(() => one.child.signalCode === "SIGKILL", "process 1's death", ofProcesses);
    await first;

    // The person submits again; process 2 gets it: the work is not done twice.
    const again = await signedRequests(fake, two.port).viewSubmission(submission);
    expect(again.status).toBe(200);
    expect(again.body).toContain("Already submitted");

    // Process 1 stops beating: as if LIVE_MS (30 s) had passed. Process 2's next beat (10 s at most) tells.
    await db.query("update replicas.live set seen_at = now() - interval '1 hour' where id = $1", [oneId]);
    const told = () =>
      fake.messages.filter(
        (m) => m.channel === "U0ALICE" && /restarted while doing the work of the form/.test(m.text ?? ""),
      );
    await eventually(() => told().length > 0, "the DM about the interrupted form", {
      ...ofProcesses,
      timeoutMs: 30_000,
    });
    expect(told()[0]?.text).toMatch(/the form \*New template\* you submitted/);
    expect(told()[0]?.text).toMatch(/may or may not have been made/);
    // Told once: the note was taken by one statement (whichever replica's sweep got there).
    await new Promise((r) => setTimeout(r, 1_000));
    expect(told()).toHaveLength(1);
    const left = await db.query("select 1 from switchboard.commands_in_flight");
    expect(left.rowCount).toBe(0);
  }, 300_000);
});
