// startSandbox(): the embedded stand-in of the External Messaging API, on
// 127.0.0.1 and a free port by default. Its data lives in schema `sandbox`
// of the given database (or an in-memory PGlite it opens and closes itself).
// It serves several organizations, one per key: the first one's keys are the
// options' (SANDBOX_API_KEY, SANDBOX_READ_KEY); createOrganization() makes more.

import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { toE164 } from "../api/schemas.ts";
import { type Config, configSchema } from "../platform/config.ts";
import { type Db, openDb } from "../store/db.ts";
import { migrate } from "../store/migrate.ts";
import { hashKey } from "../store/sandbox/account.ts";
import { keepDemoWindow } from "../store/sandbox/conversations.ts";
import { SANDBOX_MIGRATIONS } from "../store/sandbox/migrations.ts";
import { SandboxStore } from "../store/sandbox/store.ts";
import { BASE_PATH, buildApp } from "./app.ts";
import {
  createOrganization,
  keysOf,
  makeOrganization,
  type NewOrganization,
  type OrganizationOptions,
} from "./organizations.ts";
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
  /** When a quiet sandbox's timer skips ticks (tests): default ACTIVE_MS and QUIET_TICK_MS. */
  quiet?: { activeMs?: number; tickMs?: number };
  /** Pending recipients each running campaign sends per tick; default 200. */
  campaignBatch?: number;
  /** Largest import file; default IMPORT_MAX_BYTES's default. */
  importMaxBytes?: number;
  /** The sandbox's clock; default the real one. */
  now?: () => Date;
  /** Seed the first organization with the demo data when the database has none; default true (false: its channels only). */
  seed?: boolean;
  logger?: Logger | false;
}

export type { NewOrganization, OrganizationOptions };

/** Whose channels or inbound message: an organization by id, or the organization of a key. */
export type OrganizationRef = { orgId: number } | { apiKey: string };

export interface Sandbox {
  /** Base URL ending in /v1, for example http://127.0.0.1:4010/v1. */
  url: string;
  /**
   * Base URL of the sandbox's controls outside the API (POST {controlUrl}/chat-users/{id}/messages: a chat user
   * writes in; POST {controlUrl}/organizations: a new organization).
   */
  controlUrl: string;
  /** The first organization's read-write key (the `apiKey` option). */
  apiKey: string;
  /** The first organization's read-only key (the `readKey` option). */
  readKey: string;
  /** The first organization's id. */
  orgId: number;
  db: Db;
  close(): Promise<void>;
  /**
   * A new organization with two fresh keys (`sbx_…`), returned this once (the
   * sandbox keeps only their hashes), seeded with the demo data (default) or
   * only its channels (`seed: "empty"`).
   */
  createOrganization(opts?: OrganizationOptions): Promise<NewOrganization>;
  /** The organization of a key, or undefined when the key is none of this sandbox's. */
  organizationOf(apiKey: string): Promise<{ id: number; name: string } | undefined>;
  /**
   * An organization's channels with their names (the API has no way to list
   * them): the first organization's by default. Throws for an unknown key.
   */
  channels(of?: OrganizationRef): Promise<Array<{ id: number; name: string }>>;
  /** One step of templates, messages and campaigns, as the timer would do. */
  tick(): Promise<void>;
  /** The timer's ticks run and skipped (a quiet sandbox skips them). */
  ticks(): { run: number; skipped: number };
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
    /** Whose chat user writes in: default the first organization; the channel defaults to its first one. */
    of?: OrganizationRef;
  }): Promise<{ id: number; chatUserId: number; conversationId: number }>;
}

/** The sandbox's options from the settings (SANDBOX_*), as Switchboard embeds it and `npm run sandbox` runs it. */
export function sandboxSettings(
  config: Pick<
    Config,
    | "SANDBOX_API_KEY"
    | "SANDBOX_READ_KEY"
    | "SANDBOX_READ_LIMIT"
    | "SANDBOX_WRITE_LIMIT"
    | "SANDBOX_TEMPLATE_APPROVAL_MS"
    | "SANDBOX_CAMPAIGN_TICK_MS"
  >,
): SandboxOptions {
  return {
    apiKey: config.SANDBOX_API_KEY,
    readKey: config.SANDBOX_READ_KEY,
    readLimit: config.SANDBOX_READ_LIMIT,
    writeLimit: config.SANDBOX_WRITE_LIMIT,
    templateApprovalMs: config.SANDBOX_TEMPLATE_APPROVAL_MS,
    campaignTickMs: config.SANDBOX_CAMPAIGN_TICK_MS,
  };
}

/** A sandbox is ticked each second for this long after its last write (a message's sent → delivered → read). */
export const ACTIVE_MS = 10_000;
/** A quiet sandbox is still ticked this often (what a write outside its API may have left). */
export const QUIET_TICK_MS = 30_000;

