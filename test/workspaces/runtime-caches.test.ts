// A workspace's caches are its runtime's (issue 38 §3), never the module's:
// two runtimes of one workspace id on two messaging accounts (a workspace
// reconnected to another account, or two deployments in one process) each
// name a campaign's recipients from their own account. Before, the names of
// contacts read lately were one map for the whole process, keyed by the
// workspace's id: the second account's recipients were named from the first's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/text.ts";
import { DEFAULT_SETTINGS } from "../../src/commands/workspace-admin.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { createLogger } from "../../src/platform/log.ts";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import type { Db } from "../../src/store/db.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { buildWorkspace, type WorkspaceRuntime } from "../../src/workspaces/runtime.ts";
import { openTestDb } from "../helpers/db.ts";

const TEAM = "T0RECONNECTED";
const SHELL = { userId: "shell", via: "shell" } as const;

let db: Db;
const sandboxes: Sandbox[] = [];
const runtimes: WorkspaceRuntime[] = [];

/** The first recipient of campaign 1 made nameless, with a phone of this account's own. */
async function namelessRecipient(sandbox: Sandbox, phone: string): Promise<void> {
  const {
    rows: [row],
  } = await sandbox.db.query<{ contact_id: number }>(
    "select contact_id from sandbox.campaign_recipients where campaign_id = 1 order by id limit 1",
  );
  await sandbox.db.query(
    "update sandbox.contacts set first_name = null, last_name = null, phone = $2 where id = $1",
    [row!.contact_id, phone],
  );
}

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  for (const phone of ["+14155550901", "+14155550902"]) {
    const sandbox = await startSandbox();
    sandboxes.push(sandbox);
    await namelessRecipient(sandbox, phone);
    runtimes.push(
      buildWorkspace(
        { config: loadConfig({ LOG_LEVEL: "silent" }), logger: createLogger("silent"), db },
        { id: TEAM, baseUrl: sandbox.url, apiKey: sandbox.apiKey, settings: DEFAULT_SETTINGS },
      ),
    );
  }
}, 120_000);

afterAll(async () => {
  for (const rt of runtimes) await rt.close();
  for (const s of sandboxes) await s.close();
  await db?.close();
});

describe("a workspace's caches", () => {
  it("two runtimes of one workspace on two accounts name recipients from their own account", async () => {
    const [first, second] = runtimes;
    const one = blocksToText((await first!.core.run("campaign 1 recipients", SHELL)).blocks);
    expect(one).toContain("+14155550901");
    const two = blocksToText((await second!.core.run("campaign 1 recipients", SHELL)).blocks);
    expect(two).toContain("+14155550902");
    expect(two).not.toContain("+14155550901");
  });
});
