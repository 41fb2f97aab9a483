// Token rotation (src/slack/tenancy/tokens.ts): a bot token near its expiry is
// refreshed once with oauth.v2.access (the fake Slack on loopback), under the
// installation's row lock, also when two processes share one PostgreSQL.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasCode } from "../../src/platform/errors.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { TokenSource } from "../../src/slack/tenancy/tokens.ts";
import { openDb } from "../../src/store/db.ts";
import { type InstallationKey, Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { FakeSlack, type FakeTeam } from "../fakes/slack.ts";
import { openTestDb, postgresUrl, storeBackends, type TestDb } from "../helpers/db.ts";

const keyring = new Keyring(randomBytes(32));

/** "Add to Slack" in the fake, the code exchanged as the OAuth library does; the installation kept with `expiresInMs` left. */
async function install(fake: FakeSlack, team: FakeTeam, store: Installations, expiresInMs: number) {
  const code = fake.authorizeCode(team);
  const res = await fetch(`${fake.apiUrl}oauth.v2.access`, {
    method: "POST",
    body: new URLSearchParams({ client_id: fake.clientId, client_secret: fake.clientSecret, code }),
  });
  const grant = (await res.json()) as Record<string, string>;
  expect(grant.ok).toBe(true);
  await store.save({
    isEnterpriseInstall: false,
    teamId: team.teamId,
    installerUserId: team.installerUserId,
    bot: {
      token: grant.access_token!,
      refreshToken: grant.refresh_token,
      expiresAt: new Date(Date.now() + expiresInMs),
      id: team.botId,
      userId: team.botUserId,
      scopes: grant.scope!.split(","),
    },
  });
  return grant;
}

const source = (fake: FakeSlack, installations: Installations) =>
  new TokenSource({
    installations,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    slackApiUrl: fake.apiUrl,
  });

async function authTest(fake: FakeSlack, token: string) {
  const res = await fetch(`${fake.apiUrl}auth.test`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
  });
  return (await res.json()) as Record<string, unknown>;
}

describe.each(storeBackends())("bot tokens on %s", (backend) => {
  let db: TestDb;
  let fake: FakeSlack;
  let store: Installations;
  beforeAll(async () => {
    [db, fake] = await Promise.all([openTestDb(backend), FakeSlack.start()]);
    await migrateStore(db);
    store = await Installations.open(db, keyring);
  }, 60_000);
  afterAll(async () => {
    await fake?.close();
    await db?.close();
  });

  it("gives a token with time left as it is, without calling Slack", async () => {
    const team = fake.addTeam({ teamId: "TFRESH" });
    const grant = await install(fake, team, store, 6 * 3600_000);
    const tokens = source(fake, store);
    expect(await tokens.botToken({ isEnterpriseInstall: false, teamId: "TFRESH" })).toBe(grant.access_token);
    expect(fake.refreshCalls()).toHaveLength(0);
  });

  it("refreshes a token near its expiry once, for every caller, and keeps the new one sealed", async () => {
    const team = fake.addTeam({ teamId: "TNEAR" });
    const first = await install(fake, team, store, 60_000);
    const key: InstallationKey = { isEnterpriseInstall: false, teamId: "TNEAR" };
    const tokens = source(fake, store);
    const got = await Promise.all([1, 2, 3, 4].map(() => tokens.botToken(key)));
    expect(fake.refreshCalls()).toHaveLength(1);
    expect(new Set(got)).toEqual(new Set([team.botToken]));
    expect(got[0]).not.toBe(first.access_token);
    expect(await authTest(fake, got[0]!)).toMatchObject({
      ok: true,
      team_id: "TNEAR",
      user_id: team.botUserId,
    });
    const kept = await store.find(key);
    expect(kept?.bot?.refreshToken).toBe(team.refreshToken);
    expect(kept!.bot!.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    // A second source (another process) finds it fresh: no second refresh.
    expect(await source(fake, store).botToken(key)).toBe(got[0]);
    expect(fake.refreshCalls()).toHaveLength(1);
    const { rows } = await db.query("select * from workspaces.installations where team_id = 'TNEAR'");
    expect(JSON.stringify(rows)).not.toContain(team.botToken!);
    expect(JSON.stringify(rows)).not.toContain(team.refreshToken!);
  });

  it("says in words when Slack refuses the refresh, naming no token", async () => {
    const team = fake.addTeam({ teamId: "TSPENT" });
    const grant = await install(fake, team, store, 60_000);
    // The refresh token is spent elsewhere (another deployment, say).
    await fetch(`${fake.apiUrl}oauth.v2.access`, {
      method: "POST",
      body: new URLSearchParams({
        client_id: fake.clientId,
        client_secret: fake.clientSecret,
        grant_type: "refresh_token",
        refresh_token: grant.refresh_token!,
      }),
    });
    const err = await source(fake, store)
      .botToken({ isEnterpriseInstall: false, teamId: "TSPENT" })
      .catch((e: unknown) => e);
    expect(hasCode(err, "slack_token_refresh")).toBe(true);
    expect(String(err)).toMatch(
      /Slack refused to refresh the token of the workspace TSPENT \(invalid_refresh_token\)/,
    );
    expect(String(err)).not.toContain(grant.refresh_token!);
    // Nothing was replaced: the stored token is the old one still.
    expect((await store.find({ isEnterpriseInstall: false, teamId: "TSPENT" }))?.bot?.token).toBe(
      grant.access_token,
    );
  });

  it("refuses a workspace that is not installed", async () => {
    const err = await source(fake, store)
      .botToken({ isEnterpriseInstall: false, teamId: "TNONE" })
      .catch((e: unknown) => e);
    expect(hasCode(err, "slack_not_installed")).toBe(true);
  });
});

describe.skipIf(!postgresUrl())("two processes on one PostgreSQL", () => {
  let db: TestDb;
  let fake: FakeSlack;
  beforeAll(async () => {
    [db, fake] = await Promise.all([openTestDb("postgres"), FakeSlack.start()]);
    await migrateStore(db);
  }, 60_000);
  afterAll(async () => {
    await fake?.close();
    await db?.close();
  });

  it("spend a refresh token once: exactly one refresh reaches Slack", async () => {
    // Two pools on the one database, as two replicas have.
    const other = await openDb({ databaseUrl: db.url!, maxConnections: 5 });
    try {
      const a = await Installations.open(db, keyring);
      const b = await Installations.open(other, keyring);
      for (let round = 1; round <= 5; round++) {
        const team = fake.addTeam({ teamId: `TRACE${round}` });
        await install(fake, team, a, 60_000);
        const key: InstallationKey = { isEnterpriseInstall: false, teamId: team.teamId };
        const before = fake.refreshCalls().length;
        const [sa, sb] = [source(fake, a), source(fake, b)];
        const got = await Promise.all([
          sa.botToken(key),
          sb.botToken(key),
          sa.botToken(key),
          sb.botToken(key),
        ]);
        expect(fake.refreshCalls().length - before).toBe(1);
        expect(new Set(got)).toEqual(new Set([team.botToken]));
      }
      // Only refresh grants that Slack took: none refused for a spent token.
      expect(
        fake.callsOf("oauth.v2.access").filter((c) => c.response.error === "invalid_refresh_token"),
      ).toHaveLength(0);
    } finally {
      await other.close();
    }
  });
});
