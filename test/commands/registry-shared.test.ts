// Every workspace's core reads the one command list of the process (src/commands/core/parts.ts, issue 38 §7):
// a Map of ~150 commands made with each core was ~4 KiB of each workspace's runtime. It holds the specs alone,
// nothing of a workspace: two workspaces' cores share it and each still answers with its own stores.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { createCommandCore } from "../../src/commands/core.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SWITCHBOARD_MIGRATIONS } from "../../src/store/schema.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { withSandbox } from "../helpers/sandbox.ts";
import { SHELL } from "./helpers.ts";

const sandbox = withSandbox();
let db: TestDb;
beforeAll(async () => {
  db = await openTestDb();
  await migrate(db, SWITCHBOARD_MIGRATIONS);
});
afterAll(async () => {
  await db?.close();
});

describe("the command list, one for the process", () => {
  it("is the same for two workspaces' cores, and each still answers", async () => {
    const api = new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
    const coreOf = (workspace: string) =>
      createCommandCore({ api, stores: new WorkspaceStores(db, workspace), defaultChannelId: 1 });
    const a = coreOf("TSHAREDA");
    const b = coreOf("TSHAREDB");
    expect(a.registry).toBe(b.registry);
    expect(a.registry.get("help")).toBeDefined();
    const reply = await a.run("help", SHELL);
    expect(reply.text).toContain("Switchboard");
    await api.close();
  });
});
