// Connecting a workspace to its messaging account and its settings (issue 19
// §2, §3), through the commands of a real core: real HTTP to the sandbox
// (through a counting proxy), the key sealed in the store, words for every
// outcome, admins only, settings with where each value comes from.

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { createCommandCore, type SwitchboardCore } from "../../src/commands/core.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { ChannelNames } from "../../src/store/channels.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { createWorkspaceAdmin, type WorkspaceAdminOptions } from "../../src/workspaces/admin.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";
import { call, withSandbox } from "../helpers/sandbox.ts";

const ALICE: Actor = {
  userId: "U0ALICE",
  userName: "alice",
  teamId: "T1",
  channelId: "C0GENERAL",
  via: "slack",
};
const BOB: Actor = { userId: "U0BOB", userName: "bob", teamId: "T1", channelId: "C0GENERAL", via: "slack" };
const SHELL: Actor = { userId: "shell", via: "shell" };

const sandbox = withSandbox();
let db: TestDb;
let proxy: CountingProxy;
let installations: Installations;
let client: MessagingClient;
let organization: string;
/** The channels the sandbox organization's templates use, in order. */
let templateChannels: number[];
/** While true, the proxy answers GET /templates with a 503 (the rest of the API works). */
let templatesDown = false;

const text = (r: Reply) => `${r.text}\n${blocksToText(r.blocks)}`;

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  installations = await Installations.open(db, new Keyring(randomBytes(32)));
  proxy = await startProxy(sandbox().url, {
    answer: (_method, url) =>
      templatesDown && url.startsWith("/v1/templates") ? { status: 503 } : undefined,
  });
  client = new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
  organization = (await call(sandbox(), "GET", "/me")).body.organization.name;
  const templates = (await call(sandbox(), "GET", "/templates")).body.data as Array<{
    integrationId: number;
  }>;
  templateChannels = [...new Set(templates.map((t) => t.integrationId))].sort((a, b) => a - b);
}, 60_000);
afterAll(async () => {
  await client?.close();
  await proxy?.close();
  await db?.close();
});

let team = 0;
function workspace(over: Partial<WorkspaceAdminOptions> = {}) {
  const changes: string[] = [];
  const id = `T${++team}${randomBytes(2).toString("hex").toUpperCase()}`;
  const admin = createWorkspaceAdmin({
    db,
    installations,
    workspace: id,
    apiUrl: proxy.url,
    timeoutMs: 2000,
    mode: "many",
    installerUserId: "U0ALICE",
    onChange: () => {
      changes.push("changed");
    },
    ...over,
  });
  const core: SwitchboardCore = createCommandCore({
    api: client,
    stores: new WorkspaceStores(db, ENV_WORKSPACE),
    admin,
  });
  return { id, admin, core, changes };
}

async function everyConnectionValue(): Promise<string> {
  const { rows } = await db.query("select * from workspaces.connections");
  return JSON.stringify(rows);
}

