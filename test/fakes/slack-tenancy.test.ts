// The fake Slack keeps workspaces apart as Slack does, or a many-workspace
// test cannot see a form running in the wrong workspace: a view belongs to
// the workspace whose token opened it, a trigger to the workspace it was
// issued to, another workspace's token cannot update a view, and what a
// person does inside a modal is sent with the stored view's workspace.
// Channels, people and messages are each one workspace's: a token posts,
// reads and reacts only in its own, and sees only its own people.
// Driven with the real WebClient; the payloads are caught by a loopback server.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slackError } from "../helpers/rejection.ts";
import { FakeSlack, type FakeTeam } from "./slack.ts";
import { SlackRequests } from "./slack-requests.ts";

// biome-ignore lint/suspicious/noExplicitAny: payloads are read loosely.
type Json = any;

let fake: FakeSlack;
let acme: FakeTeam;
let bolt: FakeTeam;
let org: FakeTeam;
const clients: Record<string, webApi.WebClient> = {};
let server: Server;
let requests: SlackRequests;
const received: Json[] = [];

const client = (token: string) =>
  new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });

const modal = (title: string, meta = "") => ({
  type: "modal" as const,
  callback_id: "sb_test",
  private_metadata: meta,
  title: { type: "plain_text" as const, text: title },
  close: { type: "plain_text" as const, text: "Close" },
  blocks: [{ type: "section", text: { type: "mrkdwn", text: title } }],
});

/** The last payload the catching server received. */
const lastPayload = (): Json => {
  const raw = received.at(-1) as string;
  const form = new URLSearchParams(raw);
  return form.has("payload") ? JSON.parse(form.get("payload")!) : Object.fromEntries(form);
};

