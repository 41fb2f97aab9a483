// Schema `workspaces` (src/store/installations.ts): installations keyed by
// enterprise, team and org-wide, tokens and API keys sealed, late uninstall
// and revocation events ignored, secret key rotation.

import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { hasCode } from "../../src/platform/errors.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { type Installation, Installations, WORKSPACES_MIGRATIONS } from "../../src/store/installations.ts";
import { storeBackends, type TestDb, useStoreDb } from "../helpers/db.ts";

const install = (teamId: string, over: Partial<Installation> = {}): Installation => ({
  isEnterpriseInstall: false,
  teamId,
  teamName: `Team ${teamId}`,
  appId: "A0SWITCH",
  installerUserId: `U${teamId}`,
  bot: {
    token: `xoxe.xoxb-${teamId}-${randomBytes(8).toString("hex")}`,
    refreshToken: `xoxe-1-${teamId}-${randomBytes(8).toString("hex")}`,
    expiresAt: new Date("2030-01-01T00:00:00Z"),
    id: `B${teamId}`,
    userId: `UB${teamId}`,
    scopes: ["commands", "chat:write"],
  },
  ...over,
});

/** Every text value of the schema's tables, to look for secrets in the clear. */
async function everyValue(db: TestDb): Promise<string> {
  const out: string[] = [];
  for (const table of ["installations", "connections", "departures"]) {
    const { rows } = await db.query(`select * from workspaces.${table}`);
    out.push(JSON.stringify(rows));
  }
  return out.join("\n");
}

