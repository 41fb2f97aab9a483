// Shared set-up of the command-core tests: the test stack (test/helpers/stack.ts)
// with the sandbox behind its counting proxy (so a test can say "no request was
// made"), and a check that every reply is a message Slack would accept. By
// default in many-workspace mode: the tests drive workspace A's core
// (`workspace`), and B, on the same deployment, can be asked whether it saw
// anything (itLeavesBUntouched(h), test/helpers/stack-many.ts). The shell's own
// tests ask for single mode, the environment's one workspace.

import type { KnownBlock } from "@slack/types";
import { afterAll, beforeAll, expect } from "vitest";
import type { MessagingClient } from "../../src/api/client.ts";
import { type CoreOptions, createCommandCore, type SwitchboardCore } from "../../src/commands/core.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import type { WorkspaceId } from "../../src/domain/workspace.ts";
import { createSwitchboard, type Switchboard } from "../../src/host/app.ts";
import { loadConfig } from "../../src/platform/config.ts";
import type { AuditEntry } from "../../src/store/audit.ts";
import type { Db } from "../../src/store/db.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { captureLogger } from "../helpers/log.ts";
import type { Sandbox, SandboxOptions } from "../helpers/sandbox.ts";
import { type StackMode, useStack } from "../helpers/stack.ts";
import type { StackWorkspace } from "../helpers/workspaces-stack.ts";

export const SLACK_USER: Actor = {
  userId: "U0WRITER",
  userName: "writer",
  channelId: "C0GENERAL",
  via: "slack",
};
export const SHELL: Actor = { userId: "shell", via: "shell" };

export interface Harness {
  mode: StackMode;
  /** The workspace the tests drive: A in many-workspace mode, `env` in single mode. */
  workspace: WorkspaceId;
  /** Many-workspace mode: workspace B, which should see nothing, and the fake Slack both were installed from. */
  b?: StackWorkspace;
  fake?: FakeSlack;
  sandbox: Sandbox;
  forwarder: Forwarder;
  db: Db;
  client: MessagingClient;
  core: SwitchboardCore;
  audits: AuditEntry[];
  /** Runs a line and checks the reply is valid for Slack. */
  run(line: string, actor?: Actor): Promise<Reply>;
  /** A new core (same store and API), as after a restart: `workspace`, another workspace's stores (default the harness's). */
  newCore(opts?: Partial<CoreOptions> & { workspace?: string }): SwitchboardCore;
}

/** The counting proxy in front of the sandbox: `url` is its origin (paths start with /v1). */
export interface Forwarder {
  url: string;
  /** Requests seen, as `METHOD /v1/path?query`. */
  requests: string[];
}

export function useHarness(opts: { sandbox?: SandboxOptions; mode?: StackMode } = {}): () => Harness {
  const audits: AuditEntry[] = [];
  const stack = useStack({
    ...(opts.mode ? { mode: opts.mode } : {}),
    sandbox: { campaignTickMs: 0, readLimit: 100_000, writeLimit: 100_000, ...opts.sandbox },
    sandboxDb: "own",
    proxy: true,
    env: {
      API_READ_LIMIT: "100000",
      API_WRITE_LIMIT: "100000",
      MESSAGING_CHANNEL_ID: "1",
      DEFAULT_COUNTRY: "US",
    },
    onAudit: (e) => {
      audits.push(e);
    },
  });
  let h: Harness | undefined;
  beforeAll(() => {
    const { mode, workspace: own, b, fake, sandbox, proxy, db, client, core, apiKey, switchboard } = stack();
    h = {
      mode,
      workspace: own,
      b,
      fake,
      sandbox,
      forwarder: { url: proxy!.origin, requests: proxy!.seen },
      db,
      client,
      core,
      audits,
      newCore: ({ workspace, ...more } = {}) =>
        createCommandCore({
          api: client,
          stores: new WorkspaceStores(db, workspace ?? own),
          apiKey,
          defaultChannelId: 1,
          defaultCountry: "US",
          reports: switchboard.reports,
          onAudit: (e) => {
            audits.push(e);
          },
          ...more,
        }),
      async run(line, actor = SLACK_USER) {
        const reply = await core.run(line, actor);
        expectSlackValid(reply);
        return reply;
      },
    };
  });
  return () => {
    if (!h) throw new Error("harness not ready");
    return h;
  };
}

/**
 * Switchboard as it starts with no settings but its writers (the embedded sandbox, no Slack), on a fresh test
 * database, for the file's tests: `sb()` and `db()` are for tests and hooks; `restart()` closes it and starts
 * it again on the same database.
 */
export function useOutOfTheBox(writers: string) {
  const config = loadConfig({
    LOG_LEVEL: "silent",
    SANDBOX_CAMPAIGN_TICK_MS: "3600000",
    SWITCHBOARD_WRITERS: writers,
  });
  let db: TestDb | undefined;
  let sb: Switchboard | undefined;
  const start = async () => {
    sb = await createSwitchboard(config, { logger: captureLogger().logger, db: db! });
  };
  beforeAll(async () => {
    db = await openTestDb();
    await start();
  }, 120_000);
  afterAll(async () => {
    await sb?.close();
    await db?.close();
  });
  return {
    sb: () => sb!,
    db: () => db!,
    async restart() {
      await sb!.close();
      await start();
    },
  };
}

/**
 * A MARKETING template in English on channel 1, approved by a sync, named `name` and a number of the
 * moment (so a rerun on the same sandbox makes a new one).
 */
export async function approvedTemplate(
  client: MessagingClient,
  name: string,
  bodyText: string,
  bodyExamples: Record<string, string>,
) {
  const t = await client.createTemplate({
    integrationId: 1,
    name: `${name}_${Date.now() % 100000}`,
    language: "en",
    category: "MARKETING",
    bodyText,
    bodyExamples,
  });
  await client.syncTemplates(1);
  return t;
}

/** What the fake Slack of the Slack tests refuses, checked here for every reply of the core. */
export function expectSlackValid(reply: Reply) {
  expect(reply.text.trim().length, "fallback text").toBeGreaterThan(0);
  expect(reply.blocks.length).toBeLessThanOrEqual(50);
  const blockIds = new Set<string>();
  const actionIds = new Set<string>();
  for (const b of reply.blocks as KnownBlock[]) {
    if (b.block_id) {
      expect(blockIds.has(b.block_id), `duplicate block_id ${b.block_id}`).toBe(false);
      blockIds.add(b.block_id);
    }
    if (b.type === "section") {
      if (b.text) expect(b.text.text.length).toBeLessThanOrEqual(3000);
      expect(b.fields?.length ?? 0).toBeLessThanOrEqual(10);
      for (const f of b.fields ?? []) expect(f.text.length).toBeLessThanOrEqual(2000);
    }
    if (b.type === "header") expect(b.text.text.length).toBeLessThanOrEqual(150);
    if (b.type === "actions") {
      for (const e of b.elements) {
        if (e.type !== "button") continue;
        expect(e.text.text.length).toBeLessThanOrEqual(75);
        expect((e.value ?? "").length).toBeLessThanOrEqual(2000);
        expect(actionIds.has(e.action_id!), `duplicate action_id ${e.action_id}`).toBe(false);
        actionIds.add(e.action_id!);
      }
    }
  }
}

/** The reply as one string (blocks and fallback), for matching. */
export const all = (r: Reply) => `${r.text}\n${JSON.stringify(r.blocks)}`;
