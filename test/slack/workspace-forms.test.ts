// The connect and settings forms (issue 19 §2, §3) in the real Bolt app over
// the fake Slack, with a real core and the sandbox: a wrong key keeps the form
// open with the reason under the field and keeps nothing; a good one answers
// with the organization; settings are checked, saved and refused by field.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { createCommandCore } from "../../src/commands/core.ts";
import { notConnectedReply } from "../../src/commands/not-connected.ts";
import type { WorkspaceAdmin } from "../../src/commands/workspace-admin.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { createHomeView, notConnectedHome } from "../../src/slack/features/home/view.ts";
import { forgetWorkspaceGroups } from "../../src/slack/io/usergroups.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { createWorkspaceAdmin } from "../../src/workspaces/admin.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { call, withSandbox } from "../helpers/sandbox.ts";
import { Forms } from "./forms-harness.ts";
import { type Harness, startHarness } from "./harness.ts";

const sandbox = withSandbox();
let db: TestDb;
let h: Harness;
let installations: Installations;
let client: MessagingClient;
let admin: WorkspaceAdmin;
let organization: string;
let core: ReturnType<typeof createCommandCore>;
const stackRun = (line: string) => core.run(line, { userId: "shell", via: "shell" });

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  installations = await Installations.open(db, new Keyring(randomBytes(32)));
  client = new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
  organization = (await call(sandbox(), "GET", "/me")).body.organization.name;
  h = await startHarness((_bridge, fake) => {
    admin = createWorkspaceAdmin({
      db,
      installations,
      workspace: fake.teamId,
      apiUrl: sandbox().url,
      timeoutMs: 2000,
      mode: "many",
      installerUserId: "U0ALICE",
      demo: async () => ({ apiKey: sandbox().apiKey, organizationName: organization }),
    });
    core = createCommandCore({ api: client, stores: new WorkspaceStores(db, ENV_WORKSPACE), admin });
    return core;
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
  await client?.close();
  await db?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON read loosely.
type Json = any;
const viewText = (view: Json) => JSON.stringify(view.blocks);

/** `/sb settings`, then a group's Change button: the group's short form (the same view, updated). */
async function openGroup(forms: Forms, group: string) {
  const list = await forms.open("settings");
  return forms.act(list.id, `settings_${group}`, {}, { action_id: `settings_group_${group}`, value: group });
}

describe("the connect form", () => {
  it("keeps the form open on a wrong key, nothing kept; a good key names the organization", async () => {
    const forms = new Forms(h.req, h.fake);
    const opened = await forms.open("connect");
    expect(opened.view.callback_id).toBe("sb_connect");
    const wrong = await forms.submit(opened.id, { key: "sb_live_wrong_0000" });
    expect(wrong.response_action).toBe("errors");
    expect(wrong.errors.key).toContain("refused this key");
    expect(await installations.connection(h.fake.teamId)).toBeUndefined();

    const good = await forms.submit(opened.id, { key: sandbox().apiKey });
    expect(good.response_action).toBe("update");
    expect(viewText(good.view)).toContain(`Connected to *${organization}*`);
    expect((await installations.connection(h.fake.teamId))?.apiKey).toBe(sandbox().apiKey);
    // Said where the form was opened too (the answer when the check outlasts Slack's 3 s).
    const posted = await h.fake.waitFor(() => h.fake.messages.find((m) => m.text?.includes("Connected to")));
    expect(posted.text).not.toContain(sandbox().apiKey);
    const { rows } = await db.query("select * from workspaces.connections");
    expect(JSON.stringify(rows)).not.toContain(sandbox().apiKey);
    // Open again: it says which account is connected, never the key.
    const again = await forms.open("connect");
    expect(viewText(again.view)).toContain(`Connected now to *${organization}*`);
    expect(JSON.stringify(again.view)).not.toContain(sandbox().apiKey);
  });

  it("offers the demo account with the embedded sandbox", async () => {
    const forms = new Forms(h.req, h.fake);
    const opened = await forms.open("connect");
    expect(viewText(opened.view)).toContain("Use a demo account");
    const answer = await forms.submit(opened.id, { source: "demo" });
    expect(viewText(answer.view)).toContain(`Connected to *${organization}*`);
  });

  it("tells someone who may not, and who may", async () => {
    const sent = await h.req.command("connect", { user: { id: "U0BOB", name: "bob" } });
    const res = await h.fake.waitForResponse(sent.responseUrl!);
    expect(JSON.stringify(res.body)).toContain("<@U0ALICE>, who installed Switchboard, may connect");
  });
});

describe("the settings form", () => {
  it("refuses a bad value at its field, saves good ones with their origin", async () => {
    const forms = new Forms(h.req, h.fake);
    const opened = await openGroup(forms, "people");
    expect(opened.view.callback_id).toBe("sb_settings");
    const bad = await forms.submit(opened.id, { writers_groups: "marketing", steps: "all" });
    expect(bad.response_action).toBe("errors");
    expect(bad.errors.writers_groups).toContain("Choose user groups from the list");
    expect((await admin.settings()).workflowSteps.value).toBe("writers");

    const saved = await forms.submit(opened.id, {
      writers: ["U0ALICE"],
      writers_groups: "S0TEAM",
      steps: "all",
    });
    expect(saved.response_action).toBe("update");
    expect(viewText(saved.view)).toContain("Saved: Who may make changes, Workflow steps.");
    const channels = await openGroup(forms, "channels");
    expect(viewText((await forms.submit(channels.id, { audit: "C0GENERAL" })).view)).toContain(
      "Saved: Audit channel.",
    );
    const times = await openGroup(forms, "times");
    expect(viewText((await forms.submit(times.id, { tz: "Europe/Paris" })).view)).toContain(
      "Saved: Workspace's time zone.",
    );
    const s = await admin.settings();
    expect(s.writers.value).toEqual(["U0ALICE", "S0TEAM"]);
    expect(s.workflowSteps.value).toBe("all");
    expect(s.reportsTimeZone.value).toBe("Europe/Paris");
    expect(s.auditChannel).toMatchObject({ value: "C0GENERAL", origin: { kind: "slack", by: "U0ALICE" } });
    const reopened = await openGroup(forms, "channels");
    expect(JSON.stringify(reopened.view)).toContain("Changed in Slack on");
  });

  it("chooses user groups by name from the workspace's groups, never as typed ids; hints agree with the values (issue 30)", async () => {
    h.fake.setUserGroup("S0SUPPORT", ["U0ALICE"], { name: "Support team", handle: "support" });
    h.fake.setUserGroup("S0SALES", ["U0BOB"], { name: "Sales", handle: "sales" });
    forgetWorkspaceGroups();
    const forms = new Forms(h.req, h.fake);
    const opened = await openGroup(forms, "people");
    const block = (view: Json, id: string) => (view.blocks as Json[]).find((b) => b.block_id === id);
    expect(block(opened.view, "writers_groups").element.type).toBe("multi_external_select");
    const offered = await forms.suggest(opened.id, "writers_groups", "sup");
    expect(offered.map((o: Json) => [o.text.text, o.value])).toEqual([
      ["Support team (@support)", "S0SUPPORT"],
    ]);
    expect((await forms.suggest(opened.id, "writers_groups", "")).length).toBe(2);
    const saved = await forms.submit(opened.id, {
      writers: ["U0ALICE"],
      writers_groups: ["S0SUPPORT"],
    });
    expect(saved.response_action).toBe("update");
    expect((await admin.settings()).writers.value).toEqual(["U0ALICE", "S0SUPPORT"]);
    // The list of groups names the group, not its id.
    expect(viewText(saved.view)).toContain("Support team (@support)");
    expect(viewText(saved.view)).not.toContain("S0SUPPORT");
    const again = await openGroup(forms, "people");
    const groups = block(again.view, "writers_groups").element;
    expect(groups.initial_options.map((o: Json) => o.text.text)).toEqual(["Support team (@support)"]);
    // What a person reads: no id where the name is known, no setting name, no command, no contradiction.
    const read = JSON.stringify(
      (again.view.blocks as Json[]).map((b) => [b.label?.text, b.hint?.text, b.text?.text, b.elements]),
    );
    expect(read).not.toMatch(/S0SUPPORT|[A-Z]+_[A-Z_]{2,}|\/sb |settings set/);
    expect(block(again.view, "writers").hint.text).not.toMatch(/Nobody chosen/);
    expect(block(again.view, "broadcasters").hint.text).toMatch(/Nobody chosen/);
  });

  it("another deployment's workspace of the same id offers its own user groups, not this one's (issue 38 §3)", async () => {
    const offered = async (harness: Harness) => {
      const forms = new Forms(harness.req, harness.fake);
      const opened = await openGroup(forms, "people");
      return (await forms.suggest(opened.id, "writers_groups", "")).map((o: Json) => o.text.text);
    };
    h.fake.setUserGroup("S0FIRST", ["U0ALICE"], { name: "First deployment", handle: "first" });
    forgetWorkspaceGroups(); // what the tests above read
    expect(await offered(h)).toContain("First deployment (@first)");
    // Another Slack app in this process, on a Slack of its own whose workspace has the same team id.
    const other = await startHarness(() => core);
    try {
      expect(other.fake.teamId).toBe(h.fake.teamId);
      other.fake.setUserGroup("S0OTHER", ["U0ALICE"], { name: "Other deployment", handle: "other" });
      expect(await offered(other)).toEqual(["Other deployment (@other)"]);
    } finally {
      await other.close();
    }
  });

  it("names the messaging channels it knows, and sets the country of numbers without a code", async () => {
    await stackRun("channel name 1 Main line");
    const forms = new Forms(h.req, h.fake);
    const opened = await openGroup(forms, "channels");
    const channel = (opened.view.blocks as Json[]).find((b) => b.block_id === "channel").element;
    const labels = channel.options.map((o: Json) => o.text.text);
    expect(labels).toContain("Main line");
    expect(labels.join(" ")).not.toMatch(/#\d/);
    const saved = await forms.submit(opened.id, { country: "ES" });
    expect(saved.response_action).toBe("update");
    expect((await admin.settings()).country.value).toBe("ES");
  });
});

describe("the settings form keeps every saved value (issue 39 §1)", () => {
  const block = (view: Json, id: string) => (view.blocks as Json[]).find((b) => b.block_id === id);

  it.each([
    ["UTC", "UTC"],
    ["America/Argentina/Buenos_Aires", "America/Argentina/Buenos_Aires"],
    ["america/buenos_aires", "America/Argentina/Buenos_Aires"],
    ["Etc/UTC", "UTC"],
  ])(
    "a zone set as %s is saved as %s, shown in its field, and an untouched Save writes nothing",
    async (typed, saved) => {
      await stackRun("settings set tz=Europe/Madrid quiet=21:00-08:00");
      const set = await stackRun(`settings set tz=${typed}`);
      expect(set.text ?? "").not.toMatch(/nothing was saved/i);
      expect((await admin.settings()).reportsTimeZone.value).toBe(saved);
      const forms = new Forms(h.req, h.fake);
      const opened = await openGroup(forms, "times");
      const tz = block(opened.view, "tz").element;
      expect(tz.type).toBe("external_select");
      expect(tz.min_query_length).toBeDefined();
      expect(tz.initial_option.value).toBe(saved);
      // Set in the shell: its hint says so, not "in Slack".
      expect(block(opened.view, "tz").hint.text).toContain("Changed in the shell on");
      // The saved zone is offered by the search, whatever Intl lists.
      const city = saved === "UTC" ? "utc" : "buenos";
      expect((await forms.suggest(opened.id, "tz", city)).map((o: Json) => o.value)).toContain(saved);
      const before = (await admin.settings()).reportsTimeZone.origin;
      const untouched = await forms.submit(opened.id);
      expect(untouched.response_action).toBe("update");
      expect(viewText(untouched.view)).toContain("Nothing changed");
      const after = await admin.settings();
      expect(after.reportsTimeZone.value).toBe(saved);
      expect(after.reportsTimeZone.origin).toEqual(before);
      expect(after.quietHours.value).toBe("21:00-08:00");
    },
  );

  it("searches every IANA zone by city, former name or region", async () => {
    const forms = new Forms(h.req, h.fake);
    const opened = await openGroup(forms, "times");
    const values = async (q: string) => (await forms.suggest(opened.id, "tz", q)).map((o: Json) => o.value);
    expect(await values("kolkata")).toContain("Asia/Kolkata");
    expect(await values("Kiev")).toContain("Europe/Kyiv");
    expect((await values("madrid"))[0]).toBe("Europe/Madrid");
    expect(await values("")).toContain("personal");
  });

  it("a submission writes only the fields changed in it, not the values another admin set meanwhile", async () => {
    await stackRun("settings set country=ES tz=Europe/Madrid quiet=22:00-07:00");
    const forms = new Forms(h.req, h.fake);
    const opened = await openGroup(forms, "times");
    await stackRun("settings set country=FR tz=Asia/Tokyo");
    const saved = await forms.submit(opened.id, { quiet: "21:00-08:00" });
    expect(saved.response_action).toBe("update");
    expect(viewText(saved.view)).toContain("Saved: Quiet hours.");
    const s = await admin.settings();
    expect(s.quietHours.value).toBe("21:00-08:00");
    expect(s.country.value).toBe("FR");
    expect(s.reportsTimeZone.value).toBe("Asia/Tokyo");
  });
});

describe("the settings form in groups (issue 39 §2)", () => {
  const GROUPS = ["people", "channels", "times", "campaigns", "inbox"];
  const inputs = (view: Json) =>
    (view.blocks as Json[]).filter((b) => b.type === "input").map((b) => b.block_id as string);

  it("opens on the list of groups, each with its values in words and a button; no input, no setting name", async () => {
    await stackRun(
      'settings set writers=U0ALICE tz=Europe/Madrid quiet=21:00-08:00 hours="mon-fri 09:00-18:00" approvers=U0BOB,U0CARL approve-from=500 country=ES',
    );
    const forms = new Forms(h.req, h.fake);
    const list = await forms.open("settings");
    expect(list.view.callback_id).toBe("sb_settings");
    expect(list.view.submit).toBeUndefined();
    expect(inputs(list.view)).toEqual([]);
    const section = (g: string) => (list.view.blocks as Json[]).find((b) => b.block_id === `settings_${g}`);
    expect(GROUPS.map((g) => section(g)?.text.text.split("\n")[0])).toEqual([
      "*People*",
      "*Channels*",
      "*Times*",
      "*Campaigns*",
      "*Inbox*",
    ]);
    for (const g of GROUPS)
      expect(section(g).accessory).toMatchObject({ action_id: `settings_group_${g}`, value: g });
    expect(section("people").text.text).toContain("Who may make changes: <@U0ALICE>");
    expect(section("times").text.text).toContain("Europe/Madrid");
    expect(section("campaigns").text.text).toContain("<@U0BOB>, <@U0CARL>");
    expect(section("inbox").text.text).toContain("mon-fri 09:00-18:00");
    expect(viewText(list.view)).not.toMatch(/[A-Z]+_[A-Z_]{2,}|\/sb |settings set|where Switchboard runs/);
  });

  it("each group is a short form with every saved value; Save untouched writes nothing and says so", async () => {
    await stackRun(
      'settings set writers=U0ALICE broadcasters=U0BOB steps=all audit=C0AUDIT channel=1 country=ES tz=America/Argentina/Buenos_Aires quiet=21:00-08:00 hours="mon-fri 09:00-18:00" approvers=U0BOB,U0CARL approve-from=500 away="Hi {first_name|there}, back at 9." away-now=on',
    );
    const before = await admin.settings();
    const forms = new Forms(h.req, h.fake);
    const seen: string[] = [];
    for (const g of GROUPS) {
      const view = await openGroup(forms, g);
      expect(view.view.submit?.text).toBe("Save");
      expect(inputs(view.view).length, g).toBeLessThanOrEqual(6);
      seen.push(...inputs(view.view));
      const el = (id: string) => (view.view.blocks as Json[]).find((b) => b.block_id === id)?.element;
      if (g === "people") {
        expect(el("writers").initial_users).toEqual(["U0ALICE"]);
        expect(el("broadcasters").initial_users).toEqual(["U0BOB"]);
        expect(el("steps").initial_option.value).toBe("all");
      }
      if (g === "channels") {
        expect(el("audit").initial_conversation).toBe("C0AUDIT");
        expect(el("channel").initial_option.value).toBe("1");
        expect(el("country").initial_option.value).toBe("ES");
      }
      if (g === "times") {
        expect(el("tz").initial_option.value).toBe("America/Argentina/Buenos_Aires");
        expect(el("quiet").initial_value).toBe("21:00-08:00");
      }
      if (g === "campaigns") {
        expect(el("approvers").initial_users).toEqual(["U0BOB", "U0CARL"]);
        expect(el("approve_from").initial_value).toBe("500");
      }
      if (g === "inbox") {
        expect(el("hours").initial_value).toBe("mon-fri 09:00-18:00");
        // The away message (issue 40 §1): its text, and away now ticked.
        expect(el("away").initial_value).toBe("Hi {first_name|there}, back at 9.");
        expect(el("away_now").initial_options.map((o: Json) => o.value)).toEqual(["on"]);
      }
      const untouched = await forms.submit(view.id);
      expect(untouched.response_action, g).toBe("update");
      expect(viewText(untouched.view), g).toContain("Nothing changed");
      // Saved: the list again, to open another group.
      expect(
        (untouched.view.blocks as Json[]).some((b) => b.block_id === "settings_people"),
        g,
      ).toBe(true);
    }
    // Every field is in one group, once.
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(
      expect.arrayContaining([
        "writers",
        "broadcasters",
        "steps",
        "audit",
        "channel",
        "country",
        "tz",
        "quiet",
      ]),
    );
    expect(seen).toEqual(expect.arrayContaining(["approvers", "approve_from", "hours", "away", "away_now"]));
    expect(await admin.settings()).toEqual(before);
  });

  it("the Inbox group's away message: saved as written; without business hours nor away now, refused at its field", async () => {
    await stackRun('settings set tz=Europe/Madrid hours="mon-fri 09:00-18:00" away=none away-now=off');
    const forms = new Forms(h.req, h.fake);
    const inbox = await openGroup(forms, "inbox");
    const saved = await forms.submit(inbox.id, { away: "Thanks! We answer Mon–Fri 9–18." });
    expect(viewText(saved.view)).toContain("Saved: Away message.");
    expect((await admin.settings()).away.value).toBe("Thanks! We answer Mon–Fri 9–18.");
    const again = await openGroup(forms, "inbox");
    const refused = await forms.submit(again.id, { hours: "", away: "Back soon" });
    expect(refused.response_action).toBe("errors");
    expect(refused.errors.away).toMatch(/business hours/);
    expect((await admin.settings()).away.value).toBe("Thanks! We answer Mon–Fri 9–18.");
    expect((await admin.settings()).businessHours.value).toBe("mon-fri 09:00-18:00");
  });

  it("“All settings” goes back to the list; a group's Save changes only that group", async () => {
    await stackRun("settings set country=ES steps=writers tz=Europe/Madrid");
    const forms = new Forms(h.req, h.fake);
    const people = await openGroup(forms, "people");
    const back = await forms.act(people.id, "settings_nav", {}, { action_id: "settings_all", value: "all" });
    expect(back.view.submit).toBeUndefined();
    expect((back.view.blocks as Json[]).some((b) => b.block_id === "settings_inbox")).toBe(true);
    const channels = await forms.act(
      back.id,
      "settings_channels",
      {},
      { action_id: "settings_group_channels", value: "channels" },
    );
    expect(inputs(channels.view)).not.toContain("steps");
    const saved = await forms.submit(channels.id, { country: "FR" });
    expect(viewText(saved.view)).toContain("Saved: Country of phone numbers without a code.");
    const s = await admin.settings();
    expect([s.country.value, s.workflowSteps.value, s.reportsTimeZone.value]).toEqual([
      "FR",
      "writers",
      "Europe/Madrid",
    ]);
  });
});

describe("the App Home", () => {
  const values = (view: Json) =>
    (view.blocks as Json[]).flatMap((b) =>
      b.type === "actions" ? b.elements.map((e: Json) => e.value) : [],
    );

  it("shows Settings to admins only", async () => {
    const home = createHomeView({
      client,
      stores: new WorkspaceStores(db, ENV_WORKSPACE),
      apiKey: sandbox().apiKey,
      mayAdminister: async (userId) => userId === "U0ALICE",
    });
    expect(values(await home("U0ALICE"))).toContain("settings");
    expect(values(await home("U0BOB"))).not.toContain("settings");
  });

  it("asks to connect when the workspace is not connected, with the button for admins", () => {
    const who = "a workspace admin or owner or <@U0ALICE>, who installed Switchboard,";
    const admin = notConnectedHome(notConnectedReply({ via: "slack", isAdmin: true }, who));
    expect(values(admin)).toEqual(["connect"]);
    const other = notConnectedHome(notConnectedReply({ via: "slack", isAdmin: false }, who));
    expect(values(other)).toEqual([]);
    expect(JSON.stringify(other.blocks)).toContain("<@U0ALICE>, who installed Switchboard, connects it");
  });
});
