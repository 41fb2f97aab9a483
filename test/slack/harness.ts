// Starts the Bolt app in HTTP mode on 127.0.0.1 (port 0) on a core the test
// gives (TestCore), against the fake Slack of test/helpers/fake-slack.ts, with
// a logger the test can read and signed requests. The real core and sandbox:
// test/helpers/stack.ts.

import type { CommandCore } from "../../src/commands/types.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { createSlackApp, type SlackApp } from "../../src/slack/app.ts";
import type { SlackHooks } from "../../src/slack/context.ts";
import { createSlackBridge, type SlackBridge } from "../../src/slack/io/bridge.ts";
import type { EventStore } from "../../src/slack/io/event-store.ts";
import { oneWorkspace } from "../../src/slack/tenancy/scope.ts";
import type { Db } from "../../src/store/db.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import { signedRequests, slackEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { captureLogger } from "../helpers/log.ts";

export interface Harness {
  fake: FakeSlack;
  slack: SlackApp;
  bridge: SlackBridge;
  req: SlackRequests;
  baseUrl: string;
  logs: Array<Record<string, unknown>>;
  /** Resolves with the first log line matching, waiting for it. */
  waitForLog(
    match: (line: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startHarness(
  makeCore: (bridge: SlackBridge, fake: FakeSlack) => CommandCore | Promise<CommandCore>,
  opts: { env?: Record<string, string>; hooks?: SlackHooks; store?: EventStore; db?: Db } = {},
): Promise<Harness> {
  const fake = await startFakeSlack();
  const config = loadConfig({
    ...slackEnv(fake),
    LOG_LEVEL: "silent",
    ...opts.env,
  });
  const { logger, logs, waitForLog } = captureLogger();
  const bridge = createSlackBridge(config, logger);
  // No runtime here: the audit channel a workspace's settings would give, from the test's environment.
  bridge.setAuditChannel?.(config.AUDIT_CHANNEL);
  const core = await makeCore(bridge, fake);
  const stores = opts.db ? new WorkspaceStores(opts.db, ENV_WORKSPACE) : undefined;
  const slack = createSlackApp({
    workspaces: oneWorkspace(() => ({ core, ...(stores ? { stores } : {}) })),
    config,
    logger,
    bridge,
    hooks: opts.hooks,
    store: opts.store,
    db: opts.db,
  });
  const { port } = await slack.start({ port: 0, host: "127.0.0.1" });
  const baseUrl = `http://127.0.0.1:${port}`;
  return {
    fake,
    slack,
    bridge,
    req: signedRequests(fake, port as number),
    baseUrl,
    logs,
    waitForLog,
    async close() {
      await slack.stop();
      await fake.close();
    },
  };
}
