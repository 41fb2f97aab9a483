// A person's command against a messaging API that accepts and never answers:
// one answer in words once the deadline passes, after a bounded number of
// attempts. Attempts are counted, never elapsed time.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { createCommandCore, type SwitchboardCore } from "../../src/commands/core.ts";
import type { Reply } from "../../src/commands/types.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SWITCHBOARD_MIGRATIONS } from "../../src/store/schema.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { type OddServer, startOddServer } from "../helpers/odd-server.ts";
import { SHELL } from "./helpers.ts";

let odd: OddServer;
let db: TestDb;
let client: MessagingClient;
let core: SwitchboardCore;

beforeAll(async () => {
  odd = await startOddServer();
  db = await openTestDb();
  await migrate(db, SWITCHBOARD_MIGRATIONS);
  client = new MessagingClient({
    baseUrl: odd.url,
    apiKey: "deadline_key_8c1e",
    random: () => 0,
    timeoutMs: 200,
    deadlineMs: 500,
    readPerMinute: 60_000,
    writePerMinute: 60_000,
  });
  core = createCommandCore({
    api: client,
    stores: new WorkspaceStores(db, ENV_WORKSPACE),
    defaultChannelId: 1,
  });
});
afterAll(async () => {
  await client?.close();
  await odd?.close();
  await db?.close();
});

const words = (r: Reply) => r.text ?? "";

describe("a person's command when the API hangs", () => {
  it("a read: one answer in words after at most 3 attempts", async () => {
    odd.on("GET /tags", { hang: true });
    const reply = await core.run("tags", SHELL);
    expect(words(reply)).toMatch(
      /^The messaging API did not answer within 1 s \(\d attempts?\)\. Nothing was changed/,
    );
    expect(reply.visibility).toBe("ephemeral");
    expect(odd.count("GET /tags")).toBeGreaterThanOrEqual(1);
    expect(odd.count("GET /tags")).toBeLessThanOrEqual(3);
  });

  it("a write: sent once, and the answer says it may have gone through", async () => {
    odd.reset();
    odd.on("POST /tags", { hang: true });
    const reply = await core.run("tag add vip #1D9BD1", SHELL);
    // The attempt's own timeout (200 ms) ends it before the deadline: a write is never sent twice.
    expect(words(reply)).toMatch(
      /^The messaging API did not answer in time\. The change may have gone through/,
    );
    expect(odd.count("POST /tags")).toBe(1);
  });
});
