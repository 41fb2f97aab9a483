// Many workspaces end to end on loopback (docs/workspaces.md): the real Bolt
// app in many-workspace mode (HTTP, "Add to Slack"), the fake Slack with several
// teams, the embedded sandbox, the store. Two workspaces install, each is
// answered by its own runtime (its own key), a workspace not connected is
// told how to connect, and leaving works in any order, twice, and late.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ManyWorkspaceSwitchboard } from "../../src/host/app.ts";
import type { SlackApp } from "../../src/slack/app.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import type { FakeSlack, FakeTeam } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import type { TestDb } from "../helpers/db.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;
let fake: FakeSlack;
let db: TestDb;
let sb: ManyWorkspaceSwitchboard;
let slack: SlackApp;
let base = "";
let requests: SlackRequests;
let acme: FakeTeam;
let bolt: FakeTeam;
let logs: WorkspacesStack["logs"];

beforeAll(async () => {
  // The app alone: the workspaces install in the first test, as people do.
  stack = await startWorkspacesStack({ teams: [], env: { INBOX_POLL_SECONDS: "1" } });
  ({ fake, db, sb, slack, base, requests, logs } = stack);
  acme = fake.addTeam({ teamId: "TACME", teamName: "Acme", installerUserId: "U0ALICE" });
  bolt = fake.addTeam({ teamId: "TBOLT", teamName: "Bolt & Co", installerUserId: "U0BOB" });
  // Each workspace's people (a person is one workspace's): Alice and Carol are Acme's, Bob is Bolt's.
  fake.addUser({ id: "U0ALICE", name: "alice", team: acme.teamId });
  fake.addUser({ id: "U0CAROL", name: "carol", team: acme.teamId });
  fake.addUser({ id: "U0BOB", name: "bob", team: bolt.teamId });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** "Add to Slack" as a person does it: the install page, Slack's consent for `team`, the redirect. */
const addToSlack = (team: FakeTeam): Promise<string> => stack.addToSlack(team);

/** A slash command from `team`, and its answer (the first post to its response_url). */
async function command(
  team: FakeTeam,
  text: string,
  user = { id: "U0ALICE", name: "alice" },
): Promise<string> {
  const sent = await requests.asTeam(team.teamId, team.botUserId).command(text, { user });
  expect(sent.status).toBe(200);
  const answer = await fake.waitForResponse(sent.responseUrl!);
  return JSON.stringify(answer.body);
}

describe("many workspaces", () => {
  it("installs two workspaces with Add to Slack, each told to connect", async () => {
    expect(await addToSlack(acme)).toContain("installed in Acme");
    expect(await addToSlack(bolt)).toContain("installed in Bolt &amp; Co");
    // Installed, not connected: every command says how to connect and who can, without the API.
    const answer = await command(acme, "tags");
    expect(answer).toContain("not connected to a messaging account");
    expect(answer).toContain("/sb connect");
    expect(answer).toContain(acme.installerUserId);
  });

  it("answers each workspace with its own API key once connected", async () => {
    const sandbox = sb.sandbox!;
    // Someone who is neither an admin nor the installer may not connect: told who may.
    const refused = await command(acme, "connect demo", { id: "U0CAROL", name: "carol" });
    expect(refused).toContain("U0ALICE");
    expect(await sb.installations.connection(acme.teamId)).toBeUndefined();
    // Acme's installer takes a demo account: an organization of Acme's own in the sandbox.
    expect(await command(acme, "connect demo")).toContain("Connected to");
    // Bolt's installer gives a key that can only read (the sandbox's first organization's).
    expect(await command(bolt, `connect key=${sandbox.readKey}`, { id: "U0BOB", name: "bob" })).toMatch(
      /read-only|read only|may only read/i,
    );
    const acmeKey = (await sb.installations.connection(acme.teamId))!.apiKey;
    expect(acmeKey).not.toBe(sandbox.readKey);
    // In Acme's audit trail, not Bolt's.
    expect((await new AuditLog(db, acme.teamId).list()).map((e) => e.operation)).toContain(
      "workspace.connect",
    );
    expect((await new AuditLog(db, bolt.teamId).list()).map((e) => e.operation)).toEqual([
      "workspace.connect",
    ]);
    expect(await sb.sandbox!.organizationOf(acmeKey)).not.toEqual(
      await sb.sandbox!.organizationOf(sandbox.readKey),
    );
    const acmeRt = await sb.workspaces.runtime(acme.teamId);
    const boltRt = await sb.workspaces.runtime(bolt.teamId);
    expect(acmeRt?.apiKey).toBe(acmeKey);
    expect(boltRt?.apiKey).toBe(sandbox.readKey);
    expect(acmeRt?.client).not.toBe(boltRt?.client);
    expect(await command(acme, "tags")).not.toContain("not connected");
    // Bolt's key only reads: the API refuses its write, Acme's goes through.
    expect(await command(bolt, "tag add Vip #112233", { id: "U0BOB", name: "bob" })).toMatch(
      /read|permission|scope/i,
    );
    await requests.asTeam(acme.teamId, acme.botUserId).command("tag add Vip #112233");
    // Said in the channel, with Acme's own bot token.
    const post = await fake.waitForCall("chat.postMessage");
    expect(JSON.stringify(post.args)).toContain("Vip");
    expect(fake.callsOf("chat.postMessage").map((c) => c.team)).toEqual([acme.teamId]);
    // Each sees its own organization's records: Acme's new tag is not Bolt's.
    expect(await command(acme, "tags")).toContain("Vip");
    expect(await command(bolt, "tags", { id: "U0BOB", name: "bob" })).not.toContain("Vip");
  });

  it("a workspace's inbox runs in the background: its customers' messages reach its channel, with its token", async () => {
    const acmeKey = (await sb.installations.connection(acme.teamId))!.apiKey;
    await requests
      .asTeam(acme.teamId, acme.botUserId)
      .command(`inbox on ${fake.generalOf(acme.teamId)}`, { user: { id: "U0ALICE", name: "alice" } });
    const acmeInbox = new InboxStore(db, acme.teamId);
    await expect.poll(async () => (await acmeInbox.inboxes()).length).toBe(1);
    // Bolt has none: an inbox is one workspace's.
    expect(await new InboxStore(db, bolt.teamId).inboxes()).toEqual([]);
    // A customer writes to Acme's own organization.
    await sb.sandbox!.inbound({ phone: "+14155550199", text: "Hello Acme", of: { apiKey: acmeKey } });
    await expect
      .poll(
        () =>
          fake
            .callsOf("chat.postMessage")
            .filter((c) => c.team === acme.teamId && JSON.stringify(c.args).includes("Hello Acme")).length,
        { timeout: 60_000 },
      )
      .toBeGreaterThan(0);
    // Nothing of Acme's inbox was posted with another workspace's token.
    expect(
      fake
        .callsOf("chat.postMessage")
        .filter((c) => c.team !== acme.teamId && JSON.stringify(c.args).includes("Hello Acme")),
    ).toEqual([]);
  }, 90_000);

  it("a Confirm naming another workspace's confirmation is refused and writes nothing", async () => {
    // Acme asks to delete its tag: a confirmation of Acme's.
    const sent = await requests.asTeam(acme.teamId, acme.botUserId).command("tag delete 4");
    const asked = JSON.stringify((await fake.waitForResponse(sent.responseUrl!)).body);
    const id =
      /"action_id":"sb_confirm"[^}]*?"value":"([^"]+)"|"value":"([^"]+)"[^}]*?"action_id":"sb_confirm"/.exec(
        asked,
      );
    const confirmationId = id?.[1] ?? id?.[2];
    expect(confirmationId).toBeTruthy();
    await sb.installations.connect({
      teamId: bolt.teamId,
      apiKey: sb.sandbox!.apiKey,
      organizationName: "Sandbox",
      connectedBy: bolt.installerUserId,
    });
    await sb.workspaces.forget(bolt.teamId);
    // Bolt's person clicks a forged Confirm carrying Acme's confirmation id.
    const forged = await requests
      .asTeam(bolt.teamId, bolt.botUserId)
      .blockAction(
        { action_id: "sb_confirm", value: confirmationId },
        { user: { id: "U0BOB", name: "bob" } },
      );
    // One answer, in words, without a first "Confirmed by …, working on it".
    const answer = JSON.stringify((await fake.waitForResponse(forged.responseUrl!)).body);
    expect(answer).toContain("That button is not from this workspace");
    expect(answer).toContain("nothing was done");
    // Nothing was deleted, and Acme's confirmation is still there to confirm.
    expect(await command(acme, "tags")).toContain("Vip");
    // The click was handled (its answer came) before Acme's command: no second answer followed.
    expect(fake.responses.filter((r) => forged.responseUrl!.endsWith(r.id))).toHaveLength(1);
    await sb.installations.disconnect(bolt.teamId);
    await sb.workspaces.forget(bolt.teamId);
  });

  it("a workspace of an org-wide install is found from its team id alone (background work has nothing else)", async () => {
    await sb.installations.save({
      isEnterpriseInstall: true,
      enterpriseId: "EORG",
      installerUserId: "U0ALICE",
      bot: { token: "xoxb-org-token", id: "BORG", userId: "UORGBOT", scopes: ["commands"] },
    });
    await sb.installations.connect({
      teamId: "TORG1",
      enterpriseId: "EORG",
      apiKey: sb.sandbox!.readKey,
      organizationName: "Sandbox",
      connectedBy: "U0ALICE",
    });
    const rt = await sb.workspaces.runtime("TORG1");
    expect(rt?.id).toBe("TORG1");
    await sb.installations.disconnect("TORG1");
    await sb.workspaces.forget("TORG1");
    await sb.installations.remove({ isEnterpriseInstall: true, enterpriseId: "EORG" });
  });

  it("a request from a workspace that never installed is told so, and nothing runs", async () => {
    const stranger = fake.addTeam({ teamId: "TSTRANGER", teamName: "Stranger" });
    const sent = await requests.asTeam(stranger.teamId, stranger.botUserId).command("tags");
    // Bolt's authorize finds no installation: Slack is answered, no command runs.
    expect(sent.status).toBeLessThan(500);
    expect(fake.responsesTo(sent.responseUrl!)).toEqual([]);
  });

  it("app_uninstalled removes the workspace's tokens and key; a second and a late one change nothing", async () => {
    const installedAt = (await sb.installations.forTeam(bolt.teamId))!.installedAt;
    const gone = await requests.asTeam(bolt.teamId, bolt.botUserId).event({ type: "app_uninstalled" });
    expect(gone.status).toBe(200);
    await expect.poll(() => sb.installations.forTeam(bolt.teamId)).toBeUndefined();
    expect(await sb.installations.connection(bolt.teamId)).toBeUndefined();
    expect(await sb.workspaces.runtime(bolt.teamId)).toBeUndefined();
    // Twice: absent. The other workspace goes on.
    await requests.asTeam(bolt.teamId, bolt.botUserId).event({ type: "app_uninstalled" });
    expect(await command(acme, "tags")).toContain("Vip");
    // Reinstalled, then an uninstall older than the reinstall arrives late: ignored.
    await addToSlack(bolt);
    const late = Math.floor(installedAt.getTime() / 1000) - 60;
    await requests
      .asTeam(bolt.teamId, bolt.botUserId)
      .event({ type: "app_uninstalled" }, { eventTime: late });
    await new Promise((r) => setTimeout(r, 300));
    expect(await sb.installations.forTeam(bolt.teamId)).toBeDefined();
    // A reinstall starts clean: connect again. Its Home tab says so too, with Bolt's own token.
    expect(await command(bolt, "tags", { id: "U0BOB", name: "bob" })).toContain("not connected");
    await requests
      .asTeam(bolt.teamId, bolt.botUserId)
      .event({ type: "app_home_opened", user: "U0BOB", tab: "home", channel: "D0BOB" });
    await expect
      .poll(() => fake.callsOf("views.publish").filter((c) => c.team === bolt.teamId).length)
      .toBeGreaterThan(0);
    const home = fake.callsOf("views.publish").find((c) => c.team === bolt.teamId)!;
    expect(JSON.stringify(home.args)).toContain("not connected");
  });

  it("tokens_revoked for the bot removes only the bot's tokens", async () => {
    await requests
      .asTeam(bolt.teamId, bolt.botUserId)
      .event({ type: "tokens_revoked", tokens: { bot: [bolt.botUserId] } });
    await expect.poll(async () => (await sb.installations.forTeam(bolt.teamId))?.bot?.token).toBeUndefined();
    expect(await sb.installations.forTeam(bolt.teamId)).toBeDefined();
  });

  it("app_uninstalled after tokens_revoked (the other order) still removes the installation", async () => {
    await requests.asTeam(bolt.teamId, bolt.botUserId).event({ type: "app_uninstalled" });
    await expect.poll(() => sb.installations.forTeam(bolt.teamId)).toBeUndefined();
    // And a tokens_revoked arriving after it finds nothing to do.
    await requests
      .asTeam(bolt.teamId, bolt.botUserId)
      .event({ type: "tokens_revoked", tokens: { bot: [bolt.botUserId] } });
    expect(await sb.installations.forTeam(bolt.teamId)).toBeUndefined();
    // Reinstalled for the checks below.
    await addToSlack(bolt);
  });

  it("/readyz counts the workspaces installed, connected and failing", async () => {
    // Bolt's bot token revoked again: installed, but failing.
    await requests
      .asTeam(bolt.teamId, bolt.botUserId)
      .event({ type: "tokens_revoked", tokens: { bot: [bolt.botUserId] } });
    await expect.poll(async () => (await sb.installations.forTeam(bolt.teamId))?.bot?.token).toBeUndefined();
    const res = await fetch(`${base}/readyz`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { checks: { workspaces: Record<string, number> } };
    // Acme (connected), Bolt (reinstalled, its bot token revoked: failing).
    expect(body.checks.workspaces).toEqual({ installed: 2, connected: 1, failing: 1 });
  });

  it("Bolt's listener clients are bounded: one per workspace that made requests, its latest token only", () => {
    const clients = (
      slack.app as unknown as {
        clients: Record<string, { pool: object; getOrCreate(token: string, o: object): unknown }>;
      }
    ).clients;
    expect(Object.keys(clients)).toEqual(expect.arrayContaining([acme.teamId, bolt.teamId]));
    for (const team of Object.keys(clients))
      expect(Object.keys(clients[team]!.pool).length).toBeLessThanOrEqual(1);
    // A connected workspace's listeners use its runtime's bot client: one client a workspace, not two.
    const own = sb.workspaces.slackClientOf(acme.teamId);
    expect(own).toBeDefined();
    expect(clients[acme.teamId]!.getOrCreate("xoxb-any", {})).toBe(own);
    expect(Object.keys(clients[acme.teamId]!.pool)).toHaveLength(0);
  });

  it("logs no token and no key", () => {
    const logged = JSON.stringify(logs);
    for (const secret of [acme.botToken, acme.refreshToken, sb.sandbox!.apiKey, fake.clientSecret])
      if (secret) expect(logged).not.toContain(secret);
  });
});