describe("/sb connect", () => {
  beforeEach(() => {
    proxy.failWith = undefined;
  });

  it("checks a good key with GET /me, names the organization and keeps the key sealed", async () => {
    const w = workspace();
    const seen = proxy.seen.length;
    const reply = await w.core.run(`connect key=${sandbox().apiKey}`, ALICE);
    expect(text(reply)).toContain(`Connected to *${organization}*`);
    // What the key may do in words, not "scopes: read, write" (issue 39 §2).
    expect(text(reply)).not.toMatch(/scopes/);
    // The key checked, then the channels its templates use (to ask for their names).
    expect(proxy.seen.slice(seen)).toEqual(["GET /v1/me", "GET /v1/templates"]);
    const kept = await installations.connection(w.id);
    expect(kept).toMatchObject({
      apiKey: sandbox().apiKey,
      organizationName: organization,
      connectedBy: "U0ALICE",
    });
    expect(await everyConnectionValue()).not.toContain(sandbox().apiKey);
    expect(w.changes).toEqual(["changed"]);
    expect(await w.admin.connection()).toMatchObject({
      organization,
      readOnly: false,
      scopes: ["read", "write"],
    });
  });

  it("asks to name the channels its templates use that have no name yet, and only those", async () => {
    expect(templateChannels.length).toBeGreaterThan(1);
    const [first, ...rest] = templateChannels as [number, ...number[]];
    const w = workspace();
    const line = (ids: number[]) =>
      `Name your channels so people see names, not numbers: ${ids.map((id) => `Channel ${id}`).join(", ")}.`;
    const reply = await w.core.run(`connect key=${sandbox().apiKey}`, ALICE);
    expect(text(reply)).toContain(line(templateChannels));
    expect(text(reply)).toContain(`\`/sb channel name ${first} Main line\``);
    // One named: only the others are asked (names are this workspace's own).
    await new ChannelNames(db, w.id).set(first, "Store", "U0ALICE");
    const again = await w.admin.connect(sandbox().apiKey, ALICE);
    expect(again).toMatchObject({ ok: true, unnamedChannels: rest });
    expect(again.message).toContain(line(rest));
    expect(again.message).not.toContain(`Channel ${first}`);
    // All named: no line.
    for (const id of rest) await new ChannelNames(db, w.id).set(id, `Line ${id}`, "U0ALICE");
    const named = await w.admin.connect(sandbox().apiKey, ALICE);
    expect(named.ok && named.unnamedChannels).toBeFalsy();
    expect(named.message).not.toContain("Name your channels");
    // Another workspace of the same account has named none of them.
    expect(text(await workspace().core.run(`connect key=${sandbox().apiKey}`, ALICE))).toContain(
      line(templateChannels),
    );
  });

  it("connects even when the templates cannot be read: no line, the key kept", async () => {
    const w = workspace();
    templatesDown = true;
    try {
      const reply = await w.core.run(`connect key=${sandbox().apiKey}`, ALICE);
      expect(text(reply)).toContain(`Connected to *${organization}*`);
      expect(text(reply)).not.toContain("Name your channels");
    } finally {
      templatesDown = false;
    }
    expect(await installations.connection(w.id)).toBeDefined();
  });

  it("refuses a wrong key in words and keeps nothing", async () => {
    const w = workspace();
    const reply = await w.core.run("connect key=sb_test_rw_not_a_key_000", ALICE);
    expect(text(reply)).toMatch(/refused this key/);
    expect(text(reply)).toContain("Nothing was kept");
    expect(await installations.connection(w.id)).toBeUndefined();
    expect(await everyConnectionValue()).not.toContain("sb_test_rw_not_a_key_000");
    expect(w.changes).toEqual([]);
  });

  it("refuses what cannot be a key before any request, in words, without repeating it", async () => {
    const w = workspace();
    const seen = proxy.seen.length;
    const cyrillic = "sb_test_rw_ключ_0001";
    const withNul = "sb_test_rw_abc\u0000def";
    const huge = `sb_test_rw_${"k".repeat(1_000_000)}`;
    const viaCommand = text(await w.core.run(`connect key=${cyrillic}`, ALICE));
    expect(viaCommand).toContain("This is not an API key: it has characters a key never has");
    expect(viaCommand).toContain("Nothing was kept");
    expect(viaCommand).not.toContain("ключ");
    const nul = await w.admin.connect(withNul, ALICE);
    expect(nul).toMatchObject({ ok: false, reason: "invalid" });
    expect(nul.message).toContain("it has characters a key never has");
    expect(nul.message).not.toContain("abc");
    const long = await w.admin.connect(huge, ALICE);
    expect(long).toMatchObject({ ok: false, reason: "invalid" });
    expect(long.message).toContain("too long to be an API key");
    expect(long.message.length).toBeLessThan(200);
    expect(proxy.seen.slice(seen)).toEqual([]);
    expect(await installations.connection(w.id)).toBeUndefined();
    expect(w.changes).toEqual([]);
  });

  it("accepts a read-only key and says it is read-only", async () => {
    const w = workspace();
    const reply = await w.core.run(`connect key=${sandbox().readKey}`, ALICE);
    expect(text(reply)).toContain("with a key that may only read");
    expect(text(reply)).not.toMatch(/scopes/);
    expect(await w.admin.connection()).toMatchObject({ readOnly: true });
  });

  it("says when the API is rate-limited or unreachable, and keeps nothing", async () => {
    const w = workspace();
    proxy.failWith = 429;
    expect(text(await w.core.run(`connect key=${sandbox().apiKey}`, ALICE))).toContain("too many requests");
    proxy.failWith = undefined;
    const down = workspace({ apiUrl: "http://127.0.0.1:1/v1" });
    expect(text(await down.core.run(`connect key=${sandbox().apiKey}`, ALICE))).toContain(
      "could not be reached",
    );
    expect(await installations.connection(w.id)).toBeUndefined();
    expect(await installations.connection(down.id)).toBeUndefined();
  });

  it("refuses someone who is not an admin, naming who may", async () => {
    const w = workspace();
    const seen = proxy.seen.length;
    const reply = await w.core.run(`connect key=${sandbox().apiKey}`, BOB);
    expect(text(reply)).toContain(
      "Only a workspace admin or owner or <@U0ALICE>, who installed Switchboard, may connect",
    );
    expect(proxy.seen.length).toBe(seen);
    expect(await installations.connection(w.id)).toBeUndefined();
  });

  it("in Slack without a key opens the connect form; the shell is told the command line", async () => {
    const w = workspace({ demo: async () => ({ apiKey: sandbox().apiKey, organizationName: organization }) });
    const reply = await w.core.run("connect", ALICE);
    expect(reply.form).toEqual({ kind: "connect", data: { demo: true } });
    expect(text(await w.core.run("connect", SHELL))).toContain("For example: `/sb connect key=");
    expect(text(await w.core.run("connect demo", SHELL))).toContain(`Connected to *${organization}*`);
  });

  it("in single mode the key is the environment's: nothing changes", async () => {
    const w = workspace({ mode: "single" });
    const seen = proxy.seen.length;
    const reply = await w.core.run(`connect key=${sandbox().apiKey}`, ALICE);
    expect(text(reply)).toContain("the API key set where it runs");
    expect(text(reply)).toContain("Nothing was changed");
    expect(text(await w.core.run("disconnect", ALICE))).toContain("the API key set where it runs");
    expect(proxy.seen.length).toBe(seen);
    expect(await installations.connection(w.id)).toBeUndefined();
  });
});

