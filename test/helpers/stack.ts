// The one set-up of the tests that run Switchboard whole, on real parts: a
// fresh database (PGlite in memory, or PostgreSQL with DATABASE_URL), the
// sandbox started on it, when asked a counting proxy in front of the sandbox,
// and the composition root (src/host: migrations, the registry of workspaces,
// each one's client and command core); with `slack`, also the fake Slack
// (test/helpers/fake-slack.ts) and the Bolt app on 127.0.0.1 with signed requests.
//
// Two modes, one composition path (src/host/compose.ts), the source of
// installations alone differing (docs/workspaces.md):
// - "many" (the default, with or without `slack`): many-workspace mode with two
//   workspaces (test/helpers/stack-many.ts): A, the fake's own team and the
//   sandbox's seeded organization, which the test drives (`core`, `req`…), and
//   B, a second team with its own organization (`b`), to check it saw nothing.
//   Without `slack` the fake Slack and the Bolt app are started all the same,
//   for the two installs ("Add to Slack"), and the test drives A's core alone;
// - "single" (only when asked): the one installation of the environment
//   (workspace `env`): the shell's own case, Socket Mode's, the env install's.
//   const s = await startStack({ writers: ["U0ALICE"], slack: {} });   ...   await s.close();
// or for a whole file: const stack = useStack({ ... });   ...   stack().core
import type { MessagingClient } from "../../src/api/client.ts";
import type { SwitchboardCore } from "../../src/commands/core.ts";
import { ENV_WORKSPACE, type WorkspaceId } from "../../src/domain/workspace.ts";
import { createSwitchboard, type Switchboard, type SwitchboardOptions } from "../../src/host/app.ts";
import { type Config, loadConfig } from "../../src/platform/config.ts";
import type { Logger } from "../../src/platform/log.ts";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../src/sandbox/index.ts";
import type { CreateSlackAppOptions, SlackApp } from "../../src/slack/app.ts";
import type { SlackHooks } from "../../src/slack/context.ts";
import type { HomeOptions } from "../../src/slack/features/home/view.ts";
import type { FakeChannel, FakeSlack, FakeUser } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import { openTestDb, type StoreBackend, type TestDb } from "./db.ts";
import { signedRequests, slackEnv, startFakeSlack } from "./fake-slack.ts";
import { captureLogger } from "./log.ts";
import { perFile } from "./per-file.ts";
import { type CountingProxy, type ProxyOptions, startProxy } from "./proxy.ts";
import { composeManyStack } from "./stack-many.ts";
import type { StackWorkspace } from "./workspaces-stack.ts";

export type StackMode = "many" | "single";

export interface StackOptions {
  /** Many-workspace mode with workspaces A and B (the default), or single mode (the environment's one workspace). */
  mode?: StackMode;
  /** The database; default as openTestDb: PostgreSQL when DATABASE_URL is set, else PGlite. */
  backend?: StoreBackend;
  /** The sandbox's options (a hand-moved clock, rate limits, no ticks…); unset ones as the app's defaults. */
  sandbox?: Omit<SandboxOptions, "db">;
  /** "own": the sandbox keeps a database of its own (PGlite in memory) instead of sharing the stack's. */
  sandboxDb?: "shared" | "own";
  /** A counting proxy between the client and the sandbox; `hold` delays chosen requests. */
  proxy?: boolean | ProxyOptions;
  /** SWITCHBOARD_WRITERS and SWITCHBOARD_BROADCASTERS. */
  writers?: string[];
  broadcasters?: string[];
  /** Settings over the stack's, as the environment gives them (API limits, channel, country…). */
  env?: Record<string, string>;
  /** Called with every audited write. */
  onAudit?: SwitchboardOptions["onAudit"];
  /** The fake Slack and the Bolt app as well. */
  slack?: SlackStackOptions;
}

export interface SlackStackOptions {
  /** A fake Slack already running (another stack's), shared: not set up nor closed here. */
  fake?: FakeSlack;
  /** Default: #general (C0GENERAL). */
  channels?: FakeChannel[];
  /** Default: alice (U0ALICE) and bob (U0BOB). */
  users?: FakeUser[];
  /** The Bolt app's hooks, made once the rest is up (the reports runtime brings its own). */
  hooks?: (stack: Stack) => SlackHooks | Promise<SlackHooks>;
  /** Import progress throttle and its clock. */
  progress?: CreateSlackAppOptions["progress"];
  /** The Home tab's clock and cache time. */
  home?: Pick<HomeOptions, "clock" | "cacheMs">;
}

export interface Stack {
  mode: StackMode;
  /** The workspace the test drives: A's team (T0FAKE) in many-workspace mode, `env` in single mode. */
  workspace: WorkspaceId;
  db: TestDb;
  sandbox: Sandbox;
  /** Set when asked for: every request of the client goes through it. */
  proxy?: CountingProxy;
  switchboard: Switchboard;
  client: MessagingClient;
  core: SwitchboardCore;
  apiKey: string;
  config: Config;
  logger: Logger;
  logs: ReturnType<typeof captureLogger>["logs"];
  waitForLog: ReturnType<typeof captureLogger>["waitForLog"];
  /** Many-workspace mode: workspace B (its requests, person, organization), which should see nothing of A's. */
  b?: StackWorkspace;
  /** The fake Slack: many-workspace mode always has it (its installs), single mode with `slack`. */
  fake?: FakeSlack;
  close(): Promise<void>;
}

export interface SlackStack extends Stack {
  fake: FakeSlack;
  slack: SlackApp;
  /** Signed requests to the Bolt app. */
  req: SlackRequests;
}

