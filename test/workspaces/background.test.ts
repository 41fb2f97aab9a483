// The purge of departed workspaces (src/workspaces/background.ts): a workspace
// that uninstalled more than UNINSTALL_RETENTION_DAYS ago loses every record
// and its settings; one that left more recently, and every other workspace,
// keep theirs.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/platform/config.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { type Installation, Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { purgeWorkspace } from "../../src/store/purge.ts";
import { WorkspaceSettings } from "../../src/store/workspace-settings.ts";
import { WorkspaceBackground } from "../../src/workspaces/background.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { captureLogger } from "../helpers/log.ts";

const DAY = 86_400_000;
let db: TestDb;
let clock = new Date("2026-01-01T00:00:00Z");
let installations: Installations;

const install = (teamId: string): Installation => ({
  isEnterpriseInstall: false,
  teamId,
  installerUserId: `U${teamId}`,
  bot: {
    token: `xoxb-${teamId}-${randomBytes(6).toString("hex")}`,
    id: `B${teamId}`,
    userId: `UB${teamId}`,
    scopes: [],
  },
});

async function keepRecords(team: string) {
  await new AuditLog(db, team).record({
    at: clock,
    actor: "U1",
    via: "slack",
    command: "tag add X",
    operation: "createTag",
    ok: true,
  });
  await new WorkspaceSettings(db).save(team, { writers: ["U1"] }, "U1", clock);
}

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  installations = await Installations.open(db, new Keyring(randomBytes(32)), { now: () => clock });
}, 60_000);
afterAll(() => db?.close());

describe("the purge of departed workspaces", () => {
  it("removes the records of a workspace gone past the retention, and nothing else", async () => {
    for (const team of ["TOLD", "TNEW", "TSTAY"]) {
      await installations.save(install(team));
      await keepRecords(team);
    }
    await installations.uninstall({ isEnterpriseInstall: false, teamId: "TOLD" }, clock);
    clock = new Date(clock.getTime() + 25 * DAY);
    await installations.uninstall({ isEnterpriseInstall: false, teamId: "TNEW" }, clock);
    clock = new Date(clock.getTime() + 10 * DAY); // TOLD left 35 days ago, TNEW 10

    const background = new WorkspaceBackground({
      db,
      config: loadConfig({ UNINSTALL_RETENTION_DAYS: "30" }),
      logger: captureLogger().logger,
      installations,
      purge: purgeWorkspace,
      now: () => clock,
    });
    expect(await background.purgeDeparted()).toBe(1);
    expect(await new AuditLog(db, "TOLD").list()).toEqual([]);
    expect((await new WorkspaceSettings(db).all("TOLD")).size).toBe(0);
    for (const team of ["TNEW", "TSTAY"]) {
      expect(await new AuditLog(db, team).list()).toHaveLength(1);
      expect((await new WorkspaceSettings(db).all(team)).size).toBe(1);
    }
    // Done once: the departure is forgotten.
    expect(await background.purgeDeparted()).toBe(0);
  });
});
