// One set-up for the report, progress and Home tab tests: the fake Slack, one
// database (PGlite in memory, or PostgreSQL with DATABASE_URL) shared by the
// sandbox (its timer off: tests call tick()) and Switchboard, the real core,
// the reports runtime (scheduler on pg-boss when asked) with a hand-moved
// clock, and the Bolt app on 127.0.0.1 with signed requests.
import { createSwitchboard, type Switchboard } from "../../src/app.ts";
import { loadConfig } from "../../src/config.ts";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import { type SlackApp, startSlackApp } from "../../src/slack/app.ts";
import {
  type ReportsRuntime,
  type ReportsRuntimeOptions,
  startReports,
} from "../../src/slack/reports/runtime.ts";
import { FakeSlack } from "../fakes/slack.ts";
import { SlackRequests } from "../fakes/slack-requests.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { manualClock } from "../helpers/sandbox.ts";
import { captureLogger, SIGNING_SECRET } from "./harness.ts";

export const ALICE = { id: "U0ALICE", name: "alice", tz: "Europe/Paris" };
export const BOB = { id: "U0BOB", name: "bob", tz: "America/New_York" };

export interface ReportsHarness {
  fake: FakeSlack;
  db: TestDb;
  sandbox: Sandbox;
  switchboard: Switchboard;
  runtime: ReportsRuntime;
  slack: SlackApp;
  req: SlackRequests;
  clock: ReturnType<typeof manualClock>;
  config: ReturnType<typeof loadConfig>;
  logger: ReturnType<typeof captureLogger>["logger"];
  /** Starts the reports runtime again (a restart of the bot's reports part). */
  restart(opts?: ReportsRuntimeOptions): Promise<ReportsRuntime>;
  close(): Promise<void>;
}

export async function startReportsHarness(
  opts: { start?: Date; runtime?: ReportsRuntimeOptions; env?: Record<string, string> } = {},
): Promise<ReportsHarness> {
  const fake = await FakeSlack.start();
  fake.addChannel({ id: "C0GENERAL", name: "general" });
  fake.addChannel({ id: "C0OTHERCH", name: "other" });
  fake.addChannel({ id: "G0SECRET1", name: "secret", is_private: true, is_member: false });
  fake.addUser(ALICE);
  fake.addUser(BOB);
  const db = await openTestDb();
  const clock = manualClock(opts.start ?? new Date("2025-11-21T10:00:00Z"));
  // The sandbox's clock is the real one: its records need no hand-moved time.
  const sandbox = await startSandbox({ db, campaignTickMs: 0, readLimit: 100_000, writeLimit: 10_000 });
  const config = loadConfig({
    SLACK_BOT_TOKEN: fake.botToken,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_API_URL: fake.apiUrl,
    MESSAGING_API_URL: sandbox.url,
    MESSAGING_API_KEY: sandbox.apiKey,
    SWITCHBOARD_WRITERS: ALICE.id,
    LOG_LEVEL: "silent",
    ...opts.env,
  });
  const { logger } = captureLogger();
  const switchboard = await createSwitchboard(config, { logger, db });
  let runtime = await startReports(switchboard, config, logger, {
    clock,
    progressTimer: false,
    ...opts.runtime,
  });
  const slack = await startSlackApp(switchboard, config, logger, {
    hooks: runtime.hooks,
    listen: { port: 0, host: "127.0.0.1" },
  });
  const h: ReportsHarness = {
    fake,
    db,
    sandbox,
    switchboard,
    runtime,
    slack,
    req: new SlackRequests(`http://127.0.0.1:${slack.port}/slack/events`, SIGNING_SECRET, fake),
    clock,
    config,
    logger,
    async restart(more) {
      await runtime.stop();
      runtime = await startReports(switchboard, config, logger, {
        clock,
        progressTimer: false,
        ...opts.runtime,
        ...more,
      });
      h.runtime = runtime;
      // The Bolt app keeps its hooks object: point it at the new runtime's.
      Object.assign(slack.deps.hooks, runtime.hooks);
      return runtime;
    },
    async close() {
      await slack.stop().catch(() => {});
      await runtime.stop().catch(() => {});
      await switchboard.close();
      await sandbox.close();
      await db.close();
      await fake.close();
    },
  };
  return h;
}

/** Waits (polling) until `check` gives a value; for conditions reached by background work. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  what = "condition",
  timeoutMs = 20_000,
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

type Block = {
  type: string;
  text?: { text?: string };
  fields?: Array<{ text?: string }>;
  elements?: Array<{ action_id?: string; value?: string; text?: unknown }>;
  accessory?: { action_id?: string; value?: string };
};

/** Every button (actions elements and accessories) of some blocks. */
export const buttonsOf = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? []).flatMap((b) => [
    ...(b.type === "actions" ? (b.elements ?? []) : []),
    ...(b.accessory?.action_id ? [b.accessory] : []),
  ]);

/** All the text of some blocks, for assertions. */
export const textOf = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? [])
    .flatMap((b) => [
      b.text?.text ?? "",
      ...(b.fields ?? []).map((f) => f.text ?? ""),
      ...(b.type === "context"
        ? (b.elements ?? []).map((e) => String((e as { text?: string }).text ?? ""))
        : []),
    ])
    .join("\n");