beforeAll(async () => {
  fake = await FakeSlack.start();
  acme = fake.addTeam({ teamId: "TACME", rotation: false });
  bolt = fake.addTeam({ teamId: "TBOLT", rotation: false });
  org = fake.addTeam({
    teamId: "TORGWS",
    enterpriseId: "EORG",
    isEnterpriseInstall: true,
    rotation: false,
    orgTeams: ["TORGTWO"],
  });
  const creds = { client_id: fake.clientId, client_secret: fake.clientSecret };
  for (const team of [acme, bolt, org]) {
    const grant = await client("").oauth.v2.access({ ...creds, code: fake.authorizeCode(team) });
    clients[team.teamId] = client(grant.access_token as string);
  }
  clients.default = client(fake.botToken);
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => {
      body += d;
    });
    req.on("end", () => {
      received.push(body);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  requests = new SlackRequests(`http://127.0.0.1:${port}/slack/events`, "secret", fake);
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await fake?.close();
});

describe("the fake Slack keeps workspaces apart", () => {
  it("a view opened with a workspace's token is that workspace's: team_id and app_installed_team_id", async () => {
    const opened = await clients.TACME!.views.open({
      trigger_id: fake.newTriggerId(fake.sender("TACME").key),
      view: modal("Acme's"),
    });
    expect(opened.view).toMatchObject({ team_id: "TACME", app_installed_team_id: "TACME" });
    expect(fake.view(opened.view!.id!)).toMatchObject({ team: "TACME", teamId: "TACME" });
    // The default bot token's views are the fake's own team's, as before.
    const own = await clients.default!.views.open({ trigger_id: fake.newTriggerId(), view: modal("Own") });
    expect(own.view).toMatchObject({ team_id: fake.teamId, app_installed_team_id: fake.teamId });
    // An org-wide install: in its workspace, installed by the enterprise.
    const inOrg = await clients.TORGWS!.views.open({
      trigger_id: fake.newTriggerId(fake.sender("TORGWS").key),
      view: modal("Org's"),
    });
    expect(inOrg.view).toMatchObject({ team_id: "TORGWS", app_installed_team_id: "EORG" });
  });

  it("a command's trigger is its workspace's: another workspace's token cannot open a view with it", async () => {
    await requests.asTeam("TBOLT").command("connect");
    const payload = lastPayload();
    expect(payload.team_id).toBe("TBOLT");
    // Bolt's trigger, Acme's token: refused, and spent by nobody.
    expect(
      await slackError(clients.TACME!.views.open({ trigger_id: payload.trigger_id, view: modal("x") })),
    ).toBe("invalid_trigger_id");
    expect(
      await slackError(clients.default!.views.open({ trigger_id: payload.trigger_id, view: modal("x") })),
    ).toBe("invalid_trigger_id");
    const ok = await clients.TBOLT!.views.open({ trigger_id: payload.trigger_id, view: modal("Bolt's") });
    expect(ok.view?.team_id).toBe("TBOLT");
    // Shortcuts and clicks too.
    await requests.asTeam("TACME").shortcut("sb_send");
    const shortcut = lastPayload();
    expect(shortcut.team.id).toBe("TACME");
    expect(
      await slackError(clients.TBOLT!.views.open({ trigger_id: shortcut.trigger_id, view: modal("x") })),
    ).toBe("invalid_trigger_id");
    await requests.blockAction({ action_id: "sb_run", value: "help" });
    const click = lastPayload();
    expect(click.team.id).toBe(fake.teamId);
    expect(
      await slackError(clients.TACME!.views.open({ trigger_id: click.trigger_id, view: modal("x") })),
    ).toBe("invalid_trigger_id");
  });

  it("another workspace's token cannot update a view, nor push onto it: not_found", async () => {
    const opened = await clients.TACME!.views.open({
      trigger_id: fake.newTriggerId(fake.sender("TACME").key),
      view: modal("Acme's"),
    });
    const id = opened.view!.id!;
    expect(await slackError(clients.TBOLT!.views.update({ view_id: id, view: modal("Taken") }))).toBe(
      "not_found",
    );
    expect(await slackError(clients.default!.views.update({ view_id: id, view: modal("Taken") }))).toBe(
      "not_found",
    );
    expect((fake.view(id)!.view as Json).title.text).toBe("Acme's");
    // A click inside Acme's view gives a trigger to push onto it: Bolt's token is refused.
    await requests.viewAction(id, { action_id: "go", block_id: "b", type: "button", value: "1" }, {});
    const click = lastPayload();
    expect(
      await slackError(clients.TBOLT!.views.push({ trigger_id: click.trigger_id, view: modal("Pushed") })),
    ).toBe("not_found");
    // Acme's own token updates and pushes.
    const updated = await clients.TACME!.views.update({ view_id: id, view: modal("Acme's, updated") });
    expect(updated.view).toMatchObject({ id, team_id: "TACME" });
    const pushed = await clients.TACME!.views.push({ trigger_id: click.trigger_id, view: modal("Pushed") });
    expect(pushed.view?.team_id).toBe("TACME");
  });

  it("a submission, a click and a suggestion inside a view are built from the stored view, with its workspace", async () => {
    const opened = await clients.TACME!.views.open({
      trigger_id: fake.newTriggerId(fake.sender("TACME").key),
      view: modal("Acme's", '{"ch":"C1"}'),
    });
    const stored = fake.view(opened.view!.id!)!;
    const state = { key: { key: { type: "plain_text_input", value: "sk_1" } } };
    // Sent through requests of the fake's default team: the view's workspace wins, as in Slack.
    await requests.submitView(stored.id, state, { user: { id: "U0ANA", name: "ana" } });
    const submitted = lastPayload();
    expect(submitted).toMatchObject({
      type: "view_submission",
      team: { id: "TACME" },
      user: { id: "U0ANA", team_id: "TACME" },
      is_enterprise_install: false,
      view: {
        id: stored.id,
        hash: stored.hash,
        team_id: "TACME",
        app_installed_team_id: "TACME",
        callback_id: "sb_test",
        private_metadata: '{"ch":"C1"}',
        state: { values: state },
      },
    });
    // Its trigger is Acme's too.
    expect(
      await slackError(clients.TBOLT!.views.open({ trigger_id: submitted.trigger_id, view: modal("x") })),
    ).toBe("invalid_trigger_id");
    await requests.blockSuggestion(
      stored.id,
      { action_id: "template", block_id: "template", value: "ord" },
      {},
    );
    expect(lastPayload()).toMatchObject({
      type: "block_suggestion",
      team: { id: "TACME" },
      value: "ord",
      view: { id: stored.id, team_id: "TACME", app_installed_team_id: "TACME" },
    });
    // The old entry point (viewSubmission with a view id) is built from the stored view as well.
    await requests.viewSubmission({ id: stored.id, callback_id: "whatever", state });
    expect(lastPayload()).toMatchObject({
      team: { id: "TACME" },
      view: { callback_id: "sb_test", team_id: "TACME", hash: stored.hash },
    });
  });

  it("an org-wide install's submission: no team, app_installed_team_id the enterprise's, as Bolt reads it", async () => {
    const opened = await clients.TORGWS!.views.open({
      trigger_id: fake.newTriggerId(fake.sender("TORGWS").key),
      view: modal("Org's"),
    });
    await requests.submitView(opened.view!.id!, {});
    expect(lastPayload()).toMatchObject({
      team: null,
      enterprise: { id: "EORG" },
      is_enterprise_install: true,
      user: { team_id: "TORGWS" },
      view: { team_id: "TORGWS", app_installed_team_id: "EORG" },
    });
  });

  it("an org-wide install reaches the org's other workspaces: their requests name them, with the org's install", async () => {
    const two = fake.sender("TORGTWO");
    expect(two).toMatchObject({
      key: "EORG",
      teamId: "TORGTWO",
      enterpriseId: "EORG",
      isEnterpriseInstall: true,
    });
    await requests.asTeam("TORGTWO").command("help");
    expect(lastPayload()).toMatchObject({
      team_id: "TORGTWO",
      enterprise_id: "EORG",
      is_enterprise_install: "true",
    });
    await requests.asTeam("TORGTWO").event({ type: "app_home_opened", user: "U0ADA" });
    expect(JSON.parse(received.at(-1))).toMatchObject({ team_id: "TORGTWO", enterprise_id: "EORG" });
    // users.info says who is an admin (the admin check of connecting and settings).
    fake.addUser({ id: "U0ADA", name: "ada", is_admin: true, team: "TORGTWO" });
    const info = await clients.TORGWS!.users.info({ user: "U0ADA" });
    expect(info.user).toMatchObject({ id: "U0ADA", is_admin: true, is_owner: false });
  });

  it("a token posts only into its own workspace's channels, and sees only its own people and messages", async () => {
    fake.addChannel({ id: "C0ACMEDESK", name: "desk", team: "TACME" });
    fake.addChannel({ id: "C0BOLTDESK", name: "desk", team: "TBOLT" });
    fake.addUser({ id: "U0ACMEANN", name: "ann", team: "TACME" });
    fake.addUser({ id: "U0BOLTBEN", name: "ben", team: "TBOLT" });
    const post = (team: string, channel: string) =>
      clients[team]!.chat.postMessage({ channel, text: `from ${team}` });
    // Another workspace's channel, person or #general: not found, and nothing posted.
    const before = fake.messages.length;
    expect(await slackError(post("TACME", "C0BOLTDESK"))).toBe("channel_not_found");
    expect(await slackError(post("TACME", "U0BOLTBEN"))).toBe("channel_not_found");
    expect(await slackError(post("TACME", fake.generalOf("TBOLT")))).toBe("channel_not_found");
    expect(await slackError(post("TACME", "C0GENERAL"))).toBe("channel_not_found");
    expect(await slackError(post("default", "C0ACMEDESK"))).toBe("channel_not_found");
    expect(
      await slackError(
        clients.TACME!.chat.postEphemeral({ channel: "C0ACMEDESK", user: "U0BOLTBEN", text: "x" }),
      ),
    ).toBe("user_not_found");
    expect(fake.messages.length).toBe(before);
    // Its own channel, its own person (a DM), its own #general: posted, in its workspace.
    const mine = await post("TACME", "C0ACMEDESK");
    expect(fake.messages.find((m) => m.ts === mine.ts)).toMatchObject({
      channel: "C0ACMEDESK",
      team: "TACME",
    });
    expect((await post("TACME", "U0ACMEANN")).ok).toBe(true);
    expect((await post("TACME", fake.generalOf("TACME"))).ok).toBe(true);
    // Reading: another workspace's people, channels and messages are not there.
    expect((await clients.TACME!.users.info({ user: "U0ACMEANN" })).user?.id).toBe("U0ACMEANN");
    expect(await slackError(clients.TACME!.users.info({ user: "U0BOLTBEN" }))).toBe("user_not_found");
    expect(await slackError(clients.TBOLT!.users.info({ user: "U0ACMEANN" }))).toBe("user_not_found");
    expect(await slackError(clients.default!.users.info({ user: "U0ACMEANN" }))).toBe("user_not_found");
    expect(await slackError(clients.TBOLT!.conversations.info({ channel: "C0ACMEDESK" }))).toBe(
      "channel_not_found",
    );
    expect(await slackError(clients.TBOLT!.conversations.join({ channel: "C0ACMEDESK" }))).toBe(
      "channel_not_found",
    );
    expect(await slackError(clients.TBOLT!.conversations.history({ channel: "C0ACMEDESK" }))).toBe(
      "channel_not_found",
    );
    expect(
      await slackError(clients.TBOLT!.conversations.replies({ channel: "C0ACMEDESK", ts: mine.ts! })),
    ).toBe("channel_not_found");
    const history = await clients.TACME!.conversations.history({ channel: "C0ACMEDESK" });
    expect(history.messages?.map((m) => m.ts)).toContain(mine.ts);
    // Another workspace's message cannot be changed, deleted or reacted to.
    expect(
      await slackError(clients.TBOLT!.chat.update({ channel: "C0ACMEDESK", ts: mine.ts!, text: "taken" })),
    ).toBe("message_not_found");
    expect(await slackError(clients.TBOLT!.chat.delete({ channel: "C0ACMEDESK", ts: mine.ts! }))).toBe(
      "message_not_found",
    );
    expect(
      await slackError(
        clients.TBOLT!.reactions.add({ channel: "C0ACMEDESK", timestamp: mine.ts!, name: "eyes" }),
      ),
    ).toBe("message_not_found");
    const kept = fake.messages.find((m) => m.ts === mine.ts);
    expect([kept?.text, kept?.deleted ?? false, kept?.reactions ?? []]).toEqual(["from TACME", false, []]);
    // Another workspace's user group is none of this one's.
    fake.setUserGroup("S0ACMEOPS", ["U0ACMEANN"], { team: "TACME" });
    expect((await clients.TACME!.usergroups.users.list({ usergroup: "S0ACMEOPS" })).users).toEqual([
      "U0ACMEANN",
    ]);
    expect(await slackError(clients.TBOLT!.usergroups.users.list({ usergroup: "S0ACMEOPS" }))).toBe(
      "no_such_subteam",
    );
  });

  it("an org-wide install's token reaches each of its org's workspaces; a workflow's token, its workspace", async () => {
    fake.addChannel({ id: "C0ORGTWODESK", name: "desk", team: "TORGTWO" });
    fake.addUser({ id: "U0ORGTWOZOE", name: "zoe", team: "TORGTWO" });
    expect((await clients.TORGWS!.chat.postMessage({ channel: "C0ORGTWODESK", text: "org" })).ok).toBe(true);
    expect(
      (await clients.TORGWS!.chat.postMessage({ channel: fake.generalOf("TORGWS"), text: "org" })).ok,
    ).toBe(true);
    expect((await clients.TORGWS!.users.info({ user: "U0ORGTWOZOE" })).user?.id).toBe("U0ORGTWOZOE");
    expect(await slackError(clients.TACME!.chat.postMessage({ channel: "C0ORGTWODESK", text: "x" }))).toBe(
      "channel_not_found",
    );
    expect(await slackError(clients.TORGWS!.chat.postMessage({ channel: "C0BOLTDESK", text: "x" }))).toBe(
      "channel_not_found",
    );
    // A workflow step's token is the workspace's whose workflow runs it.
    fake.defineFunctions({ noop: { title: "Noop", input_parameters: {}, output_parameters: {} } });
    const { execution } = fake.executeFunction("noop", {}, { team: "TBOLT" });
    const wf = client(execution.token);
    expect((await wf.chat.postMessage({ channel: "C0BOLTDESK", text: "step" })).ok).toBe(true);
    expect(await slackError(wf.chat.postMessage({ channel: "C0ACMEDESK", text: "step" }))).toBe(
      "channel_not_found",
    );
  });

  it("the default team's requests are as before: the fake's team everywhere", async () => {
    await requests.command("help");
    expect(lastPayload()).toMatchObject({ team_id: fake.teamId, is_enterprise_install: "false" });
    await requests.event({ type: "app_home_opened", user: "U0ALICE" });
    expect(JSON.parse(received.at(-1))).toMatchObject({
      team_id: fake.teamId,
      authorizations: [{ team_id: fake.teamId, user_id: fake.botUserId }],
    });
  });
});
