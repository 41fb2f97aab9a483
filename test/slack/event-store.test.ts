// Slack's retries are dropped by event_id, also after a restart: the ids live
// in the database (schema `slack`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { createDbEventStore, MemoryEventStore, SignatureMemory } from "../../src/slack/io/event-store.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { openTestDb, storeBackends, type TestDb } from "../helpers/db.ts";

let db: TestDb;
beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
}, 60_000);
afterAll(() => db?.close());

describe("event store", () => {
  it("claims an id once in memory, and forgets the oldest past its size", async () => {
    const memory = new MemoryEventStore(60_000, 2);
    expect(await memory.claim("a")).toBe(true);
    expect(await memory.claim("a")).toBe(false);
    await memory.claim("b");
    await memory.claim("c");
    expect(await memory.claim("a")).toBe(true);
  });

  it("remembers ids in the database across a restart", async () => {
    const before = await createDbEventStore(db);
    expect(await before.claim("Ev1", ENV_WORKSPACE)).toBe(true);
    expect(await before.claim("Ev1", ENV_WORKSPACE)).toBe(false);
    // A new process: empty memory, same database.
    const after = await createDbEventStore(db);
    expect(await after.claim("Ev1", ENV_WORKSPACE)).toBe(false);
    expect(await after.claim("Ev2", ENV_WORKSPACE)).toBe(true);
  });
});

describe("request signatures (replays: request-time.ts)", () => {
  it("are remembered for the window, then forgotten", () => {
    let now = 1_000_000;
    const memory = new SignatureMemory({ ttlMs: 1000, now: () => now });
    expect(memory.claim("v0=a")).toBe(true);
    expect(memory.claim("v0=a")).toBe(false);
    now += 999;
    expect(memory.claim("v0=a")).toBe(false);
    now += 1;
    expect(memory.claim("v0=a")).toBe(true);
  });

  it("say the store must decide when more came in the window than memory keeps", () => {
    let now = 0;
    const memory = new SignatureMemory({ ttlMs: 1000, max: 2, now: () => now });
    for (const s of ["a", "b"]) memory.claim(s);
    expect(memory.complete()).toBe(true);
    memory.claim("c");
    expect(memory.size).toBe(2);
    expect(memory.complete()).toBe(false);
    now += 1000;
    expect(memory.complete()).toBe(true);
  });

  it("on the embedded database: answered from memory, written at a graceful stop, refused again after it", async () => {
    const lite = await openTestDb("pglite");
    try {
      await migrateStore(lite);
      const count = async () =>
        Number(
          (
            await lite.query<{ n: string }>(
              "select count(*) as n from slack.seen_events where workspace = ''",
            )
          ).rows[0]?.n,
        );
      const before = await createDbEventStore(lite);
      // Answered at once: a boolean, not a promise waiting on a write.
      expect(before.claimSignature("v0=first")).toBe(true);
      expect(before.claimSignature("v0=first")).toBe(false);
      expect(await count()).toBe(0);
      await before.flush?.();
      expect(await count()).toBe(1);
      // A new process on the same folder: the window is loaded from the table.
      const after = await createDbEventStore(lite);
      expect(after.claimSignature("v0=first")).toBe(false);
      expect(after.claimSignature("v0=second")).toBe(true);
      await after.flush?.();
      // A signature older than the window is not loaded (Switchboard would refuse its timestamp anyway).
      await lite.query(
        "update slack.seen_events set seen_at = now() - interval '12 minutes' where event_id = $1",
        ["sig:v0=second"],
      );
      const later = await createDbEventStore(lite);
      expect(later.claimSignature("v0=first")).toBe(false);
      expect(later.claimSignature("v0=second")).toBe(true);
      await later.flush?.();
      // After a kill -9 (nothing written): a request signed before this process started is refused unseen,
      // one signed since (or within the clocks' skew) is served.
      const startedAt = Date.now();
      const afterKill = await createDbEventStore(lite, { now: () => startedAt });
      const s = Math.floor(startedAt / 1000);
      expect(afterKill.claimSignature("v0=before-the-start", s - 60)).toBe(false);
      expect(afterKill.claimSignature("v0=within-the-skew", s - 2)).toBe(true);
      expect(afterKill.claimSignature("v0=since", s + 1)).toBe(true);
    } finally {
      await lite.close();
    }
  });

  it.each(storeBackends().filter((b) => b === "postgres"))(
    "on PostgreSQL: claimed in the table before the answer, so every replica refuses a replay",
    async (backend) => {
      const pgdb = await openTestDb(backend);
      try {
        await migrateStore(pgdb);
        const a = await createDbEventStore(pgdb);
        const b = await createDbEventStore(pgdb);
        expect(await a.claimSignature("v0=x")).toBe(true);
        expect(await b.claimSignature("v0=x")).toBe(false);
      } finally {
        await pgdb.close();
      }
    },
  );
});