describe.each(storeBackends())("installations on %s", (backend) => {
  const db = useStoreDb(backend);
  const oldKey = randomBytes(32);
  const keyring = new Keyring(oldKey);
  let clock = new Date("2026-01-01T10:00:00.500Z");
  let store: Installations;
  beforeAll(async () => {
    store = await Installations.open(db(), keyring, { now: () => clock });
  });

  it("keeps an installation with its tokens sealed, and gives them back opened", async () => {
    const inst = install("T1");
    const stored = await store.save(inst);
    expect(stored.installedAt).toEqual(clock);
    const found = await store.find({ isEnterpriseInstall: false, teamId: "T1" });
    expect(found).toEqual({ ...inst, installedAt: clock });
    const raw = await everyValue(db());
    expect(raw).not.toContain(inst.bot!.token);
    expect(raw).not.toContain(inst.bot!.refreshToken!);
    expect(raw).toContain(`sb1.${keyring.version}.`);
    expect(await store.find({ isEnterpriseInstall: false, teamId: "T404" })).toBeUndefined();
    const { rows } = await db().query<{ id: string }>("select id from workspaces.migrations");
    expect(rows.map((r) => r.id)).toEqual(WORKSPACES_MIGRATIONS.migrations.map((m) => m.id));
  });

  it("keys by team and by org-wide install: workspaces of one enterprise never share an installation", async () => {
    const a = install("TA", { enterpriseId: "E1" });
    const b = install("TB", { enterpriseId: "E1" });
    await store.save(a);
    await store.save(b);
    expect((await store.find({ isEnterpriseInstall: false, teamId: "TA" }))?.bot?.token).toBe(a.bot!.token);
    expect((await store.find({ isEnterpriseInstall: false, teamId: "TB" }))?.bot?.token).toBe(b.bot!.token);
    // No org-wide install of E1: the enterprise alone finds nothing.
    expect(await store.find({ isEnterpriseInstall: true, enterpriseId: "E1" })).toBeUndefined();

    const org: Installation = {
      ...install("unused"),
      isEnterpriseInstall: true,
      teamId: undefined,
      teamName: undefined,
      enterpriseId: "E2",
      enterpriseName: "Grid Co",
    };
    delete org.teamId;
    delete org.teamName;
    await store.save(org);
    const found = await store.find({ isEnterpriseInstall: true, enterpriseId: "E2" });
    expect(found?.bot?.token).toBe(org.bot!.token);
    expect(found?.teamId).toBeUndefined();
    // A workspace of E2 is served by the org-wide install; one of E1 by its own.
    expect((await store.forTeam("TX", "E2"))?.bot?.token).toBe(org.bot!.token);
    expect((await store.forTeam("TA", "E1"))?.bot?.token).toBe(a.bot!.token);
    expect(await store.forTeam("TX", "E1")).toBeUndefined();
  });

  it("a reinstall replaces the earlier installation, also after the workspace joined an enterprise", async () => {
    await store.save(install("TR"));
    const again = install("TR", { enterpriseId: "E9" });
    await store.save(again);
    const found = await store.find({ isEnterpriseInstall: false, teamId: "TR" });
    expect(found?.bot?.token).toBe(again.bot!.token);
    expect(found?.enterpriseId).toBe("E9");
    const { rows } = await db().query("select 1 from workspaces.installations where team_id = 'TR'");
    expect(rows).toHaveLength(1);
  });

  it("uninstall removes the installation and the API key, once; a late event about an earlier install is ignored", async () => {
    clock = new Date("2026-02-01T10:00:00.700Z");
    const key = { isEnterpriseInstall: false as const, teamId: "TU" };
    await store.save(install("TU"));
    await store.connect({ teamId: "TU", apiKey: "sk_live_tu", organizationName: "Acme", connectedBy: "UTU" });
    // The uninstall, in the second of the install: it counts.
    expect(await store.uninstall(key, new Date("2026-02-01T10:00:00Z"))).toBe("removed");
    expect(await store.find(key)).toBeUndefined();
    expect(await store.connection("TU")).toBeUndefined();
    expect(await store.uninstall(key, new Date("2026-02-01T10:00:00Z"))).toBe("absent");
    expect((await store.departedBefore(new Date("2026-02-02"))).map((d) => d.key)).toContainEqual(key);

    // Reinstalled a minute later; the first uninstall's redelivery arrives after it.
    clock = new Date("2026-02-01T10:01:00.200Z");
    const again = install("TU");
    await store.save(again);
    expect(await store.departedBefore(new Date("2026-02-02"))).not.toContainEqual(
      expect.objectContaining({ key }),
    );
    expect(await store.uninstall(key, new Date("2026-02-01T10:00:00Z"))).toBe("stale");
    expect(await store.revokeTokens(key, { botUserIds: ["UBTU"] }, new Date("2026-02-01T10:00:30Z"))).toBe(
      "stale",
    );
    expect((await store.find(key))?.bot?.token).toBe(again.bot!.token);
  });

  it("an org-wide uninstall names the org's connected workspaces for the purge, and removes their keys", async () => {
    clock = new Date("2026-03-01T10:00:00.000Z");
    const org = { isEnterpriseInstall: true as const, enterpriseId: "EORG" };
    await store.save({
      ...install("ignored"),
      isEnterpriseInstall: true,
      teamId: undefined,
      enterpriseId: "EORG",
    } as Installation);
    for (const team of ["TO1", "TO2"])
      await store.connect({
        teamId: team,
        enterpriseId: "EORG",
        apiKey: `sk_${team}`,
        organizationName: team,
        connectedBy: "U1",
      });
    expect(await store.connectedTeamsOf("EORG")).toEqual(["TO1", "TO2"]);
    expect(await store.uninstall(org, new Date("2026-03-01T11:00:00Z"))).toBe("removed");
    expect(await store.connection("TO1")).toBeUndefined();
    const gone = (await store.departedBefore(new Date("2026-03-02"))).find((d) => d.key.isEnterpriseInstall);
    expect(gone?.teams.sort()).toEqual(["TO1", "TO2"]);
  });

  it("tokens_revoked forgets only the tokens it names", async () => {
    clock = new Date("2026-03-01T00:00:00Z");
    const key = { isEnterpriseInstall: false as const, teamId: "TV" };
    await store.save(
      install("TV", {
        user: { token: "xoxp-user-tv", scopes: ["search:read"], refreshToken: "xoxe-user-tv" },
      }),
    );
    const later = new Date("2026-03-01T01:00:00Z");
    expect(await store.revokeTokens(key, { userIds: ["USOMEONE"] }, later)).toBe("absent");
    expect(await store.revokeTokens(key, { userIds: ["UTV"] }, later)).toBe("removed");
    let found = await store.find(key);
    expect(found?.user).toBeUndefined();
    expect(found?.bot?.token).toMatch(/^xoxe\.xoxb-TV-/);
    expect(await store.revokeTokens(key, { botUserIds: ["UBTV"] }, later)).toBe("removed");
    found = await store.find(key);
    expect(found?.bot).toBeUndefined();
    expect(found?.installerUserId).toBe("UTV");
    expect(await everyValue(db())).not.toContain("xoxp-user-tv");
  });

  it("keeps a workspace's API key sealed, with the organization it opens", async () => {
    const connection = {
      teamId: "TK",
      enterpriseId: "E1",
      apiKey: "sk_live_secret_key_tk",
      organizationName: "Acme Store",
      keyScopes: ["read", "write"],
      connectedBy: "UADMIN",
    };
    await store.connect(connection);
    const c = await store.connection("TK");
    expect(c).toMatchObject(connection);
    expect(await everyValue(db())).not.toContain("sk_live_secret_key_tk");
    expect(await store.disconnect("TK")).toBe(true);
    expect(await store.disconnect("TK")).toBe(false);
    expect(await store.connection("TK")).toBeUndefined();
  });

  it("a value moved onto another row does not open", async () => {
    await store.save(install("TM1"));
    await store.save(install("TM2"));
    await db().query(
      "update workspaces.installations set bot_token = (select bot_token from workspaces.installations where team_id = 'TM1') where team_id = 'TM2'",
    );
    await expect(store.find({ isEnterpriseInstall: false, teamId: "TM2" })).rejects.toSatisfy((err) =>
      hasCode(err, "secret_unreadable"),
    );
    await store.remove({ isEnterpriseInstall: false, teamId: "TM2" });
  });

  it("rotates the secret key: reads with either, rewrites with the new one, refuses an unknown key", async () => {
    const newKey = randomBytes(32);
    const inst = install("TROT");
    await store.save(inst);
    await store.connect({ teamId: "TROT", apiKey: "sk_rot", organizationName: "Rot", connectedBy: "U1" });

    const stranger = await Installations.open(db(), new Keyring(randomBytes(32)));
    await expect(stranger.find({ isEnterpriseInstall: false, teamId: "TROT" })).rejects.toThrow(
      /neither SWITCHBOARD_SECRET_KEY nor SWITCHBOARD_SECRET_KEY_PREVIOUS/,
    );

    const during = await Installations.open(db(), new Keyring(newKey, oldKey));
    expect((await during.find({ isEnterpriseInstall: false, teamId: "TROT" }))?.bot?.token).toBe(
      inst.bot!.token,
    );
    expect((await during.connection("TROT"))?.apiKey).toBe("sk_rot");
    // The rest of the rows are rewritten in one pass.
    expect(await during.resealAll()).toBeGreaterThan(0);
    expect(await during.resealAll()).toBe(0);
    const raw = await everyValue(db());
    expect(raw).not.toContain(`sb1.${keyring.version}.`);

    const after = await Installations.open(db(), new Keyring(newKey));
    expect((await after.find({ isEnterpriseInstall: false, teamId: "TROT" }))?.bot?.refreshToken).toBe(
      inst.bot!.refreshToken,
    );
    expect((await after.find({ isEnterpriseInstall: false, teamId: "TA" }))?.bot?.token).toMatch(
      /^xoxe\.xoxb-TA-/,
    );
    expect((await after.connection("TROT"))?.apiKey).toBe("sk_rot");
    store = after;
  });
});
