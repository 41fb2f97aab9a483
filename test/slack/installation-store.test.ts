// @slack/oauth's InstallationStore over Switchboard's store
// (src/slack/tenancy/installation-store.ts): what the OAuth library stores comes back
// as it expects, the installer's own token only to the installer, never a
// refresh token (only the TokenSource refreshes, under the store's lock).

import { randomBytes } from "node:crypto";
import type { Installation } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hasCode } from "../../src/platform/errors.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { installationStore } from "../../src/slack/tenancy/installation-store.ts";
import { TokenSource } from "../../src/slack/tenancy/tokens.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";

let db: TestDb;
let adapter: ReturnType<typeof installationStore>;

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  const installations = await Installations.open(db, new Keyring(randomBytes(32)));
  // No Slack behind it: every token here has hours left, so none is refreshed.
  const tokens = new TokenSource({
    installations,
    clientId: "1.2",
    clientSecret: "unused",
    slackApiUrl: "http://127.0.0.1:9/api/",
  });
  adapter = installationStore(installations, tokens);
}, 60_000);
afterAll(() => db?.close());

const inSixHours = () => Math.floor(Date.now() / 1000) + 6 * 3600;

describe("the OAuth library's installation store", () => {
  it("gives back a workspace's installation as stored, without its refresh tokens", async () => {
    const expiresAt = inSixHours();
    const installation: Installation<"v2", false> = {
      team: { id: "T1", name: "Acme" },
      enterprise: undefined,
      user: { id: "U1", token: "xoxp-user", refreshToken: "xoxe-user", expiresAt, scopes: ["search:read"] },
      bot: {
        token: "xoxe.xoxb-1",
        refreshToken: "xoxe-1",
        expiresAt,
        scopes: ["commands"],
        id: "B1",
        userId: "UB1",
      },
      appId: "A1",
      tokenType: "bot",
      isEnterpriseInstall: false,
      authVersion: "v2",
      metadata: "from the install page",
    };
    await adapter.storeInstallation(installation);
    const back = await adapter.fetchInstallation({
      teamId: "T1",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(back).toEqual({
      team: { id: "T1", name: "Acme" },
      enterprise: undefined,
      user: { id: "U1", token: "xoxp-user", scopes: ["search:read"], expiresAt },
      bot: { token: "xoxe.xoxb-1", scopes: ["commands"], id: "B1", userId: "UB1" },
      appId: "A1",
      tokenType: "bot",
      isEnterpriseInstall: false,
      authVersion: "v2",
      metadata: "from the install page",
    });
    // Someone else's request: the installer's own token is not theirs.
    const other = await adapter.fetchInstallation({
      teamId: "T1",
      enterpriseId: undefined,
      userId: "U2",
      isEnterpriseInstall: false,
    });
    expect(other.user.token).toBeUndefined();
    expect(other.bot?.token).toBe("xoxe.xoxb-1");
  });

  it("deletes an installation, then says it is not installed", async () => {
    const query = { teamId: "T1", enterpriseId: undefined, isEnterpriseInstall: false as const };
    await adapter.deleteInstallation!(query);
    const err = await adapter.fetchInstallation(query).catch((e: unknown) => e);
    expect(hasCode(err, "slack_not_installed")).toBe(true);
  });
});
