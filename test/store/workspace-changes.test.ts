// Each workspace's version (src/store/workspace-changes.ts): bumped by the
// database with every change a replica must see (a key, a setting, an
// installation removed or its token revoked), not by a token refresh; its
// notice reaches a listener, which comes back after its connection is cut and
// asks for a resync. The version on both backends; notices on PostgreSQL.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Keyring } from "../../src/platform/secrets.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { listenForChanges, WorkspaceVersions } from "../../src/store/workspace-changes.ts";
import { WorkspaceSettings } from "../../src/store/workspace-settings.ts";
import { openTestDb, storeBackends, type TestDb } from "../helpers/db.ts";
import { eventually } from "../helpers/eventually.ts";
import { captureLogger } from "../helpers/log.ts";

describe.each(storeBackends())("workspace versions (%s)", (backend) => {
  let db: TestDb;
  let installations: Installations;
  let versions: WorkspaceVersions;

  beforeAll(async () => {
    db = await openTestDb(backend);
    await migrateStore(db);
    installations = await Installations.open(db, new Keyring(randomBytes(32)));
    versions = new WorkspaceVersions(db);
  }, 120_000);
  afterAll(() => db?.close());

  it("moves with a key, a setting, a revoked token and an uninstall; not with a token refresh", async () => {
    const key = { isEnterpriseInstall: false as const, teamId: "TV" };
    expect(await versions.version("TV")).toBe(0);
    await installations.save({
      ...key,
      installerUserId: "U1",
      bot: { token: "xoxb-1", refreshToken: "r-1", id: "B1", userId: "UB1", scopes: [] },
    });
    let last = await versions.version("TV");
    const moved = async () => {
      const now = await versions.version("TV");
      const did = now > last;
      last = now;
      return did;
    };
    expect(last).toBeGreaterThan(0);
    await installations.connect({ teamId: "TV", apiKey: "k-1", organizationName: "O", connectedBy: "U1" });
    expect(await moved()).toBe(true);
    await new WorkspaceSettings(db).save("TV", { writers: ["U2"] }, "U1", new Date());
    expect(await moved()).toBe(true);
    await installations.withBotTokens(key, async () => ({
      replace: { token: "xoxb-2", refreshToken: "r-2" },
      result: undefined,
    }));
    expect(await moved()).toBe(false);
    await installations.revokeTokens(key, { botUserIds: ["UB1"] }, new Date(Date.now() + 60_000));
    expect(await moved()).toBe(true);
    await installations.uninstall(key, new Date(Date.now() + 60_000));
    expect(await moved()).toBe(true);
    expect((await versions.versions(["TV", "TNONE"])).get("TNONE")).toBe(0);
  });

  it.skipIf(backend !== "postgres")(
    "tells a listener, which listens again after its connection is cut",
    async () => {
      const { logger } = captureLogger();
      const changed: string[] = [];
      let resyncs = 0;
      const feed = await listenForChanges(
        db,
        { changed: (id) => changed.push(id), resync: () => (resyncs += 1) },
        logger,
      );
      try {
        expect(feed?.listening).toBe(true);
        await new WorkspaceSettings(db).save("TL", { writers: ["U2"] }, "U1", new Date());
        await eventually(() => changed.includes("TL"), "the notice");
        // The server ends the listening session: the feed comes back and asks for a resync.
        await db.query(
          "select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen switchboard_workspace'",
        );
        await eventually(() => resyncs > 0 && feed?.listening, "listening again");
        await new WorkspaceSettings(db).save("TL2", { writers: ["U2"] }, "U1", new Date());
        await eventually(() => changed.includes("TL2"), "a notice after the reconnect");
      } finally {
        await feed?.stop();
      }
    },
  );
});
