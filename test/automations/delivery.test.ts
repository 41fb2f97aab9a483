// Events out (issue 40 §3): deliveries to real loopback receivers through the
// pg-boss queue on the store's database. A 500 then a 200 delivers the same
// event id twice (at least once); a 400 is not retried and is failed at once;
// a private address is refused without AUTOMATIONS_ALLOW_PRIVATE; workspace
// A's hook never receives B's events; the signature verifies; the URL is
// stored sealed and never logged; a Slack workflow's trigger gets the flat
// variables and its 429's Retry-After is waited out; a hanging endpoint
// delays no other hook.
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { PgBoss } from "pg-boss";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  Automations,
  AutomationWorker,
  resealAutomations,
  SIGNATURE_HEADER,
  verifySignature,
  workflowVariables,
} from "../../src/automations/index.ts";
import { urlContext } from "../../src/automations/service.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { AutomationStore } from "../../src/store/automations.ts";
import { purgeWorkspace } from "../../src/store/purge.ts";
import type { TestDb } from "../helpers/db.ts";
import { eventually as until } from "../helpers/eventually.ts";
import { captureLogger } from "../helpers/log.ts";
import { startWorkerStack, type WorkerStack } from "./worker-stack.ts";

/** Waits until `check`'s expectations hold. */
const eventually = (check: () => unknown, o: { timeoutMs?: number } = {}) =>
  until(
    async () => {
      await check();
      return true;
    },
    "the expectations",
    o,
  );

interface Received {
  body: string;
  headers: IncomingMessage["headers"];
  at: number;
}

/**
 * A receiver on 127.0.0.1 answering each request with the next status of `statuses` (the last one repeats);
 * a 429 says Retry-After: `retryAfter` seconds.
 */
