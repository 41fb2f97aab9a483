// startSandbox(): the embedded stand-in of the External Messaging API, on
// 127.0.0.1 and a free port by default. Its data lives in schema `sandbox`
// of the given database (or an in-memory PGlite it opens and closes itself).

import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { toE164 } from "../api/schemas.ts";
import { configSchema } from "../config.ts";
import { type Db, openDb } from "../store/db.ts";
import { migrate } from "../store/migrate.ts";
import { keepDemoWindow } from "../store/sandbox/conversations.ts";
import { SANDBOX_MIGRATIONS } from "../store/sandbox/migrations.ts";
import { seedSandbox } from "../store/sandbox/seed.ts";
import { SandboxStore } from "../store/sandbox/store.ts";
import { BASE_PATH, buildApp } from "./app.ts";
import type { ApiKey } from "./context.ts";
import { SENDABLE_STATUSES } from "./routes/campaigns.ts";
import { CONTROL_PATH } from "./routes/control.ts";

export interface SandboxOptions {
  db?: Db;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: a free port. */
  port?: number;
  /** Read and write key; default SANDBOX_API_KEY's default. */
  apiKey?: string;
  /** Read-only key; default SANDBOX_READ_KEY's default. */
  readKey?: string;
  /** Reads (GET) a minute per key; default 300. */
  readLimit?: number;
  /** Writes a minute per key; default 60. */
  writeLimit?: number;
  /** Delay before a created template is approved; default 30 000 ms. */
  templateApprovalMs?: number;
  /** Pace of the automatic tick; default 1 000 ms; 0 turns the timer off (tests call tick()). */
  campaignTickMs?: number;
  /** Pending recipients each running campaign sends per tick; default 200. */
  campaignBatch?: number;
  /** Largest import file; default IMPORT_MAX_BYTES's default. */
  importMaxBytes?: number;
  /** The sandbox's clock; default the real one. */
  now?: () => Date;
  /** Seed an empty database on start; default true. */
  seed?: boolean;
  logger?: Logger | false;
}

export interface Sandbox {
  /** Base URL ending in /v1, for example http://127.0.0.1:4010/v1. */
  url: string;
  /** Base URL of the sandbox's controls outside the API (POST {controlUrl}/chat-users/{id}/messages: a chat user writes in). */
  controlUrl: string;
  apiKey: string;
  readKey: string;
  db: Db;
  close(): Promise<void>;
  /** The organization's channels with their names (the API has no way to list them). */
  channels(): Promise<Array<{ id: number; name: string }>>;
  /** One step of templates, messages and campaigns, as the timer would do. */
  tick(): Promise<void>;
  /**
   * Simulates a person writing in (there is no such API operation): opens the
   * 24-hour window for that phone. Creates the phonechat chat user when needed.
   */
  inbound(message: {
    phone: string;
    text: string;
    channelId?: number;
    /** The person asks for a human (the chat user's needHuman is set). */
    needHuman?: boolean;
  }): Promise<{ id: number; chatUserId: number; conversationId: number }>;
}

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const defaults = configSchema.parse({});
  const now = opts.now ?? (() => new Date());
  const ownDb = !opts.db;
  const db = opts.db ?? (await openDb({}));
  try {
    // Its own list, not the store's registry: the sandbox also runs alone (`npm run sandbox`).
    await migrate(db, SANDBOX_MIGRATIONS);
    const store = new SandboxStore(db, now);
    if (opts.seed !== false) {
      if (await store.account.isEmpty()) await seedSandbox(db, now());
      // Some demo conversations are inside the 24-hour window at each start, not only the first.
      else await keepDemoWindow(db, now());
    }

    const apiKey = opts.apiKey ?? defaults.SANDBOX_API_KEY;
    const readKey = opts.readKey ?? defaults.SANDBOX_READ_KEY;
    const keys: ApiKey[] = [
      { name: "Sandbox key (read, write)", secret: apiKey, scopes: ["read", "write"] },
      { name: "Sandbox key (read only)", secret: readKey, scopes: ["read"] },
    ];
    const app = await buildApp(
      {
        store,
        now,
        templateApprovalMs: opts.templateApprovalMs ?? defaults.SANDBOX_TEMPLATE_APPROVAL_MS,
        importMaxBytes: opts.importMaxBytes ?? defaults.IMPORT_MAX_BYTES,
      },
      {
        keys,
        readLimit: opts.readLimit ?? defaults.SANDBOX_READ_LIMIT,
        writeLimit: opts.writeLimit ?? defaults.SANDBOX_WRITE_LIMIT,
        logger: opts.logger ?? false,
      },
    );
    await app.listen({ host: opts.host ?? "127.0.0.1", port: opts.port ?? 0 });
    const address = app.server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

    const batch = opts.campaignBatch ?? 200;
    // Ticks never overlap: a slow one makes the next wait, not run beside it.
    let running: Promise<void> = Promise.resolve();
    const tick = () => {
      running = running.then(() => store.delivery.tick(batch, SENDABLE_STATUSES));
      return running;
    };
    const tickMs = opts.campaignTickMs ?? defaults.SANDBOX_CAMPAIGN_TICK_MS;
    const timer =
      tickMs > 0
        ? setInterval(() => {
            tick().catch((err) => {
              if (opts.logger) opts.logger.error({ err }, "sandbox tick failed");
            });
          }, tickMs)
        : undefined;
    timer?.unref();

    let closed = false;
    return {
      url: `http://${host}:${address.port}${BASE_PATH}`,
      controlUrl: `http://${host}:${address.port}${CONTROL_PATH}`,
      apiKey,
      readKey,
      db,
      tick,
      async channels() {
        return (await store.account.channels()).map((c) => ({ id: Number(c.id), name: c.name }));
      },
      async inbound({ phone, text, channelId = 1, needHuman }) {
        const e164 = toE164(phone);
        if (!e164) throw new Error(`inbound: ${phone} is not a phone number in E.164 format`);
        const contact = await store.contacts.byPhone(e164);
        const user =
          (await store.chatUsers.byPhone(e164)) ??
          (await store.chatUsers.create({
            type: "phonechat",
            channelId,
            contactId: contact?.id,
            name: [contact?.first_name, contact?.last_name].filter(Boolean).join(" ") || undefined,
            phone: e164,
          }));
        const conversation = await store.conversations.open(user.id, channelId);
        const m = await store.messages.recordInbound({
          conversationId: conversation.id,
          chatUserId: user.id,
          channelId,
          text,
          needHuman,
        });
        return { id: m.id, chatUserId: user.id, conversationId: conversation.id };
      },
      async close() {
        if (closed) return;
        closed = true;
        if (timer) clearInterval(timer);
        await running.catch(() => {});
        await app.close();
        if (ownDb) await db.close();
      },
    };
  } catch (err) {
    if (ownDb) await db.close().catch(() => {});
    throw err;
  }
}
