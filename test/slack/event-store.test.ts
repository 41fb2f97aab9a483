// Slack's retries are dropped by event_id, also after a restart: the ids live
// in the database (schema `slack`).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { createDbEventStore, MemoryEventStore } from "../../src/slack/io/event-store.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";

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
