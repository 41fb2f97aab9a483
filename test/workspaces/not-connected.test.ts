// An installed workspace not yet connected to a messaging account (issue 19
// §2): every command but help, connect and settings answers how to connect
// and who can, without a single request to the API (counted by a proxy in
// front of the sandbox).

import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import type { SwitchboardCore } from "../../src/commands/core.ts";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import { createNotConnectedCore } from "../../src/commands/not-connected.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { Keyring } from "../../src/platform/secrets.ts";
import { Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { createWorkspaceAdmin } from "../../src/workspaces/admin.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { type CountingProxy, startProxy } from "../helpers/proxy.ts";
import { withSandbox } from "../helpers/sandbox.ts";

const ALICE: Actor = {
  userId: "U0ALICE",
  userName: "alice",
  teamId: "T9",
  channelId: "C0GENERAL",
  via: "slack",
};
const BOB: Actor = { userId: "U0BOB", userName: "bob", teamId: "T9", channelId: "C0GENERAL", via: "slack" };

const sandbox = withSandbox();
let db: TestDb;
let proxy: CountingProxy;
let installations: Installations;
let core: SwitchboardCore;
const text = (r: Reply) => `${r.text}\n${blocksToText(r.blocks)}`;
const buttons = (r: Reply) =>
  r.blocks.flatMap((b) =>
    b.type === "actions" ? b.elements.map((e) => (e as { value?: string }).value) : [],
  );

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  installations = await Installations.open(db, new Keyring(randomBytes(32)));
  proxy = await startProxy(sandbox().url);
  const admin = createWorkspaceAdmin({
    db,
    installations,
    workspace: "T9",
    apiUrl: proxy.url,
    timeoutMs: 2000,
    mode: "many",
    installerUserId: "U0ALICE",
  });
  core = createNotConnectedCore({ stores: new WorkspaceStores(db, ENV_WORKSPACE), admin });
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await db?.close();
});

const OWN = new Set(["help", "connect", "settings", "settings.set"]);

describe("a workspace not connected yet", () => {
  it("answers every other command, for anyone, without calling the API", async () => {
    const others = ALL_COMMANDS.filter((c) => !OWN.has(c.id));
    expect(others.length).toBeGreaterThan(40);
    for (const spec of others) {
      for (const actor of [ALICE, BOB]) {
        const reply = await core.run(`/sb ${spec.example}`, actor);
        expect(text(reply), spec.example).toContain(
          "This workspace is not connected to a messaging account yet",
        );
        if (actor === ALICE) {
          expect(buttons(reply), spec.example).toEqual(["connect"]);
          expect(text(reply)).toContain("You can connect it");
        } else {
          expect(buttons(reply), spec.example).toEqual([]);
          expect(JSON.stringify(reply.blocks)).toContain(
            "<@U0ALICE>, who installed Switchboard, connects it with `/sb connect`",
          );
        }
      }
    }
    expect(text(await core.run("help", BOB))).toContain("not connected");
    expect(text(await core.run("help campaigns", BOB))).toContain("not connected");
    expect(text(await core.run("help all", BOB))).toMatch(/Workspace[^\n]*\n[^\n]*connect/);
    expect(text(await core.run("", BOB))).toContain("not connected");
    expect(text(await core.confirm("0f0f0f0f-0000-4000-8000-000000000000", BOB))).toContain("not connected");
    await expect(core.perform(ALICE, { access: "read", command: "form" }, async () => 1)).rejects.toThrow(
      /not connected to a messaging account yet/,
    );
    expect(proxy.seen).toEqual([]);
  });

  it("keeps help topics, the settings and connect", async () => {
    expect(text(await core.run("help workspace", BOB))).toContain("/sb connect");
    expect(text(await core.run("settings", BOB))).toContain(
      "Who may make changes: Everyone in the workspace",
    );
    expect((await core.run("connect", ALICE)).form?.kind).toBe("connect");
    expect(proxy.seen).toEqual([]);
    const connected = await core.run(`connect key=${sandbox().apiKey}`, ALICE);
    expect(text(connected)).toContain("Connected to");
    expect(proxy.seen).toEqual(["GET /v1/me", "GET /v1/templates"]);
    expect(await installations.connection("T9")).toBeDefined();
  });
});
