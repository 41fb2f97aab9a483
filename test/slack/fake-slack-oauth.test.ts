// The fake Slack's OAuth side ("Add to Slack" and token rotation), driven with
// the real WebClient as @slack/oauth drives it: several workspaces, each with
// its own bot token; a code and a refresh token work once; a rotating token
// expires.
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settingsGroupModal } from "../../src/slack/forms/settings.ts";
import { workspaceGroups } from "../../src/slack/io/usergroups.ts";
import { FakeSlack } from "../fakes/slack.ts";
import { slackError } from "../helpers/rejection.ts";
import { DEFAULT_SETTINGS } from "../helpers/settings.ts";

let fake: FakeSlack;
let clock = 1_700_000_000_000;
let noToken: webApi.WebClient;
const client = (token?: string) =>
  new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });

beforeAll(async () => {
  fake = await FakeSlack.start({ now: () => clock, tokenTtlSeconds: 3600 });
  noToken = client();
});
afterAll(() => fake?.close());

describe("fake Slack OAuth", () => {
  it("installs several workspaces, each with its own bot token, and an org-wide install", async () => {
    const a = fake.addTeam({ teamId: "TA", teamName: "Acme" });
    const b = fake.addTeam({ teamId: "TB", rotation: false });
    const org = fake.addTeam({ teamId: "TG", enterpriseId: "E1", isEnterpriseInstall: true });
    const creds = { client_id: fake.clientId, client_secret: fake.clientSecret };

    const ga = await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(a) });
    expect(ga).toMatchObject({
      ok: true,
      token_type: "bot",
      bot_user_id: a.botUserId,
      team: { id: "TA", name: "Acme" },
      is_enterprise_install: false,
      expires_in: 3600,
      authed_user: { id: a.installerUserId },
    });
    expect(ga.access_token).toMatch(/^xoxe\.xoxb-TA-/);
    expect(ga.refresh_token).toMatch(/^xoxe-1-TA-/);
    const gb = await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(b) });
    expect(gb.refresh_token).toBeUndefined();
    expect(gb.expires_in).toBeUndefined();
    const gorg = await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(org) });
    expect(gorg).toMatchObject({ team: null, enterprise: { id: "E1" }, is_enterprise_install: true });

    expect(await client(ga.access_token).auth.test()).toMatchObject({ team_id: "TA", user_id: a.botUserId });
    expect(await client(gb.access_token).auth.test()).toMatchObject({ team_id: "TB", bot_id: b.botId });
    expect(await client(gorg.access_token).auth.test()).toMatchObject({
      enterprise_id: "E1",
      is_enterprise_install: true,
    });
  });

  it("takes a code once and only with the app's credentials", async () => {
    const t = fake.addTeam({ teamId: "TC" });
    const code = fake.authorizeCode(t);
    expect(
      await slackError(noToken.oauth.v2.access({ client_id: fake.clientId, client_secret: "wrong", code })),
    ).toBe("bad_client_secret");
    expect(
      await slackError(noToken.oauth.v2.access({ client_id: "1.2", client_secret: fake.clientSecret, code })),
    ).toBe("invalid_client_id");
    await noToken.oauth.v2.access({ client_id: fake.clientId, client_secret: fake.clientSecret, code });
    expect(
      await slackError(
        noToken.oauth.v2.access({ client_id: fake.clientId, client_secret: fake.clientSecret, code }),
      ),
    ).toBe("invalid_code");
  });

  it("refreshes with a refresh token once; a rotating token expires", async () => {
    const t = fake.addTeam({ teamId: "TR" });
    const creds = { client_id: fake.clientId, client_secret: fake.clientSecret };
    const g = await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(t) });
    const refresh = { ...creds, grant_type: "refresh_token" as const, refresh_token: g.refresh_token! };
    const r = await noToken.oauth.v2.access(refresh);
    expect(r.access_token).not.toBe(g.access_token);
    expect(r.refresh_token).not.toBe(g.refresh_token);
    expect(fake.refreshCalls()).toHaveLength(1);
    expect(await slackError(noToken.oauth.v2.access(refresh))).toBe("invalid_refresh_token");
    expect(fake.refreshCalls()).toHaveLength(1);

    clock += 3600_000;
    expect(await slackError(client(r.access_token).auth.test())).toBe("token_expired");
    expect(await slackError(client("xoxb-unknown").auth.test())).toBe("invalid_auth");
  });
});

describe("fake Slack user groups (usergroups.list)", () => {
  it("lists each workspace's own groups, and answers plan_upgrade_required on a plan without them", async () => {
    const creds = { client_id: fake.clientId, client_secret: fake.clientSecret };
    const a = fake.addTeam({ teamId: "TUA", rotation: false });
    const b = fake.addTeam({ teamId: "TUB", rotation: false });
    const c = fake.addTeam({ teamId: "TUC", rotation: false });
    fake.setUserGroup("S0SUPPORT", ["U1"], { name: "Support", handle: "support", team: "TUA" });
    fake.setUserGroup("S0SALES", ["U2"], { name: "Sales", handle: "sales", team: "TUB" });
    fake.setPlanWithoutUserGroups("TUC");
    const token = async (t: typeof a) =>
      (await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(t) })).access_token!;
    const listed = await client(await token(a)).usergroups.list({});
    expect(listed.usergroups?.map((g) => [g.id, g.name, g.handle])).toEqual([
      ["S0SUPPORT", "Support", "support"],
    ]);
    const other = await client(await token(b)).usergroups.list({});
    expect(other.usergroups?.map((g) => g.id)).toEqual(["S0SALES"]);
    const refused = await client(await token(c))
      .usergroups.list({})
      .then(
        () => "answered",
        (err: { data?: { error?: string } }) => err.data?.error,
      );
    expect(refused).toBe("plan_upgrade_required");
  });

  it("Switchboard reads them once per workspace (Tier 2), and the settings form hides groups where the plan has none", async () => {
    const creds = { client_id: fake.clientId, client_secret: fake.clientSecret };
    const d = fake.addTeam({ teamId: "TUD", rotation: false });
    const e = fake.addTeam({ teamId: "TUE", rotation: false });
    fake.setUserGroup("S0OPS", ["U1"], { name: "Ops", handle: "ops", team: "TUD" });
    fake.setPlanWithoutUserGroups("TUE");
    const dClient = client(
      (await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(d) })).access_token,
    );
    const eClient = client(
      (await noToken.oauth.v2.access({ ...creds, code: fake.authorizeCode(e) })).access_token,
    );
    const calls = () => fake.callsOf("usergroups.list").length;
    const before = calls();
    expect(await workspaceGroups(dClient)).toEqual({
      available: true,
      groups: [{ id: "S0OPS", name: "Ops", handle: "ops" }],
    });
    await workspaceGroups(dClient);
    expect(calls()).toBe(before + 1);
    expect(await workspaceGroups(eClient)).toEqual({ available: false });

    const data = (groups: { available: boolean; names: Record<string, string> }) => ({
      settings: DEFAULT_SETTINGS,
      channels: [],
      groups,
    });
    const blocks = (groups: { available: boolean; names: Record<string, string> }) =>
      (settingsGroupModal(data(groups), "people", {}).blocks as Array<{ block_id?: string }>).map(
        (b) => b.block_id,
      );
    expect(blocks({ available: true, names: {} })).toContain("writers_groups");
    expect(blocks({ available: false, names: {} })).not.toContain("writers_groups");
    expect(blocks({ available: false, names: {} })).toContain("writers");
  });
});
