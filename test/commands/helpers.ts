// Shared set-up of the command-core tests: the real sandbox behind a small
// counting HTTP forwarder (so a test can say "no request was made"), the real
// MessagingClient, a fresh store, and a check that every reply is a message
// Slack would accept.
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { KnownBlock } from "@slack/types";
import { afterAll, beforeAll, expect } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { type CoreOptions, createCommandCore, type SwitchboardCore } from "../../src/commands/core.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import type { AuditEntry } from "../../src/store/audit.ts";
import type { Db } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SWITCHBOARD_MIGRATIONS } from "../../src/store/schema.ts";
import { openTestDb } from "../helpers/db.ts";
import { type Sandbox, type SandboxOptions, withSandbox } from "../helpers/sandbox.ts";

export interface Forwarder {
  url: string;
  /** Requests seen, as `METHOD /path?query` (path after /v1). */
  requests: string[];
  close(): Promise<void>;
}

/** A plain HTTP forwarder to `target` that records each request. */
export async function countingForwarder(target: string): Promise<Forwarder> {
  const base = new URL(target);
  const requests: string[] = [];
  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const server: Server = createServer(async (req, res) => {
    requests.push(`${req.method} ${req.url}`);
    try {
      const body = await readBody(req);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) {
        // The body is forwarded whole: a streamed request's chunked encoding does not apply to it.
        if (
          typeof v === "string" &&
          !["host", "connection", "content-length", "transfer-encoding"].includes(k)
        )
          headers[k] = v;
      }
      const upstream = await fetch(`${base.origin}${req.url}`, {
        method: req.method,
        headers,
        body: body.length ? body : undefined,
      });
      const out = Buffer.from(await upstream.arrayBuffer());
      const outHeaders: Record<string, string> = {};
      upstream.headers.forEach((v, k) => {
        if (!["content-length", "transfer-encoding", "connection", "content-encoding"].includes(k))
          outHeaders[k] = v;
      });
      res.writeHead(upstream.status, outHeaders);
      res.end(out);
    } catch (err) {
      res.writeHead(502);
      res.end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const SLACK_USER: Actor = {
  userId: "U0WRITER",
  userName: "writer",
  channelId: "C0GENERAL",
  via: "slack",
};
export const SHELL: Actor = { userId: "shell", via: "shell" };

export interface Harness {
  sandbox: Sandbox;
  forwarder: Forwarder;
  db: Db;
  client: MessagingClient;
  core: SwitchboardCore;
  audits: AuditEntry[];
  /** Runs a line and checks the reply is valid for Slack. */
  run(line: string, actor?: Actor): Promise<Reply>;
  /** A new core (same store and API), as after a restart. */
  newCore(opts?: Partial<CoreOptions>): SwitchboardCore;
}

export function useHarness(
  opts: { sandbox?: SandboxOptions; core?: Partial<CoreOptions> } = {},
): () => Harness {
  const getSandbox = withSandbox({
    campaignTickMs: 0,
    readLimit: 100_000,
    writeLimit: 100_000,
    ...opts.sandbox,
  });
  let h: Harness | undefined;
  beforeAll(async () => {
    const sandbox = getSandbox();
    const forwarder = await countingForwarder(sandbox.url);
    const db = await openTestDb();
    await migrate(db, SWITCHBOARD_MIGRATIONS);
    const client = new MessagingClient({
      baseUrl: `${forwarder.url}/v1`,
      apiKey: sandbox.apiKey,
      readPerMinute: 100_000,
      writePerMinute: 100_000,
    });
    const audits: AuditEntry[] = [];
    const newCore = (more: Partial<CoreOptions> = {}) =>
      createCommandCore({
        api: client,
        db,
        apiKey: sandbox.apiKey,
        defaultChannelId: 1,
        defaultCountry: "US",
        onAudit: (e) => {
          audits.push(e);
        },
        ...opts.core,
        ...more,
      });
    const core = newCore();
    h = {
      sandbox,
      forwarder,
      db,
      client,
      core,
      audits,
      newCore,
      async run(line, actor = SLACK_USER) {
        const reply = await core.run(line, actor);
        expectSlackValid(reply);
        return reply;
      },
    };
  });
  afterAll(async () => {
    await h?.client.close();
    await h?.forwarder.close();
    await h?.db.close();
  });
  return () => {
    if (!h) throw new Error("harness not ready");
    return h;
  };
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
