// Two bot processes on one database: two ProgressTrackers share the store
// (PGlite in process; the test's own PostgreSQL database when DATABASE_URL is
// set) and follow the same message. Only the lease holder polls the sandbox
// (through a counting proxy) and updates the message per step; when it stops
// stepping (dies), the other takes over once the lease runs out on the
// hand-moved clock; a clean stop hands over at once.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import {
  COST_PER_POLL,
  ProgressTracker,
  type StepResult,
} from "../../src/slack/features/progress/tracker.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { ProgressStore } from "../../src/store/progress.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";
import { manualClock, withSandbox } from "../helpers/sandbox.ts";
import { requestsFor } from "../reports/helpers.ts";

const sandbox = withSandbox({ campaignTickMs: 0, campaignBatch: 1, readLimit: 100_000, writeLimit: 10_000 });
const clock = manualClock(new Date("2026-03-02T09:00:00Z"));
const BASE_MS = 5_000;
const LEASE_MS = 30_000;
const CHANNEL = "C0GENERAL";
const TS = "1700000000.000100";

let db: TestDb;
let proxy: CountingProxy;
let client: MessagingClient;
let campaignId: number;

interface Proc {
  tracker: ProgressTracker;
  /** The chat.update calls this process made. */
  updates: { channel: string; ts: string; text: string }[];
}

function proc(workerId: string): Proc {
  const updates: Proc["updates"] = [];
  const tracker = new ProgressTracker({
    store: new ProgressStore(db, ENV_WORKSPACE),
    client,
    update: async (channel, ts, message) => {
      updates.push({ channel, ts, text: message.text });
    },
    // Plenty of background budget: the interval is the base one, whatever is followed.
    backgroundReadsPerSecond: 1_000,
    clock,
    basePollMs: BASE_MS,
    minUpdateMs: 0,
    leaseMs: LEASE_MS,
    workerId,
  });
  return { tracker, updates };
}

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  proxy = await startProxy(sandbox().url);
  client = new MessagingClient({
    baseUrl: proxy.url,
    apiKey: sandbox().apiKey,
    limiter: new RateLimiter({ readPerMinute: 100_000, writePerMinute: 10_000, backgroundReadShare: 1 }),
  });
  const draft = (await client.listCampaigns({ status: "draft" })).items[0];
  expect(draft?.id).toBeTypeOf("number");
  campaignId = draft!.id as number;
  await client.sendCampaign(campaignId);
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await db?.close();
});

describe("live progress with two processes on one database", () => {
  it("one process at a time polls and updates a message; the other takes over when it stops", async () => {
    const a = proc("proc-a");
    const b = proc("proc-b");
    await a.tracker.track({ channel: CHANNEL, ts: TS, campaignId, intro: "Campaign launched" });
    const row = () => a.tracker.store.get(CHANNEL, TS);
    const reads = async (fn: () => Promise<StepResult[]>) => {
      const before = proxy.seen.length;
      const results = await fn();
      return { results, reads: requestsFor(proxy.seen.slice(before), campaignId).length };
    };
    const both = () => Promise.all([a.tracker.step(), b.tracker.step()]);

    // Both ask at once: one wins the claim, polls (8 reads) and updates the message.
    const first = await reads(both);
    expect(first.results.map((r) => r.polled).sort()).toEqual([0, 1]);
    expect(first.reads).toBe(COST_PER_POLL);
    const [owner, other] = first.results[0]!.polled === 1 ? [a, b] : [b, a];
    expect((await row())?.leaseOwner).toBe(owner.tracker.workerId);
    expect(owner.updates).toHaveLength(1);
    expect(other.updates).toHaveLength(0);

    // While it lives, the holder keeps the message: every due step, it alone polls.
    for (let i = 0; i < 4; i++) {
      await sandbox().tick();
      clock.advance(BASE_MS);
      const step = await reads(both);
      const [mine, theirs] = owner === a ? step.results : [step.results[1]!, step.results[0]!];
      expect(mine?.polled).toBe(1);
      expect(theirs).toEqual({ polled: 0, updated: 0 });
      expect(step.reads).toBe(COST_PER_POLL);
    }
    expect(owner.updates.length).toBeGreaterThan(1);
    expect(other.updates).toHaveLength(0);

    // The holder dies (no more steps, no stop): its lease holds past the due poll…
    clock.advance(BASE_MS);
    expect(await other.tracker.step()).toEqual({ polled: 0, updated: 0 });
    expect((await row())?.leaseOwner).toBe(owner.tracker.workerId);
    // …until it runs out; then the other process takes the message over.
    clock.advance(LEASE_MS + 1);
    const takeover = await reads(() => Promise.all([other.tracker.step()]));
    expect(takeover.results[0]?.polled).toBe(1);
    expect(takeover.reads).toBe(COST_PER_POLL);
    expect((await row())?.leaseOwner).toBe(other.tracker.workerId);

    // The first one comes back: the message is not its any more.
    clock.advance(BASE_MS);
    const back = await reads(both);
    const [old, current] = owner === a ? back.results : [back.results[1]!, back.results[0]!];
    expect(old).toEqual({ polled: 0, updated: 0 });
    expect(current?.polled).toBe(1);
    expect(back.reads).toBe(COST_PER_POLL);

    // A clean stop lets go of the lease: the next due poll is the first one's, without waiting.
    await other.tracker.stop();
    expect((await row())?.leaseOwner).toBeNull();
    clock.advance(BASE_MS);
    expect((await owner.tracker.step()).polled).toBe(1);
    expect((await row())?.leaseOwner).toBe(owner.tracker.workerId);
    await owner.tracker.stop();
  });
});