describe("/sb disconnect", () => {
  it("asks first, says what pauses, then forgets the key", async () => {
    const w = workspace();
    await w.core.run(`connect key=${sandbox().apiKey}`, ALICE);
    const asked = await w.core.run("disconnect", ALICE);
    expect(asked.confirmation).toBeDefined();
    expect(text(asked)).toContain(`Disconnect this workspace from ${organization}?`);
    expect(text(asked)).toMatch(/report schedules.*inbox channels/s);
    expect(await installations.connection(w.id)).toBeDefined();
    const refused = await w.core.run("disconnect", BOB);
    expect(text(refused)).toContain("<@U0ALICE>");
    const done = await w.core.confirm(asked.confirmation!.id, ALICE);
    expect(text(done)).toContain(`Disconnected from *${organization}*`);
    expect(await installations.connection(w.id)).toBeUndefined();
    expect(w.changes).toEqual(["changed", "changed"]);
    expect(text(await w.core.run("disconnect", ALICE))).toContain("not connected");
  });
});

describe("/sb settings", () => {
  it("saves checked values and shows each with where it comes from", async () => {
    const w = workspace();
    const saved = await w.core.run("settings set tz=Europe/Paris writers=<@U0BOB>,S0TEAM steps=all", SHELL);
    expect(text(saved)).toContain("Saved: Who may make changes, Workspace's time zone, Workflow steps.");
    const shown = text(await w.core.run("settings", SHELL));
    expect(shown).toContain("Workspace's time zone: Europe/Paris");
    expect(shown).toMatch(/changed in the shell on \d+ \w+ \d{4}/);
    expect(shown).toContain("Audit channel: None");
    expect(shown).toMatch(/Audit channel: None[^\n]*\n_?default/);
    const s = await w.admin.settings();
    expect(s.writers.value).toEqual(["U0BOB", "S0TEAM"]);
    expect(s.workflowSteps).toMatchObject({ value: "all", origin: { kind: "slack", by: "shell" } });
    expect(w.changes).toEqual(["changed"]);
  });

  it("shows the default channel by its name, else as Channel 2 (never #2, which reads as a Slack channel)", async () => {
    const w = workspace();
    const saved = text(await w.core.run("settings set channel=2", SHELL));
    expect(saved).toContain("Default messaging channel: Channel 2");
    expect(saved).not.toContain("#2");
    await new ChannelNames(db, ENV_WORKSPACE).set(2, "Support", "shell");
    expect(text(await w.core.run("settings", SHELL))).toContain(
      "Default messaging channel: Support (channel 2)",
    );
  });

  it("refuses a bad value in words and saves nothing, not even the good ones", async () => {
    const w = workspace();
    const reply = await w.core.run("settings set tz=Mars/Olympus steps=all audit=general", SHELL);
    expect(text(reply)).toContain("Nothing was saved");
    expect(text(reply)).toContain("Workspace's time zone: must be a time zone such as Europe/Paris");
    expect(text(reply)).toContain("Audit channel: must be a Slack channel");
    const s = await w.admin.settings();
    expect(s.workflowSteps).toEqual({ value: "writers", origin: { kind: "default" } });
    expect(w.changes).toEqual([]);
  });

  it("quiet hours: refused without the workspace's time zone or when malformed, saved with it", async () => {
    const w = workspace();
    const alone = await w.core.run("settings set quiet=21:00-08:00", SHELL);
    expect(text(alone)).toContain("Nothing was saved");
    expect(text(alone)).toMatch(/Quiet hours: .*time zone, which is not set/);
    expect((await w.admin.settings()).quietHours.value).toBeUndefined();
    const bad = await w.core.run("settings set tz=Europe/Paris quiet=9pm-8am", SHELL);
    expect(text(bad)).toContain("Quiet hours: must be two times of day, from and until, like 21:00-08:00");
    expect((await w.admin.settings()).reportsTimeZone.value).toBeUndefined();
    const ok = await w.core.run("settings set tz=Europe/Paris quiet=21:00-08:00", SHELL);
    expect(text(ok)).toContain("Saved: Workspace's time zone, Quiet hours.");
    expect(text(ok)).toContain("21:00-08:00 (Europe/Paris)");
    // The zone cannot go while quiet hours need it.
    const drop = await w.core.run("settings set tz=none", SHELL);
    expect(text(drop)).toContain("Nothing was saved");
    expect((await w.admin.settings()).reportsTimeZone.value).toBe("Europe/Paris");
  });

  it("in single mode starts from the environment and shows a change as made instead of it", async () => {
    const w = workspace({
      mode: "single",
      env: { writers: ["U0ALICE"], auditChannel: "C0AUDIT", workflowSteps: "off" },
    });
    let s = await w.admin.settings();
    expect(s.writers).toEqual({
      value: ["U0ALICE"],
      origin: { kind: "environment", name: "SWITCHBOARD_WRITERS" },
    });
    expect(text(await w.core.run("settings", SHELL))).toContain("set by whoever runs Switchboard");
    await w.core.run("settings set writers=U0ALICE,U0BOB", SHELL);
    s = await w.admin.settings();
    expect(s.writers).toMatchObject({
      value: ["U0ALICE", "U0BOB"],
      origin: { kind: "slack", overrides: "SWITCHBOARD_WRITERS" },
    });
    expect(text(await w.core.run("settings", SHELL))).toContain(
      "(instead of the value set by whoever runs Switchboard)",
    );
    // `none` puts the environment's value back.
    await w.core.run("settings set writers=none", SHELL);
    expect((await w.admin.settings()).writers.origin).toEqual({
      kind: "environment",
      name: "SWITCHBOARD_WRITERS",
    });
  });

  it("shows a non-admin the settings and who may change them; refuses their change", async () => {
    const w = workspace();
    const shown = text(await w.core.run("settings", BOB));
    expect(shown).toContain("Who may make changes: Everyone in the workspace");
    expect(shown).toContain(
      "Only a workspace admin or owner or @U0ALICE, who installed Switchboard, may change them.",
    );
    expect(text(await w.core.run("settings set steps=off", BOB))).toContain("may change the settings");
    expect((await w.admin.settings()).workflowSteps.value).toBe("writers");
    const opened = await w.core.run("settings", ALICE);
    expect(opened.form?.kind).toBe("settings");
  });
});
