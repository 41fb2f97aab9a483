// Automations benchmark (issue 40 §4): Switchboard's events out, on real
// parts: the sandbox API, the store (PGlite; a fresh PostgreSQL database when
// DATABASE_URL is set), the inbox engine, the automations worker on pg-boss
// with the app's own settings (src/host/parts.ts: concurrency 8, a poll a
// second, 10 s an attempt), and receivers on 127.0.0.1
// (AUTOMATIONS_ALLOW_PRIVATE=1). Three measures, each beside a bare POST to
// the same receiver from the same process:
//   (a) the delay from the inbox poll that saw a customer's message to its
//       `message.received` POST arriving (p50, p99; goal p99 ≤ 1 s);
//   (b) 1,000 events in a minute to one plain endpoint: how many never
//       arrived (goal 0) and how many arrived twice (reported), and their delay;
//   (c) an endpoint that never answers beside a healthy one, each event to
//       both: the healthy one's delay (goal p99 ≤ 1 s).
//
//   npx tsx bench/automations.bench.ts             the full run (about 6 minutes)
//   BENCH_AUTOMATIONS_QUICK=1 npx tsx bench/…      a short one (fewer rounds and events)
//   run() from bench/run.ts returns the rows

import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { PgBoss } from "pg-boss";
import { AUTOMATIONS_BOSS, Automations, AutomationWorker } from "../src/automations/index.ts";
import { ENV_WORKSPACE } from "../src/domain/workspace.ts";
import { Keyring } from "../src/platform/secrets.ts";
import { InboxPoller } from "../src/slack/features/inbox/io.ts";
import { inboxEventsTo } from "../src/slack/features/inbox/runtime.ts";
import { createBoss } from "../src/store/boss.ts";
import { type Db, openDb } from "../src/store/db.ts";
import { migrateStore } from "../src/store/migrations.ts";
import { WorkspaceStores } from "../src/store/workspace-stores.ts";
import { freshDatabase, latencies } from "./processes.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { benchClient, runWhenMain, startBenchSandbox } from "./setup.ts";

const QUICK = process.env.BENCH_AUTOMATIONS_QUICK === "1";
/** (a): customer messages, one a poll, at moments unrelated to the worker's polls. */
const ROUNDS = Number(process.env.BENCH_AUTOMATIONS_ROUNDS ?? (QUICK ? 20 : 120));
/** (b): events to one endpoint, spread evenly over LOAD_SECONDS. */
const LOAD_EVENTS = Number(process.env.BENCH_AUTOMATIONS_EVENTS ?? (QUICK ? 200 : 1000));
const LOAD_SECONDS = QUICK ? 12 : 60;
/** (c): one event a second, each to the hanging endpoint and the healthy one. */
const HANG_SECONDS = QUICK ? 15 : 60;
/** How long after its last event a phase waits for the deliveries to arrive. */
const DRAIN_MS = QUICK ? 60_000 : 180_000;

const CHANNEL = "C0BENCH";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round1 = (n: number) => Math.round(n * 10) / 10;

interface Receiver {
  url: string;
  /** Arrival times (performance.now(), the body read) by event id; an id twice: two entries. */
  got: Map<string, number[]>;
  /** message_text of each message.received, with its arrival. */
  texts: Map<string, number>;
  total(): number;
  close(): Promise<void>;
}