async function receiver(
  statuses: number[],
  retryAfter?: number,
): Promise<{ url: string; got: Received[]; close(): Promise<void> }> {
  const got: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => {
      body += c;
    });
    req.on("end", () => {
      got.push({ body, headers: req.headers, at: Date.now() });
      res.statusCode = statuses[Math.min(got.length - 1, statuses.length - 1)] ?? 200;
      if (res.statusCode === 429 && retryAfter !== undefined)
        res.setHeader("retry-after", String(retryAfter));
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook/${randomBytes(8).toString("hex")}`,
    got,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe("automations: delivery through the queue to real receivers", () => {
  let db: TestDb;
  let boss: PgBoss;
  let worker: AutomationWorker;
  const keyringKey = randomBytes(32);
  const keyring = new Keyring(keyringKey);
  const rules = { allowPrivate: true };
  const { logger, logs } = captureLogger();
  const closers: Array<() => Promise<void>> = [];
  const automations = (ws: string) =>
    new Automations({ keyring, rules, queue: () => worker, logger }, new AutomationStore(db, ws));

  /** A receiver answering `statuses` in turn (closed after the file), and a hook of `ws` to it for `event`. */
  async function hookTo(ws: string, event: string, statuses: number[], by = "U0ADMIN") {
    const r = await receiver(statuses);
    closers.push(r.close);
    const a = automations(ws);
    const added = await a.add(event, r.url, by);
    if (!added.ok) throw new Error(added.message);
    return { r, a, added };
  }

  let stack: WorkerStack | undefined;
  beforeAll(async () => {
    stack = await startWorkerStack({
      keyring,
      rules,
      logger,
      firstRetrySeconds: 1,
      pollingIntervalSeconds: 0.5,
      sweepSeconds: 0,
      timeoutMs: 2000,
    });
    ({ db, boss, worker } = stack);
  }, 120_000);
  afterAll(async () => {
    for (const c of closers) await c();
    await stack?.close();
  });

  it("a 500 then a 200: the same event id twice, signed, then delivered", async () => {
    const { r, a, added } = await hookTo("T0A", "conversation.assigned", [500, 200]);
    expect(added.secret).toMatch(/^whsec_/);
    const event = await a.emit("conversation.assigned", {
      inbox_channel: "C0INBOX",
      chat_user_id: 42,
      customer_name: "Lucía Romero",
      assignee: "U0BOB",
      assigned_by: "U0ALICE",
    });
    expect(event).toBeDefined();
    await eventually(() => expect(r.got).toHaveLength(2), { timeoutMs: 30_000 });
    const bodies = r.got.map((g) => JSON.parse(g.body));
    expect(bodies.map((b) => b.id)).toEqual([event!.id, event!.id]);
    expect(bodies[1]).toMatchObject({
      version: 1,
      type: "conversation.assigned",
      workspace: "T0A",
      data: {
        inbox_channel: "C0INBOX",
        chat_user_id: "42",
        customer_name: "Lucía Romero",
        assignee: "U0BOB",
      },
    });
    // The signature verifies with the secret shown once, over the body as sent; not over another body.
    for (const g of r.got) {
      const header = String(g.headers[SIGNATURE_HEADER.toLowerCase()]);
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      expect(verifySignature(added.secret!, header, g.body)).toBe(true);
      expect(verifySignature(added.secret!, header, `${g.body} `)).toBe(false);
    }
    await eventually(async () => {
      const d = await a.store.delivery(added.number, event!.id);
      expect(d).toMatchObject({ state: "delivered", attempts: 2 });
    });
    const [hook] = await a.list();
    expect(hook).toMatchObject({
      lastState: "delivered",
      failures: 0,
      urlMasked: expect.stringMatching(/…$/),
    });
    // Stored sealed: neither the URL nor the secret in the row as written.
    expect(hook!.urlSealed).not.toContain("127.0.0.1");
    expect(hook!.secretSealed).not.toContain(added.secret!);
  }, 60_000);

  it("a 400 is not retried: failed at once, shown on the hook", async () => {
    const { r, a, added } = await hookTo("T0B4", "campaign.started", [400, 200]);
    const event = await a.emit("campaign.started", {
      campaign_id: 7,
      campaign_name: "Spring",
      started_by: "U0A",
    });
    await eventually(async () =>
      expect(await a.store.delivery(added.number, event!.id)).toMatchObject({
        state: "failed",
        attempts: 1,
        lastDetail: "HTTP 400",
      }),
    );
    expect((await a.store.get(added.number))?.failures).toBe(1);
    // Nothing more comes, whatever the queue does next.
    await new Promise((res) => setTimeout(res, 2500));
    expect(r.got).toHaveLength(1);
    // Retry sends it again, once, now that the receiver takes it.
    expect(await a.retry(added.number)).toBe(1);
    await eventually(() => expect(r.got).toHaveLength(2));
    expect(JSON.parse(r.got[1]!.body).id).toBe(event!.id);
  }, 30_000);

  it("workspace A's hook never receives B's events; a conversation hook of one inbox only that inbox's", async () => {
    const ra = await receiver([200]);
    const rb = await receiver([200]);
    const rInbox = await receiver([200]);
    closers.push(ra.close, rb.close, rInbox.close);
    const a = automations("T0WSA");
    const b = automations("T0WSB");
    expect((await a.add("conversation.resolved", ra.url, "U0A")).ok).toBe(true);
    expect((await b.add("conversation.resolved", rb.url, "U0B")).ok).toBe(true);
    expect((await b.add("conversation.resolved", rInbox.url, "U0B", "C0OTHER")).ok).toBe(true);
    const e = await b.emit("conversation.resolved", { inbox_channel: "C0SUPPORT", chat_user_id: 9 });
    await eventually(() => expect(rb.got).toHaveLength(1));
    await new Promise((res) => setTimeout(res, 1500));
    expect(ra.got).toHaveLength(0);
    expect(rInbox.got).toHaveLength(0);
    expect(JSON.parse(rb.got[0]!.body)).toMatchObject({ id: e!.id, workspace: "T0WSB" });
    // A departed workspace's hooks and deliveries go with it.
    const removed = await purgeWorkspace(db, "T0WSB");
    expect(removed["automations.hooks"]).toBe(2);
    expect(await b.list()).toEqual([]);
    expect(await a.list()).toHaveLength(1);
  }, 30_000);

  it("a private address is refused in words without AUTOMATIONS_ALLOW_PRIVATE, and again at delivery", async () => {
    const closed = new Automations(
      { keyring, rules: { allowPrivate: false } },
      new AutomationStore(db, "T0PRIV"),
    );
    for (const url of [
      "https://127.0.0.1/hook",
      "https://10.1.2.3/x",
      "https://[::1]/x",
      "https://localhost/x",
    ]) {
      const out = await closed.add("campaign.started", url, "U0A");
      expect(out).toMatchObject({
        ok: false,
        message: expect.stringMatching(/private, loopback or link-local/),
      });
    }
    expect(await closed.add("campaign.started", "http://example.com/x", "U0A")).toMatchObject({
      ok: false,
      message: "Only https:// addresses can receive events.",
    });
    // Added while allowed, then the deployment stops allowing it: refused at delivery, not sent.
    const { r, a: open, added } = await hookTo("T0PRIV2", "campaign.completed", [200], "U0A");
    const strict = new AutomationWorker({ db, boss, keyring, rules: { allowPrivate: false } });
    const e = await new Automations({ keyring, rules }, new AutomationStore(db, "T0PRIV2")).emit(
      "campaign.completed",
      {
        campaign_id: 1,
      },
    );
    await strict.handle({ workspace: "T0PRIV2", hook: added.number, eventId: e!.id });
    expect(await open.store.delivery(added.number, e!.id)).toMatchObject({
      state: "failed",
      lastDetail: expect.stringMatching(/private/),
    });
    expect(r.got).toHaveLength(0);
  }, 30_000);

  it("a Slack workflow's trigger gets the event's flat variables, exactly; its 429 waited out as Retry-After says", async () => {
    const r = await receiver([429, 200], 3);
    closers.push(r.close);
    const a = automations("T0WF");
    // A trigger's address is hooks.slack.com's: here a loopback receiver stands in for it, kept as a workflow hook.
    const number = await a.store.add({
      event: "conversation.resolved",
      kind: "workflow",
      urlMasked: "https://hooks.slack.com/…",
      inbox: null,
      by: "U0A",
      now: new Date(),
      seal: (n) => ({ url: keyring.seal(r.url, urlContext("T0WF", n)), secret: null }),
    });
    const e = await a.emit("conversation.resolved", {
      inbox_channel: "C0S",
      chat_user_id: 5,
      resolved_by: "U0A",
    });
    await eventually(() => expect(r.got).toHaveLength(2), { timeoutMs: 30_000 });
    // Not before the 3 s the 429 asked for (the first retry would otherwise come after 1 s here).
    expect(r.got[1]!.at - r.got[0]!.at).toBeGreaterThanOrEqual(2900);
    const body = JSON.parse(r.got[1]!.body);
    expect(Object.keys(body)).toEqual(workflowVariables("conversation.resolved"));
    expect(Object.values(body).every((v) => typeof v === "string")).toBe(true);
    expect(body).toMatchObject({
      event_id: e!.id,
      event_type: "conversation.resolved",
      inbox_channel: "C0S",
    });
    expect(r.got[1]!.headers[SIGNATURE_HEADER.toLowerCase()]).toBeUndefined();
    await eventually(async () =>
      expect(await a.store.delivery(number, e!.id)).toMatchObject({ state: "delivered", attempts: 2 }),
    );
  }, 30_000);

  it("an endpoint that hangs delays no other hook: the healthy one gets the event meanwhile; the hung one is retried", async () => {
    const hung: Received[] = [];
    const held: Array<() => void> = [];
    const hanging = createServer((req, res) => {
      hung.push({ body: "", headers: req.headers, at: Date.now() });
      held.push(() => res.destroy());
    });
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    closers.push(async () => {
      for (const h of held) h();
      await new Promise<void>((r) => hanging.close(() => r()));
    });
    const healthy = await receiver([200]);
    closers.push(healthy.close);
    const a = automations("T0HANG");
    const port = (hanging.address() as AddressInfo).port;
    expect((await a.add("import.finished", `http://127.0.0.1:${port}/slow`, "U0A")).ok).toBe(true);
    expect((await a.add("import.finished", healthy.url, "U0A")).ok).toBe(true);
    // The hanging hook is first: its attempt starts before the healthy one's.
    const sent = Date.now();
    await a.emit("import.finished", { file_name: "a.csv", imported: 3, failed: 0 });
    await eventually(() => expect(healthy.got).toHaveLength(1));
    // Well before the hanging attempt's own time limit (2 s in this worker).
    expect(healthy.got[0]!.at - sent).toBeLessThan(1900);
    // The hung attempt ends at its time limit and is tried again.
    await eventually(() => expect(hung.length).toBeGreaterThanOrEqual(2), { timeoutMs: 20_000 });
  }, 30_000);

  it("retried for 24 hours from the event, then failed; the first retry within 30 s by default", async () => {
    const r = await receiver([503]);
    closers.push(r.close);
    // No queue: only the attempts made here.
    const a = new Automations({ keyring, rules }, new AutomationStore(db, "T0LATE"));
    const added = await a.add("campaign.started", r.url, "U0A");
    if (!added.ok) throw new Error(added.message);
    const e = await a.emit("campaign.started", { campaign_id: 3 });
    const job = { workspace: "T0LATE", hook: added.number, eventId: e!.id };
    const at = (ms: number) =>
      new AutomationWorker({ db, boss, keyring, rules, now: () => new Date(Date.now() + ms) });
    await at(0).handle(job);
    const first = (await a.store.delivery(added.number, e!.id))!;
    expect(first).toMatchObject({ state: "pending", attempts: 1, lastDetail: "HTTP 503" });
    expect(first.nextAt.getTime() - Date.now()).toBeLessThanOrEqual(30_000);
    // 23 hours on: still retried.
    await at(23 * 3600_000 + 60_000).handle(job);
    expect(await a.store.delivery(added.number, e!.id)).toMatchObject({ state: "pending", attempts: 2 });
    // 24 hours on: kept as failed, and nothing more is tried.
    await at(24 * 3600_000 + 60_000).handle(job);
    expect(await a.store.delivery(added.number, e!.id)).toMatchObject({
      state: "failed",
      attempts: 3,
      lastDetail: "HTTP 503; retried for 24 hours",
    });
    await at(25 * 3600_000).handle(job);
    expect(r.got).toHaveLength(3);
    expect((await a.store.get(added.number))?.failures).toBe(1);
  });

  it("a rotated SWITCHBOARD_SECRET_KEY: hooks sealed with the previous key are sealed again and open with the new one alone", async () => {
    const a = automations("T0ROT");
    const added = await a.add("campaign.started", "http://127.0.0.1:9/rotate", "U0A");
    if (!added.ok) throw new Error(added.message);
    const next = randomBytes(32);
    const rotating = new Keyring(next, keyringKey);
    expect(await resealAutomations(db, rotating)).toBeGreaterThanOrEqual(1);
    // Sealed again: nothing left to do, and the new key alone opens the hook (not the old one).
    expect(await resealAutomations(db, rotating)).toBe(0);
    const hook = (await a.store.get(added.number))!;
    const opened = new Automations({ keyring: new Keyring(next), rules }, new AutomationStore(db, "T0ROT"));
    expect(new Keyring(next).open(hook.urlSealed, urlContext("T0ROT", added.number)).value).toBe(
      "http://127.0.0.1:9/rotate",
    );
    expect(await opened.rotate(added.number)).toMatch(/^whsec_/);
    expect(() => keyring.open(hook.urlSealed, urlContext("T0ROT", added.number))).toThrow();
  });

  it("no log line holds a hook's URL", () => {
    const text = JSON.stringify(logs);
    expect(logs.length).toBeGreaterThan(0);
    expect(text).not.toMatch(/\/hook\/[0-9a-f]{16}/);
  });
});
