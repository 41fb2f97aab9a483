// "Add to Slack" (src/slack/tenancy/oauth.ts) end to end on loopback: the install
// page, Slack's consent (the fake Slack's /oauth/v2/authorize), the redirect
// exchanging its code with oauth.v2.access, the installation kept sealed in
// the store, and Bolt's authorize answering each workspace with its own token.

import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { manifestScopes, type OAuth } from "../../src/slack/tenancy/oauth.ts";
import type { Installations } from "../../src/store/installations.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { TestDb } from "../helpers/db.ts";
import { captureLogger } from "../helpers/log.ts";
import { type OAuthLoopback, startOAuthLoopback } from "../helpers/oauth.ts";

let h: OAuthLoopback;
let fake: FakeSlack;
let db: TestDb;
let store: Installations;
let oauth: OAuth;
let base = "";
const { logger, logs } = captureLogger();

beforeAll(async () => {
  h = await startOAuthLoopback({ logger });
  ({ fake, db, store, oauth, base } = h);
}, 60_000);
afterAll(async () => {
  // What the installer logged (refusals included) holds no token nor the app's secret.
  const logged = JSON.stringify(logs);
  const secrets = [...fake.teams.values()].flatMap((t) => [t.botToken, t.refreshToken]).filter(Boolean);
  for (const secret of [...secrets, fake.clientSecret]) expect(logged).not.toContain(secret);
  await h?.close();
});

/** The install page, then Slack's consent for `team`: the redirect URL (with its code) and the state cookie. */
async function consent(team: string): Promise<{ redirect: string; cookie: string; page: string }> {
  const res = await fetch(`${base}/slack/install`);
  expect(res.status).toBe(200);
  const page = await res.text();
  const cookie = res.headers.getSetCookie()[0]!.split(";")[0]!;
  const href = /href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&");
  const slack = await fetch(`${href}&team=${team}`, { redirect: "manual" });
  expect(slack.status).toBe(302);
  return { redirect: slack.headers.get("location")!, cookie, page };
}

async function addToSlack(team: string): Promise<{ status: number; page: string }> {
  const { redirect, cookie } = await consent(team);
  const res = await fetch(redirect, { headers: { cookie } });
  return { status: res.status, page: await res.text() };
}