/** A receiver on 127.0.0.1: answers 200 at once, or never (`hang`). */
async function receiver(hang = false): Promise<Receiver> {
  const got = new Map<string, number[]>();
  const texts = new Map<string, number>();
  let total = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      const at = performance.now();
      total++;
      try {
        const e = JSON.parse(body) as { id?: string; data?: { message_text?: string } };
        if (e.id) got.set(e.id, [...(got.get(e.id) ?? []), at]);
        if (e.data?.message_text) texts.set(e.data.message_text, at);
      } catch {
        // a bare POST's body is not an event
      }
      if (!hang) res.end();
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook/${randomBytes(6).toString("hex")}`,
    got,
    texts,
    total: () => total,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

/** One bare POST of a small JSON body, as an attempt sends it: its time to the answer, in ms. */
async function barePost(url: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ version: 1, id: "bare", type: "bare", data: {} }),
  });
  await res.arrayBuffer();
  return performance.now() - t;
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) return false;
    await sleep(50);
  }
  return true;
}

async function openBenchDb(): Promise<{ db: Db; kind: string; drop?: () => Promise<void> }> {
  const url = process.env.DATABASE_URL?.trim();
  if (!url) return { db: await openDb({}), kind: "PGlite" };
  const fresh = await freshDatabase(url, `bench_automations_${process.pid}`);
  return { db: await openDb({ databaseUrl: fresh.url }), kind: "PostgreSQL", drop: fresh.drop };
}

export async function run(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const { db, kind, drop } = await openBenchDb();
  const sandbox = await startBenchSandbox();
  const client = await benchClient(sandbox.url, sandbox.apiKey);
  const keyring = new Keyring(randomBytes(32));
  const rules = { allowPrivate: true };
  const receivers: Receiver[] = [];
  let boss: PgBoss | undefined;
  let worker: AutomationWorker | undefined;
  const stores = new WorkspaceStores(db, ENV_WORKSPACE);
  const automations = new Automations({ keyring, rules, queue: () => worker }, stores.automations);
  const add = async (event: string, r: Receiver) => {
    const added = await automations.add(event, r.url, "U0BENCH");
    if (!added.ok) throw new Error(added.message);
  };
  const log = (line: string) => console.error(`automations (${kind}${QUICK ? ", quick" : ""}): ${line}`);
  try {
    await migrateStore(db);
    // As the app makes them (src/host/parts.ts automationParts): the boss's options, the worker's defaults.
    boss = await createBoss(db, AUTOMATIONS_BOSS);
    worker = new AutomationWorker({ db, boss, keyring, rules });
    await worker.start();

    // (a) A customer writes; the next poll mirrors it and tells the automations; the POST arrives.
    const a = await receiver();
    receivers.push(a);
    await add("message.received", a);
    let told = 0;
    const toAutomations = inboxEventsTo(automations);
    const poller = new InboxPoller({
      stores,
      client,
      post: async () => ({ ts: `${Date.now() / 1000}.${String(++told).padStart(6, "0")}` }),
      update: async () => {},
      pollSeconds: 10,
      onEvent: (e) => toAutomations(e),
    });
    await poller.store.setInbox(CHANNEL, "all", "bench", new Date());
    await poller.step();
    const phones = Array.from({ length: 5 }, (_, i) => `+1415557${String(2000 + i)}`);
    const delays: number[] = [];
    const bare: number[] = [];
    let missed = 0;
    for (let i = 0; i < ROUNDS; i++) {
      // A moment unrelated to the worker's poll, as a customer's message is.
      await sleep(Math.random() * 1000);
      const text = `bench ${i} ${randomBytes(3).toString("hex")}`;
      await sandbox.inbound({ phone: phones[i % phones.length]!, text });
      const polled = performance.now();
      await poller.step();
      if (await until(() => a.texts.has(text), 30_000)) delays.push(a.texts.get(text)! - polled);
      else missed++;
      bare.push(await barePost(a.url));
      if (i % 20 === 19) log(`(a) ${i + 1} of ${ROUNDS}`);
    }
    await poller.stop();
    const da = latencies(delays);
    const ba = latencies(bare);
    rows.push(
      {
        name: `(a) poll that saw a customer's message → its message.received POST arriving, p50 of ${delays.length} (baseline: a bare POST to the same receiver)`,
        figure: round1(da.p50),
        unit: "ms",
        baseline: round1(ba.p50),
        peakRssMb: peakRssMb(),
      },
      {
        name: `(a) the same, p99 (goal ≤ 1,000 ms${missed ? `; ${missed} never arrived within 30 s` : ""})`,
        figure: round1(da.p99),
        unit: "ms",
        baseline: round1(ba.p99),
        peakRssMb: peakRssMb(),
      },
    );
    log(`(a) p50 ${round1(da.p50)} ms, p99 ${round1(da.p99)} ms, max ${round1(da.max)} ms`);

    // (b) LOAD_EVENTS events over LOAD_SECONDS to one plain endpoint.
    const b = await receiver();
    receivers.push(b);
    await add("campaign.started", b);
    const emitted = new Map<string, number>();
    const started = performance.now();
    const bareB: number[] = [];
    for (let i = 0; i < LOAD_EVENTS; i++) {
      const due = started + (i * LOAD_SECONDS * 1000) / LOAD_EVENTS;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const at = performance.now();
      const e = await automations.emit("campaign.started", {
        campaign_id: i + 1,
        campaign_name: `Bench ${i + 1}`,
        started_by: "U0BENCH",
      });
      if (e) emitted.set(e.id, at);
      if (i % 50 === 0) bareB.push(await barePost(b.url));
    }
    const emittedIn = (performance.now() - started) / 1000;
    log(`(b) ${emitted.size} events emitted in ${round1(emittedIn)} s; waiting for them to arrive`);
    await until(() => [...emitted.keys()].every((id) => b.got.has(id)), DRAIN_MS);
    const drained = (performance.now() - started) / 1000;
    const lost = [...emitted.keys()].filter((id) => !b.got.has(id)).length;
    // Only the events emitted: the bare POSTs to the same receiver share one id of their own.
    const repeats = [...emitted.keys()].map((id) => b.got.get(id) ?? []).filter((times) => times.length > 1);
    const twice = repeats.length;
    const db_ = latencies(
      [...emitted].flatMap(([id, at]) => (b.got.has(id) ? [b.got.get(id)![0]! - at] : [])),
    );
    const bb = latencies(bareB);
    rows.push(
      {
        name: `(b) ${LOAD_EVENTS.toLocaleString("en-US")} events meant for ${LOAD_SECONDS} s (emitted in ${round1(emittedIn)} s) to one endpoint: never arrived (goal 0; waited up to ${Math.round(DRAIN_MS / 1000)} s after the last)`,
        figure: lost,
        unit: "events",
        peakRssMb: peakRssMb(),
      },
      {
        name: "(b) the same: arrived twice (at least once: a receiver drops repeats by id)",
        figure: twice,
        unit: "events",
        peakRssMb: peakRssMb(),
      },
      {
        name: `(b) the same: event → POST arriving, p50 (baseline: a bare POST, the same receiver, during the load)`,
        figure: round1(db_.p50),
        unit: "ms",
        baseline: round1(bb.p50),
        peakRssMb: peakRssMb(),
      },
      {
        name: `(b) the same, p99; the last arrived ${round1(drained)} s after the first event`,
        figure: round1(db_.p99),
        unit: "ms",
        baseline: round1(bb.p99),
        peakRssMb: peakRssMb(),
      },
    );
    log(
      `(b) lost ${lost}, twice ${twice}, p50 ${round1(db_.p50)} ms, p99 ${round1(db_.p99)} ms, drained at ${round1(drained)} s${
        twice
          ? `; repeats arrived ${repeats.map((t) => `${round1((t[1]! - t[0]!) / 1000)} s`).join(", ")} after the first`
          : ""
      }`,
    );

    // (c) One event a second, each to an endpoint that never answers and to a healthy one.
    const hanging = await receiver(true);
    const healthy = await receiver();
    receivers.push(hanging, healthy);
    await add("campaign.completed", hanging);
    await add("campaign.completed", healthy);
    const sent = new Map<string, number>();
    const bareC: number[] = [];
    const cStart = performance.now();
    for (let i = 0; i < HANG_SECONDS; i++) {
      const wait = cStart + i * 1000 - performance.now();
      if (wait > 0) await sleep(wait);
      const at = performance.now();
      const e = await automations.emit("campaign.completed", {
        campaign_id: i + 1,
        campaign_name: `Bench ${i + 1}`,
      });
      if (e) sent.set(e.id, at);
      bareC.push(await barePost(healthy.url));
    }
    await until(() => [...sent.keys()].every((id) => healthy.got.has(id)), DRAIN_MS);
    const lostC = [...sent.keys()].filter((id) => !healthy.got.has(id)).length;
    const dc = latencies(
      [...sent].flatMap(([id, at]) => (healthy.got.has(id) ? [healthy.got.get(id)![0]! - at] : [])),
    );
    const bc = latencies(bareC);
    rows.push(
      {
        name: `(c) a hanging endpoint beside a healthy one, ${HANG_SECONDS} events (one a second) to each: the healthy one's event → POST, p50 (baseline: a bare POST to it)`,
        figure: round1(dc.p50),
        unit: "ms",
        baseline: round1(bc.p50),
        peakRssMb: peakRssMb(),
      },
      {
        name: `(c) the same, p99 (goal ≤ 1,000 ms${lostC ? `; ${lostC} never arrived` : ""}); the hanging one was sent ${hanging.total()} requests`,
        figure: round1(dc.p99),
        unit: "ms",
        baseline: round1(bc.p99),
        peakRssMb: peakRssMb(),
      },
    );
    log(
      `(c) healthy p50 ${round1(dc.p50)} ms, p99 ${round1(dc.p99)} ms, max ${round1(dc.max)} ms; hanging got ${hanging.total()}`,
    );
  } finally {
    for (const r of receivers) await r.close();
    await worker?.stop();
    await boss?.stop({ graceful: false }).catch(() => {});
    await client.close();
    await sandbox.close();
    await db.close();
    await drop?.();
  }
  return rows;
}

runWhenMain(import.meta.url, () => run());
