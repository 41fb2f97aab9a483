// Several replicas of one many-workspace deployment on one PostgreSQL (issue
// 27 §1, docs/workspaces.md "Several replicas"): two switchboards in this
// process, each with its own pool and its own listening connection on the same
// database. A change made on one (the writers, a disconnect, an uninstall) is
// seen by the other at once: its next request uses the new settings (the
// version read on use), and its background work of a departed workspace stops
// without any request (the notice). A third replica whose listening connection
// goes half-open (a proxy that stops forwarding without closing) still stops a
// departed workspace's work: its periodic compare (REPLICA_CHECK_SECONDS), or
// its ping's new connection; in single mode, a settings change reaches it the
// same way. PostgreSQL only: PGlite is one process.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Actor } from "../../src/domain/actor.ts";
import {
  createManyWorkspaceSwitchboard,
  createSwitchboard,
  type ManyWorkspaceSwitchboard,
  type Switchboard,
  workspaceLifecycle,
} from "../../src/host/app.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { openTestDb, postgresUrl, type TestDb } from "../helpers/db.ts";
import { eventually } from "../helpers/eventually.ts";
import { manyWorkspaceEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { captureLogger } from "../helpers/log.ts";
import { startStallingProxy } from "../helpers/stalling-proxy.ts";

const TEAM = "TACME";
const ALICE: Actor = { userId: "U0ALICE", via: "slack", teamId: TEAM, channelId: "C0GENERAL" };
const CAROL: Actor = { userId: "U0CAROL", via: "slack", teamId: TEAM, channelId: "C0GENERAL" };
const text = (reply: unknown) => JSON.stringify(reply);

describe.skipIf(!postgresUrl())("two replicas on one PostgreSQL", () => {
  let fake: FakeSlack;
  let db1: TestDb;
  let db2: Db;
  let one: ManyWorkspaceSwitchboard;
  let two: ManyWorkspaceSwitchboard;
  const { logger } = captureLogger();
  let env: Record<string, string>;
  /** Another replica on `db`, using the first one's sandbox as its messaging API (one API, as in production). */
  const replica = (db: Db, more: Record<string, string> = {}) =>
    createManyWorkspaceSwitchboard(loadConfig({ ...env, MESSAGING_API_URL: one.sandbox!.url, ...more }), {
      logger,
      db,
    });
  const install = () =>
    one.installations.save({
      isEnterpriseInstall: false,
      teamId: TEAM,
      teamName: "Acme",
      installerUserId: ALICE.userId,
      bot: { token: fake.botToken, id: "BACME", userId: "UBACME", scopes: ["commands", "chat:write"] },
    });

  beforeAll(async () => {
    [fake, db1] = await Promise.all([startFakeSlack(), openTestDb("postgres")]);
    db2 = await openDb({ databaseUrl: db1.url, maxConnections: 5 });
    env = {
      ...manyWorkspaceEnv(fake),
      INBOX_POLL_SECONDS: "1",
      LOG_LEVEL: "warn",
    };
    one = await createManyWorkspaceSwitchboard(loadConfig(env), { logger, db: db1 });
    two = await replica(db2);
    fake.addTeam({ teamId: TEAM, teamName: "Acme", installerUserId: ALICE.userId });
    await install();
  }, 60_000);

  afterAll(async () => {
    await two?.close();
    await one?.close();
    await db2?.close();
    await fake?.close();
    await db1?.close();
  });

  const scope = (sb: ManyWorkspaceSwitchboard) => sb.workspaces.scopeOf(TEAM);

  it("a non-writer is refused on replica 2 right after the writers change on replica 1", async () => {
    expect(text(await (await scope(one)).core.run("connect demo", ALICE))).toContain("Connected to");
    // Anyone may write: Carol adds a tag on replica 2 (its runtime is built and kept).
    const early = text(await (await scope(two)).core.run("tag add Early #1D9BD1", CAROL));
    expect(early).toContain("Early");
    expect(early).not.toMatch(/U0BOB|may not/);
    const before = await two.workspaces.runtime(TEAM);
    expect(before).toBeDefined();

    const set = text(await (await scope(one)).core.run("settings set writers=<@U0BOB>", ALICE));
    expect(set).not.toMatch(/cannot|not allowed/i);
    // At once, with no wait for the notice: the version read on use.
    const refused = text(await (await scope(two)).core.run("tag add Late #1D9BD1", CAROL));
    expect(refused).toMatch(/U0BOB/);
    const tags = text(await (await scope(two)).core.run("tags", ALICE));
    expect(tags).toContain("Early");
    expect(tags).not.toContain("Late");
  });

  it("a settings change on replica 1 is applied on both replicas without restarting either's runtime or inbox poller", async () => {
    const inboxes = new InboxStore(db1, TEAM);
    await inboxes.setInbox("C0INBOX", "all", ALICE.userId, new Date());
    try {
      const kept = await Promise.all(
        [one, two].map(async (sb) => {
          const rt = (await sb.workspaces.runtime(TEAM))!;
          // As `/sb inbox on` does: the poller starts.
          rt.inbox.wake?.();
          await eventually(() => sb.background.busy(TEAM), "the inbox poller running", { timeoutMs: 10_000 });
          let closed = false;
          rt.onClose(async () => {
            closed = true;
          });
          return { sb, rt, wake: rt.inbox.wake, closed: () => closed };
        }),
      );
      // Anyone may write again (`none`: the environment's default, no list).
      expect(text(await (await scope(one)).core.run("settings set writers=none", ALICE))).not.toMatch(
        /cannot|not allowed/i,
      );
      // Replica 2 applies it at its notice, without a request.
      await eventually(
        () => kept[1]!.rt.settings.writers.length === 0,
        "replica 2 applying the new writers",
        { timeoutMs: 10_000 },
      );
      expect(text(await (await scope(two)).core.run("tag add Again #1D9BD1", CAROL))).toContain("Again");
      for (const k of kept) {
        expect(await k.sb.workspaces.runtime(TEAM)).toBe(k.rt);
        expect(k.closed()).toBe(false);
        expect(k.sb.background.busy(TEAM)).toBe(true);
        expect(k.rt.inbox.wake).toBe(k.wake);
      }
    } finally {
      await inboxes.removeInbox("C0INBOX");
    }
  });

  it("after a disconnect on replica 1, replica 2 forgets the key, even without a request", async () => {
    const rt = await two.workspaces.runtime(TEAM);
    expect(rt).toBeDefined();
    expect(two.workspaces.slackClientOf(TEAM)).toBeDefined();
    // `/sb disconnect`'s confirmed work on replica 1 (the command asks to confirm first).
    const admin = (await one.workspaces.runtime(TEAM))!.core.admin!;
    expect((await admin.disconnect(ALICE)).ok).toBe(true);
    expect(await one.installations.connection(TEAM)).toBeUndefined();
    // The notice closes replica 2's runtime (its bot client goes with it) without any request.
    await eventually(
      () => two.workspaces.slackClientOf(TEAM) === undefined,
      "replica 2 forgetting the runtime",
      {
        timeoutMs: 10_000,
      },
    );
    expect(await two.workspaces.runtime(TEAM)).toBeUndefined();
    expect(text(await (await scope(two)).core.run("tags", ALICE))).toContain("not connected");
  });

  it("app_uninstalled on replica 1 stops replica 2's background work for that workspace", async () => {
    expect(text(await (await scope(one)).core.run("connect demo", ALICE))).toContain("Connected to");
    // An inbox: replica 2 polls its customers once its runtime is built.
    await new InboxStore(db1, TEAM).setInbox("C0INBOX", "all", ALICE.userId, new Date());
    await two.workspaces.runtime(TEAM);
    await eventually(() => two.background.busy(TEAM), "replica 2 polling the inbox", { timeoutMs: 10_000 });

    const outcome = await workspaceLifecycle(one, logger).uninstalled(
      { teamId: TEAM, isEnterpriseInstall: false },
      new Date(),
    );
    expect(outcome).toBe("removed");
    await eventually(() => !two.background.busy(TEAM), "replica 2 stopping the departed workspace's inbox", {
      timeoutMs: 10_000,
    });
    expect(await two.workspaces.runtime(TEAM)).toBeUndefined();
  });

  it("tokens_revoked on replica 1 closes replica 2's runtime built with the old token, without a request", async () => {
    await install();
    expect(text(await (await scope(one)).core.run("connect demo", ALICE))).toContain("Connected to");
    const before = (await two.workspaces.runtime(TEAM))!;
    let closed = false;
    before.onClose(async () => {
      closed = true;
    });
    const outcome = await workspaceLifecycle(one, logger).tokensRevoked(
      { teamId: TEAM, isEnterpriseInstall: false },
      { botUserIds: ["UBACME"], userIds: [] },
      new Date(),
    );
    expect(outcome).toBe("removed");
    await eventually(() => closed, "replica 2 closing the runtime of the revoked token", {
      timeoutMs: 10_000,
    });
  });

  it("a replica whose listening connection went half-open stops a departed workspace's inbox within REPLICA_CHECK_SECONDS", async () => {
    await install();
    expect(text(await (await scope(one)).core.run("connect demo", ALICE))).toContain("Connected to");
    await new InboxStore(db1, TEAM).setInbox("C0INBOX", "all", ALICE.userId, new Date());
    // Replica 3 reaches PostgreSQL through a proxy that can stop forwarding without closing (a NAT, a failover).
    const proxy = await startStallingProxy(db1.url!);
    const db3 = await openDb({ databaseUrl: proxy.url, maxConnections: 5 });
    const three = await replica(db3, { REPLICA_CHECK_SECONDS: "1" });
    try {
      await three.workspaces.runtime(TEAM);
      await eventually(() => three.background.busy(TEAM), "replica 3 polling the inbox", {
        timeoutMs: 10_000,
      });
      // Its listening connection goes half-open: the uninstall's notice never reaches it.
      expect(proxy.stall((sent) => sent.includes("listen switchboard_workspace"))).toBe(1);
      const outcome = await workspaceLifecycle(one, logger).uninstalled(
        { teamId: TEAM, isEnterpriseInstall: false },
        new Date(),
      );
      expect(outcome).toBe("removed");
      await eventually(
        () => !three.background.busy(TEAM),
        "replica 3 stopping the departed workspace's inbox",
        {
          timeoutMs: 10_000,
        },
      );
      expect(three.workspaces.slackClientOf(TEAM)).toBeUndefined();
    } finally {
      await three.close();
      await db3.close();
      await proxy.close();
    }
  }, 60_000);
});

describe.skipIf(!postgresUrl())("two replicas of one workspace (single mode) on one PostgreSQL", () => {
  let db1: TestDb;
  let db2: Db;
  let one: Switchboard;
  let two: Switchboard;
  const { logger } = captureLogger();
  const OPERATOR: Actor = { userId: "shell", via: "shell" };
  const DAN: Actor = { userId: "U0DAN", via: "slack", channelId: "C0GENERAL" };

  beforeAll(async () => {
    db1 = await openTestDb("postgres");
    db2 = await openDb({ databaseUrl: db1.url, maxConnections: 5 });
    one = await createSwitchboard(loadConfig({ LOG_LEVEL: "warn" }), { logger, db: db1 });
    two = await createSwitchboard(
      loadConfig({ LOG_LEVEL: "warn", MESSAGING_API_URL: one.sandbox!.url, MESSAGING_API_KEY: one.apiKey }),
      { logger, db: db2 },
    );
  }, 120_000);

  afterAll(async () => {
    await two?.close();
    await one?.close();
    await db2?.close();
    await db1?.close();
  });

  it("a writers change on replica 1 is applied on replica 2 at its notice", async () => {
    expect(text(await two.core.run("tag add Before #1D9BD1", DAN))).toContain("Before");
    expect(await two.core.may(DAN, "write")).toBe(true);
    expect(text(await one.core.run("settings set writers=<@U0BOB>", OPERATOR))).not.toMatch(/cannot/i);
    // The notice gives replica 2's core the new settings (no request needed: may() reads no version)…
    await eventually(async () => !(await two.core.may(DAN, "write")), "replica 2 applying the new settings", {
      timeoutMs: 10_000,
    });
    // …which refuses a non-writer.
    expect(text(await two.core.run("tag add After #1D9BD1", DAN))).toMatch(/U0BOB/);
    expect(text(await two.core.run("tags", OPERATOR))).not.toContain("After");
  });

  it("a request on replica 2 right after a change on replica 1 runs with the new settings (the version read)", async () => {
    const requestOn = async (sb: Switchboard) => (await sb.workspaces({}).resolve({})).core;
    expect(text(await (await requestOn(two)).run("tag add Refused #1D9BD1", DAN))).toMatch(/U0BOB/);
    expect(text(await one.core.run("settings set writers=<@U0DAN>", OPERATOR))).not.toMatch(/cannot/i);
    // At once, with no wait for the notice: the request reads the version first.
    const allowed = text(await (await requestOn(two)).run("tag add Allowed #1D9BD1", DAN));
    expect(allowed).toContain("Allowed");
    expect(allowed).not.toMatch(/may not|U0BOB/);
    // And back: Dan refused again at once.
    expect(text(await one.core.run("settings set writers=<@U0BOB>", OPERATOR))).not.toMatch(/cannot/i);
    expect(text(await (await requestOn(two)).run("tag add Late #1D9BD1", DAN))).toMatch(/U0BOB/);
  });

  it("a replica whose listening connection went half-open applies a settings change within REPLICA_CHECK_SECONDS, without a request", async () => {
    const proxy = await startStallingProxy(db1.url!);
    const db3 = await openDb({ databaseUrl: proxy.url, maxConnections: 5 });
    const three = await createSwitchboard(
      loadConfig({
        LOG_LEVEL: "warn",
        MESSAGING_API_URL: one.sandbox!.url,
        MESSAGING_API_KEY: one.apiKey,
        REPLICA_CHECK_SECONDS: "1",
      }),
      { logger, db: db3 },
    );
    try {
      expect(proxy.stall((sent) => sent.includes("listen switchboard_workspace"))).toBe(1);
      expect(await three.core.may(DAN, "write")).toBe(false);
      expect(text(await one.core.run("settings set writers=<@U0DAN>", OPERATOR))).not.toMatch(/cannot/i);
      await eventually(async () => three.core.may(DAN, "write"), "replica 3 applying the new settings", {
        timeoutMs: 10_000,
      });
      expect(text(await three.core.run("tag add Checked #1D9BD1", DAN))).toContain("Checked");
    } finally {
      await three.close();
      await db3.close();
      await proxy.close();
    }
  }, 60_000);
});