describe("Add to Slack", () => {
  it("serves an install page whose button asks for manifest.yml's scopes", async () => {
    const { page } = await consent(fake.addTeam({ teamId: "TPAGE" }).teamId);
    expect(page).toContain('alt="Add to Slack"');
    const href = new URL(/href="([^"]+)"/.exec(page)![1]!.replaceAll("&amp;", "&"));
    expect(href.origin + href.pathname).toBe(`${fake.url}/oauth/v2/authorize`);
    expect(href.searchParams.get("client_id")).toBe(fake.clientId);
    expect(href.searchParams.get("redirect_uri")).toBe(`${base}/slack/oauth_redirect`);
    const manifest = parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8"));
    expect(manifestScopes()).toEqual(manifest.oauth_config.scopes.bot);
    expect(href.searchParams.get("scope")?.split(",")).toEqual(manifest.oauth_config.scopes.bot);
  });

  it("installs two workspaces, each kept with its own token, sealed", async () => {
    const a = fake.addTeam({ teamId: "TA", teamName: "Acme" });
    const b = fake.addTeam({ teamId: "TB", teamName: "Bolt & Co" });
    const first = await addToSlack("TA");
    expect(first.status).toBe(200);
    expect(first.page).toContain("Switchboard is installed in Acme");
    expect((await addToSlack("TB")).page).toContain("installed in Bolt &amp; Co");

    const ia = await store.find({ isEnterpriseInstall: false, teamId: "TA" });
    expect(ia).toMatchObject({
      teamName: "Acme",
      installerUserId: a.installerUserId,
      bot: { token: a.botToken, refreshToken: a.refreshToken, userId: a.botUserId, id: a.botId },
    });
    expect(ia?.bot?.expiresAt?.getTime()).toBeGreaterThan(Date.now() + 11 * 3600_000);
    expect((await store.find({ isEnterpriseInstall: false, teamId: "TB" }))?.bot?.token).toBe(b.botToken);

    const auth = await oauth.authorize({ teamId: "TA", enterpriseId: undefined, isEnterpriseInstall: false });
    expect(auth).toMatchObject({
      botToken: a.botToken,
      botUserId: a.botUserId,
      botId: a.botId,
      teamId: "TA",
    });
    // No refresh token handed to Bolt: only the store's TokenSource refreshes, under its lock.
    expect(auth.botRefreshToken).toBeUndefined();
    expect(
      (await oauth.authorize({ teamId: "TB", enterpriseId: undefined, isEnterpriseInstall: false })).botToken,
    ).toBe(b.botToken);

    const { rows } = await db.query("select * from workspaces.installations");
    const raw = JSON.stringify(rows);
    for (const secret of [a.botToken, a.refreshToken, b.botToken, b.refreshToken])
      expect(raw).not.toContain(secret);
  });

  it("installs org-wide, keyed by the enterprise: its workspaces get the org's token", async () => {
    const org = fake.addTeam({
      teamId: "TG",
      enterpriseId: "EGRID",
      enterpriseName: "Grid Co",
      isEnterpriseInstall: true,
    });
    expect((await addToSlack("EGRID")).page).toContain("installed in Grid Co");
    const found = await store.find({ isEnterpriseInstall: true, enterpriseId: "EGRID" });
    expect(found).toMatchObject({ enterpriseName: "Grid Co", bot: { token: org.botToken } });
    expect(found?.teamId).toBeUndefined();
    const auth = await oauth.authorize({ teamId: "TX", enterpriseId: "EGRID", isEnterpriseInstall: true });
    expect(auth).toMatchObject({ botToken: org.botToken, teamId: "TX", enterpriseId: "EGRID" });
  });

  it("refuses a redirect from another browser or a replayed code, and keeps nothing", async () => {
    fake.addTeam({ teamId: "TC" });
    const { redirect } = await consent("TC");
    const other = await consent("TC"); // another browser's state cookie
    const res = await fetch(redirect, { headers: { cookie: other.cookie } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Switchboard was not installed");
    expect(await store.find({ isEnterpriseInstall: false, teamId: "TC" })).toBeUndefined();

    const ok = await consent("TC");
    expect((await fetch(ok.redirect, { headers: { cookie: ok.cookie } })).status).toBe(200);
    const replay = await fetch(ok.redirect, { headers: { cookie: ok.cookie } });
    expect(replay.status).toBe(400);
  });

  it("links back to the workspace after the install (the Slack app and the browser)", async () => {
    fake.addTeam({ teamId: "TLINK", teamName: "Linkers" });
    const { page } = await addToSlack("TLINK");
    expect(page).toContain('href="slack://open?team=TLINK"');
    expect(page).toContain('href="https://app.slack.com/client/TLINK"');
    expect(page).toContain("/sb connect");
  });

  it("says why an install failed, in words: cancelled, an expired link, an approval already used", async () => {
    fake.addTeam({ teamId: "TFAIL" });
    const words = async (res: Response) => {
      expect(res.status).toBe(400);
      const text = await res.text();
      expect(text).toContain("Switchboard was not installed");
      expect(text).not.toMatch(/slack_oauth|access_denied|invalid_code|state/);
      return text;
    };
    // Cancel on Slack's page: Slack sends the person back with error=access_denied.
    const cancelled = await consent("TFAIL");
    const back = new URL(cancelled.redirect);
    const denied = new URL(`${base}/slack/oauth_redirect`);
    denied.searchParams.set("error", "access_denied");
    denied.searchParams.set("state", back.searchParams.get("state")!);
    expect(await words(await fetch(denied, { headers: { cookie: cancelled.cookie } }))).toContain(
      "You cancelled the installation",
    );
    // The link used twice (or after 10 minutes, or in another browser): expired.
    const once = await consent("TFAIL");
    expect((await fetch(once.redirect, { headers: { cookie: once.cookie } })).status).toBe(200);
    expect(await words(await fetch(once.redirect, { headers: { cookie: once.cookie } }))).toContain(
      "The installation link expired",
    );
    // A good link with Slack's approval already spent.
    const again = await consent("TFAIL");
    const reused = new URL(again.redirect);
    reused.searchParams.set("code", new URL(once.redirect).searchParams.get("code")!);
    expect(await words(await fetch(reused, { headers: { cookie: again.cookie } }))).toContain(
      "approval could not be used: it expired or was already used",
    );
    expect(await store.find({ isEnterpriseInstall: false, teamId: "TFAIL" })).toBeDefined();
  });

  it("refuses a workspace that never installed", async () => {
    await expect(
      oauth.authorize({ teamId: "TNONE", enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow(/not installed/);
  });
});
