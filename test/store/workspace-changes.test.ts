// Each workspace's version (src/store/workspace-changes.ts): bumped by the
// database with every change a replica must see (a key, a setting, an
// installation removed or its token revoked), not by a token refresh; its
// notice reaches a listener, which comes back after its connection is cut and
// asks for a resync; a listening connection gone half-open (a proxy that stops
// forwarding without closing) is found out by its ping and replaced; and the
// workspaces kept are compared on a timer, notice or not. The version on both
// backends; notices on PostgreSQL.
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { Keyring } from "../../src/platform/secrets.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { type FeedOptions, listenForChanges, WorkspaceVersions } from "../../src/store/workspace-changes.ts";
import { WorkspaceSettings } from "../../src/store/workspace-settings.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";
import { eventually } from "../helpers/eventually.ts";
import { captureLogger } from "../helpers/log.ts";
import { startStallingProxy } from "../helpers/stalling-proxy.ts";

/** A feed on `db` that records what it tells: the workspaces changed, and how many resyncs. */
async function recordingFeed(db: Db, opts?: FeedOptions) {
  const { logger, logs } = captureLogger();
  const seen = { changed: [] as string[], resyncs: 0, logs };
  const feed = await listenForChanges(
    db,
    { changed: (id) => seen.changed.push(id), resync: () => (seen.resyncs += 1) },
    logger,
    opts,
  );
  return Object.assign(seen, { feed });
}

describe.each(storeBackends())("workspace versions (%s)", (backend) => {
  const db = useStoreDb(backend, migrateStore, 120_000);
  let installations: Installations;
  let versions: WorkspaceVersions;

  beforeAll(async () => {
    installations = await Installations.open(db(), new Keyring(randomBytes(32)));
    versions = new WorkspaceVersions(db());
  });

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
    await new WorkspaceSettings(db()).save("TV", { writers: ["U2"] }, "U1", new Date());
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
      const seen = await recordingFeed(db());
      const { changed, feed } = seen;
      try {
        expect(feed?.listening).toBe(true);
        await new WorkspaceSettings(db()).save("TL", { writers: ["U2"] }, "U1", new Date());
        await eventually(() => changed.includes("TL"), "the notice");
        // The server ends the listening session: the feed comes back and asks for a resync.
        await db().query(
          "select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen switchboard_workspace'",
        );
        await eventually(() => seen.resyncs > 0 && feed?.listening, "listening again");
        await new WorkspaceSettings(db()).save("TL2", { writers: ["U2"] }, "U1", new Date());
        await eventually(() => changed.includes("TL2"), "a notice after the reconnect");
      } finally {
        await feed?.stop();
      }
    },
  );

  it.skipIf(backend !== "postgres")(
    "replaces a listening connection gone half-open: the change made meanwhile and the next reach the listener",
    async () => {
      const proxy = await startStallingProxy(db().url!);
      const through = await openDb({ databaseUrl: proxy.url, maxConnections: 2 });
      // No periodic compare here (an hour): only the ping can find the dead connection.
      const seen = await recordingFeed(through, {
        pingEveryMs: 200,
        answerWithinMs: 500,
        checkEveryMs: 3_600_000,
      });
      const { changed, feed } = seen;
      try {
        await new WorkspaceSettings(db()).save("TH1", { writers: ["U2"] }, "U1", new Date());
        await eventually(() => changed.includes("TH1"), "a notice through the proxy");
        // The listening connection goes half-open: nothing it is sent arrives, nothing says it is gone.
        expect(proxy.stall((sent) => sent.includes("listen switchboard_workspace"))).toBe(1);
        await new WorkspaceSettings(db()).save("TH2", { writers: ["U2"] }, "U1", new Date());
        // Its ping goes unanswered: a new connection listens, and asks for a resync (the notice of TH2 was lost).
        await eventually(
          () => seen.resyncs > 0 && feed?.listening,
          "listening again after the ping went unanswered",
          {
            timeoutMs: 15_000,
          },
        );
        expect(changed).not.toContain("TH2");
        expect(JSON.stringify(seen.logs)).toMatch(/no answer to select 1 within 500 ms/);
        await new WorkspaceSettings(db()).save("TH3", { writers: ["U2"] }, "U1", new Date());
        await eventually(() => changed.includes("TH3"), "a notice on the new connection");
      } finally {
        await feed?.stop();
        await through.close();
        await proxy.close();
      }
    },
    30_000,
  );

  it.skipIf(backend !== "postgres")(
    "compares the workspaces kept every checkEveryMs, with no loss and no notice",
    async () => {
      const seen = await recordingFeed(db(), { checkEveryMs: 100 });
      const { feed } = seen;
      try {
        await eventually(() => seen.resyncs >= 3, "three compares", { timeoutMs: 10_000 });
        expect(feed?.listening).toBe(true);
      } finally {
        await feed?.stop();
      }
    },
  );
});