export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const defaults = configSchema.parse({});
  const now = opts.now ?? (() => new Date());
  const ownDb = !opts.db;
  const db = opts.db ?? (await openDb({}));
  try {
    // Its own list, not the store's registry: the sandbox also runs alone (`npm run sandbox`).
    await migrate(db, SANDBOX_MIGRATIONS);
    const store = new SandboxStore(db, now);
    let first = await store.account.firstOrganization();
    if (!first) {
      first = await makeOrganization(store, now(), {
        seed: opts.seed === false ? "empty" : "demo",
        first: true,
      });
    } else if (opts.seed !== false) {
      // Some demo conversations are inside the 24-hour window at each start, not only the first.
      await keepDemoWindow(db, now());
    }
    const firstOrgId = first.id;

    // The first organization's keys are the options' (kept hashed); those of an earlier start stop working.
    const apiKey = opts.apiKey ?? defaults.SANDBOX_API_KEY;
    const readKey = opts.readKey ?? defaults.SANDBOX_READ_KEY;
    await store.account.setStartKeys(firstOrgId, keysOf(apiKey, readKey));
    const app = await buildApp(
      {
        store,
        firstOrgId,
        now,
        templateApprovalMs: opts.templateApprovalMs ?? defaults.SANDBOX_TEMPLATE_APPROVAL_MS,
        importMaxBytes: opts.importMaxBytes ?? defaults.IMPORT_MAX_BYTES,
      },
      {
        readLimit: opts.readLimit ?? defaults.SANDBOX_READ_LIMIT,
        writeLimit: opts.writeLimit ?? defaults.SANDBOX_WRITE_LIMIT,
        logger: opts.logger ?? false,
      },
    );
    // A write through the API wakes the clock (below).
    let lastWrite = Date.now();
    const wrote = () => {
      lastWrite = Date.now();
    };
    app.addHook("onRequest", async (req) => {
      if (req.method !== "GET" && req.method !== "HEAD") wrote();
    });
    await app.listen({ host: opts.host ?? "127.0.0.1", port: opts.port ?? 0 });
    const address = app.server.address() as AddressInfo;
    const host = address.family === "IPv6" ? `[${address.address}]` : address.address;

    const batch = opts.campaignBatch ?? 200;
    // Ticks never overlap: a slow one makes the next wait, not run beside it.
    let running: Promise<void> = Promise.resolve();
    // A quiet sandbox is not ticked each second (its statements run on the thread that acks Slack when
    // embedded): after ACTIVE_MS without a write and with no campaign running, the timer skips ticks until
    // a write, the next template review or scheduled start (asked once), or QUIET_TICK_MS since the last.
    let lastTick = Number.NEGATIVE_INFINITY;
    let campaignsRunning = true;
    let nextDue = 0;
    const activeMs = opts.quiet?.activeMs ?? ACTIVE_MS;
    const quietTickMs = opts.quiet?.tickMs ?? QUIET_TICK_MS;
    const counted = { run: 0, skipped: 0 };
    const tick = () => {
      running = running.then(async () => {
        const r = await store.delivery.tick(batch, SENDABLE_STATUSES);
        lastTick = Date.now();
        // What moved this tick moves on at the next (sent → delivered → read): as busy as a write.
        if (r.changed > 0) wrote();
        campaignsRunning = r.running > 0;
        nextDue =
          campaignsRunning || lastTick - lastWrite < activeMs
            ? 0
            : ((await store.delivery.nextDue())?.getTime() ?? Number.POSITIVE_INFINITY);
      });
      return running;
    };
    const quiet = () => {
      const t = Date.now();
      return (
        !campaignsRunning &&
        t - lastWrite >= activeMs &&
        now().getTime() < nextDue &&
        t - lastTick < quietTickMs
      );
    };
    const tickMs = opts.campaignTickMs ?? defaults.SANDBOX_CAMPAIGN_TICK_MS;
    const timer =
      tickMs > 0
        ? setInterval(() => {
            if (quiet()) {
              counted.skipped += 1;
              return;
            }
            counted.run += 1;
            tick().catch((err) => {
              if (opts.logger) opts.logger.error({ err }, "sandbox tick failed");
            });
          }, tickMs)
        : undefined;
    timer?.unref();

    const organizationOf = async (key: string) => {
      const row = await store.account.keyByHash(hashKey(key));
      const org = row && (await store.account.organization(row.org_id));
      return org ? { id: org.id, name: org.name } : undefined;
    };
    /** The organization `of` names (default the first), as its data. */
    const orgOf = async (of: OrganizationRef | undefined) => {
      if (!of) return store.forOrg(firstOrgId);
      if ("orgId" in of) return store.forOrg(of.orgId);
      const org = await organizationOf(of.apiKey);
      if (!org) throw new Error("the API key is not a key of this sandbox");
      return store.forOrg(org.id);
    };

    let closed = false;
    return {
      url: `http://${host}:${address.port}${BASE_PATH}`,
      controlUrl: `http://${host}:${address.port}${CONTROL_PATH}`,
      apiKey,
      readKey,
      orgId: firstOrgId,
      db,
      tick,
      ticks: () => ({ ...counted }),
      createOrganization: (o) => {
        wrote();
        return createOrganization(store, now(), o);
      },
      organizationOf,
      async channels(of) {
        const org = await orgOf(of);
        return (await org.account.channels()).map((c) => ({ id: Number(c.id), name: c.name }));
      },
      async inbound({ phone, text, channelId: given, needHuman, of }) {
        wrote();
        const e164 = toE164(phone);
        if (!e164) throw new Error(`inbound: ${phone} is not a phone number in E.164 format`);
        const org = await orgOf(of);
        const channelId = given ?? (await org.account.channels())[0]?.id;
        if (channelId === undefined || !(await org.account.channel(channelId)))
          throw new Error(`inbound: organization ${org.org} has no channel ${given ?? ""}`.trim());
        const contact = await org.contacts.byPhone(e164);
        const user =
          (await org.chatUsers.byPhone(e164)) ??
          (await org.chatUsers.create({
            type: "phonechat",
            channelId,
            contactId: contact?.id,
            name: [contact?.first_name, contact?.last_name].filter(Boolean).join(" ") || undefined,
            phone: e164,
          }));
        const conversation = await org.conversations.open(user.id, channelId);
        const m = await org.messages.recordInbound({
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