export async function startStack(opts: StackOptions & { slack: SlackStackOptions }): Promise<SlackStack>;
export async function startStack(opts?: StackOptions): Promise<Stack>;
export async function startStack(opts: StackOptions = {}): Promise<Stack | SlackStack> {
  // Closed last first; every part is closed even when one fails, the first failure is thrown.
  const closers: Array<() => Promise<void>> = [];
  const closeAll = async () => {
    let failure: unknown;
    for (const close of closers.splice(0).reverse()) await close().catch((err) => (failure ??= err));
    if (failure) throw failure;
  };
  try {
    const db = await openTestDb(opts.backend);
    closers.push(() => db.close());
    const { logger, logs, waitForLog } = captureLogger();
    const sandbox = await startSandbox({
      logger: logger.child({ part: "sandbox" }),
      // A generous budget unless a test sets its own (the budget's tests do): at the deployed 60 writes a
      // minute a test that makes a few groups waits on the limiter (test/slack/approval.test.ts: 82 s → 32 s).
      readLimit: 100_000,
      writeLimit: 10_000,
      ...opts.sandbox,
      db: opts.sandboxDb === "own" ? undefined : db,
    });
    closers.push(() => sandbox.close());
    let proxy: CountingProxy | undefined;
    if (opts.proxy) {
      proxy = await startProxy(sandbox.url, opts.proxy === true ? {} : opts.proxy);
      closers.push(proxy.close);
    }
    const many = (opts.mode ?? "many") === "many";
    let fake: FakeSlack | undefined;
    if (opts.slack || many) {
      fake = opts.slack?.fake;
      if (!fake) {
        fake = await startFakeSlack({ channels: opts.slack?.channels, users: opts.slack?.users });
        closers.push(fake.close.bind(fake));
      }
    }
    if (fake && many) {
      const stackOf = (sb: Switchboard, config: Config): Stack => ({
        mode: "many",
        workspace: sb.workspace,
        db,
        sandbox,
        proxy,
        switchboard: sb,
        client: sb.client,
        core: sb.core,
        apiKey: sb.apiKey,
        config,
        logger,
        logs,
        waitForLog,
        close: closeAll,
      });
      const hooks = opts.slack?.hooks;
      const composed = await composeManyStack({
        db,
        fake,
        sandbox,
        apiUrl: proxy?.url ?? sandbox.url,
        logger,
        env: {
          ...(opts.writers ? { SWITCHBOARD_WRITERS: opts.writers.join(",") } : {}),
          ...(opts.broadcasters ? { SWITCHBOARD_BROADCASTERS: opts.broadcasters.join(",") } : {}),
          ...opts.env,
        },
        onAudit: opts.onAudit,
        ...(hooks ? { hooks: (sb, config) => hooks(stackOf(sb, config)) } : {}),
        home: opts.slack?.home,
        progress: opts.slack?.progress,
        closing: (close) => closers.push(close),
      });
      const { switchboard, slack, b } = composed;
      const req = signedRequests(fake, slack.port as number);
      return { ...stackOf(switchboard, composed.config), fake, slack, b, req };
    }
    const config = loadConfig({
      ...(fake ? slackEnv(fake) : {}),
      MESSAGING_API_URL: proxy?.url ?? sandbox.url,
      MESSAGING_API_KEY: sandbox.apiKey,
      ...(opts.writers ? { SWITCHBOARD_WRITERS: opts.writers.join(",") } : {}),
      ...(opts.broadcasters ? { SWITCHBOARD_BROADCASTERS: opts.broadcasters.join(",") } : {}),
      LOG_LEVEL: "silent",
      // The client's budget as generous as the sandbox's above, unless the test sets its own.
      API_READ_LIMIT: "100000",
      API_WRITE_LIMIT: "10000",
      ...opts.env,
    });
    // The tests drive each workspace's inbox poller and live progress themselves (their clocks, their steps).
    const switchboard = await createSwitchboard(config, {
      logger,
      db,
      onAudit: opts.onAudit,
      background: false,
      ...(opts.slack?.home ? { home: opts.slack.home } : {}),
    });
    closers.push(() => switchboard.close());
    const stack: Stack = {
      mode: "single",
      workspace: ENV_WORKSPACE,
      db,
      sandbox,
      proxy,
      switchboard,
      client: switchboard.client,
      core: switchboard.core,
      apiKey: switchboard.apiKey,
      config,
      logger,
      logs,
      waitForLog,
      close: closeAll,
    };
    if (!opts.slack || !fake) return stack;

    const { startSlackApp } = await import("../../src/slack/app.ts");
    const hooks = await opts.slack.hooks?.(stack);
    const slack = await startSlackApp(switchboard.deployment, config, logger, {
      hooks,
      listen: { port: 0, host: "127.0.0.1" },
      progress: opts.slack.progress,
    });
    closers.push(() => slack.stop());
    // What an earlier process left is settled before the test starts.
    await slack.settled;
    return { ...stack, fake, slack, req: signedRequests(fake, slack.port as number) };
  } catch (err) {
    await closeAll().catch(() => {});
    throw err;
  }
}

/** Starts a stack before the file's tests and closes it after; returns a getter. */
export function useStack(opts: StackOptions & { slack: SlackStackOptions }): () => SlackStack;
export function useStack(opts?: StackOptions): () => Stack;
export function useStack(opts: StackOptions = {}): () => Stack | SlackStack {
  return perFile("stack", () => startStack(opts));
}
