// A captured signed request replayed within Slack's 5-minute window (issue 21 §3):
// refused with 401, on the replica that served it and on another one sharing
// the store (PostgreSQL), or by the next process on the same folder (the
// embedded database: one process at a time), and nothing runs twice. A first
// request is served as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDbEventStore } from "../../src/slack/io/event-store.ts";
import type { Db } from "../../src/store/db.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { sign } from "../fakes/slack-requests.ts";
import { openTestDb, postgresUrl } from "../helpers/db.ts";
import { SIGNING_SECRET } from "../helpers/fake-slack.ts";
import { type Harness, startHarness } from "./harness.ts";
import { TestCore } from "./test-core.ts";

let db: Db;
const replicas: Harness[] = [];
const cores: TestCore[] = [];

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  for (let i = 0; i < 2; i++) {
    const core = new TestCore();
    cores.push(core);
    replicas.push(await startHarness(() => core, { store: await createDbEventStore(db) }));
  }
}, 60_000);
afterAll(async () => {
  for (const h of replicas) await h.close();
  await db?.close();
});

/** The bytes of one signed slash command, as an attacker would have captured them. */
function captured(text: string, from: Harness = replicas[0]!) {
  const responseUrl = from.fake.newResponseUrl();
  const body = new URLSearchParams({
    command: "/sb",
    text,
    user_id: "U0ALICE",
    user_name: "alice",
    channel_id: "C0GENERAL",
    team_id: from.fake.teamId,
    response_url: responseUrl,
    trigger_id: from.fake.newTriggerId(),
  }).toString();
  const timestamp = Math.floor(Date.now() / 1000);
  const send = (h: Harness) =>
    fetch(`${h.baseUrl}/slack/events`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": sign(SIGNING_SECRET, timestamp, body),
      },
      body,
    });
  return { responseUrl, send };
}

describe("a replayed signed request", () => {
  it.skipIf(!postgresUrl())("is refused on the same replica and on another, and runs once", async () => {
    const [a, b] = replicas as [Harness, Harness];
    const request = captured("tag add replayed");
    expect((await request.send(a)).status).toBe(200);
    const ran = () => [...cores[0]!.lines, ...cores[1]!.lines].filter((l) => l.line === "tag add replayed");
    await a.fake.waitFor(() => ran().length === 1);
    expect((await request.send(a)).status).toBe(401);
    expect((await request.send(b)).status).toBe(401);
    expect(ran()).toHaveLength(1);
    // Another request, signed anew, is served.
    const next = captured("help");
    expect((await next.send(b)).status).toBe(200);
  });
});

describe("a replayed signed request, embedded database", () => {
  it("is refused by the process that served it and by the next one on the same database", async () => {
    const lite = await openTestDb("pglite");
    await migrateStore(lite);
    const core = new TestCore();
    let first: Harness | undefined = await startHarness(() => core, {
      store: await createDbEventStore(lite),
    });
    let second: Harness | undefined;
    try {
      const { send } = captured("tag add once", first);
      expect((await send(first)).status).toBe(200);
      await first.fake.waitFor(() => core.lines.some((l) => l.line === "tag add once"));
      expect((await send(first)).status).toBe(401);
      // The process stops (its signatures written at the stop); the next one starts on the same database.
      await first.close();
      first = undefined;
      second = await startHarness(() => core, { store: await createDbEventStore(lite) });
      expect((await send(second)).status).toBe(401);
      expect(core.lines.filter((l) => l.line === "tag add once")).toHaveLength(1);
    } finally {
      await first?.close();
      await second?.close();
      await lite.close();
    }
  });
});
