// The whole chain on real parts: signed Slack requests → Bolt's HTTP receiver
// → the real command core → the client → the embedded sandbox, with every
// Slack call answered (and checked against Slack's limits) by the fake Slack.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import type { Switchboard } from "../../src/host/app.ts";
import { AuditLog } from "../../src/store/audit.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { SlackRequests } from "../fakes/slack-requests.ts";
import type { TestDb } from "../helpers/db.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { expectNothingInB } from "../helpers/stack-many.ts";

let fake: FakeSlack;
let db: TestDb;
let switchboard: Switchboard;
let req: SlackRequests;

const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };

type Block = { type: string; elements?: Array<{ action_id?: string; value?: string }> };
const buttons = (blocks: unknown) => ((blocks as Block[] | undefined) ?? []).flatMap((b) => b.elements ?? []);

// The representative flow in both modes, one composition path (docs/workspaces.md): many-workspace mode
// (the stack's default: workspaces A and B, A driven) and single mode (the environment's one installation).
describe.each(["many", "single"] as const)("the Slack app on the real core and sandbox, %s mode", (mode) => {
  let stack: SlackStack;

  beforeAll(async () => {
    stack = await startStack({
      mode,
      writers: ["S0OPS"],
      env: { AUDIT_CHANNEL: "C0AUDIT" },
      slack: {
        channels: [
          { id: "C0GENERAL", name: "general" },
          { id: "C0AUDIT", name: "audit" },
        ],
        users: [ALICE, BOB],
      },
    });
    ({ fake, db, switchboard, req } = stack);
    // Writes are for the ops group; Alice is in it, Bob is not.
    fake.setUserGroup("S0OPS", [ALICE.id]);
  }, 60_000);

  afterAll(async () => {
    await stack?.close();
  });

  it("answers /sb help ephemerally through response_url", async () => {
    const res = await req.command("help");
    expect(res.status).toBe(200);
    const answer = await fake.waitForResponse(res.responseUrl as string);
    expect(answer.status).toBe(200);
    expect(answer.body.response_type).toBe("ephemeral");
    expect(String(answer.body.text).length).toBeGreaterThan(0);
  });

  it("creates a tag, announces it in the channel naming the user, and posts the audit entry", async () => {
    const res = await req.command('tag add vip #FF0000 "Very important"', { user: ALICE });
    expect(res.status).toBe(200);
    const post = await fake.waitFor(() =>
      fake.messages.find((m) => m.channel === "C0GENERAL" && m.text?.includes("vip")),
    );
    expect(post.text).toContain(`<@${ALICE.id}>`);
    // Named once in the text and once in the blocks, not "(by @alice)" twice.
    expect(post.text?.split(`<@${ALICE.id}>`).length).toBe(2);
    expect(JSON.stringify(post.blocks).split(`<@${ALICE.id}>`).length).toBe(2);
    const audit = await fake.waitFor(() =>
      fake.messages.find((m) => m.channel === "C0AUDIT" && m.text?.includes("created tag *vip*")),
    );
    expect(audit.text).toContain(`<@${ALICE.id}>`);
    const tags = await switchboard.client.listTags();
    expect(JSON.stringify(tags)).toContain("vip");
  });

  it("posts a settings change to the audit channel, as it posts a write", async () => {
    const saved = await switchboard.core.run("settings set country=FR", { userId: "shell", via: "shell" });
    expect(saved.text).toMatch(/Saved/);
    const entry = await fake.waitFor(() =>
      fake.messages.find((m) => m.channel === "C0AUDIT" && /changed the settings/.test(String(m.text))),
    );
    expect(String(entry.text)).toMatch(/country/i);
  });

  it("refuses a write to someone outside SWITCHBOARD_WRITERS, saying who may, and changes nothing", async () => {
    const before = JSON.stringify(await switchboard.client.listTags());
    const res = await req.command("tag add intruder #000000", { user: BOB });
    const answer = await fake.waitForResponse(res.responseUrl as string);
    expect(answer.body.response_type).toBe("ephemeral");
    expect(JSON.stringify(answer.body)).toContain("<!subteam^S0OPS>");
    expect(JSON.stringify(await switchboard.client.listTags())).toBe(before);
  });

  it("pages a list with its buttons, replacing the ephemeral message", async () => {
    for (const phone of ["+14155550101", "+14155550102", "+14155550103"]) {
      await switchboard.client.createContact({ phone });
    }
    const first = await req.command("contacts limit=1");
    const page1 = await fake.waitForResponse(first.responseUrl as string);
    const next = buttons(page1.body.blocks).find(
      (b) => b.action_id?.startsWith(ACTION.run) && /page=2/.test(b.value ?? ""),
    );
    expect(next).toBeDefined();
    await req.blockAction(
      { action_id: next?.action_id as string, value: next?.value },
      { responseUrl: first.responseUrl },
    );
    const page2 = await fake.waitForResponse(first.responseUrl as string, 2);
    expect(page2.status).toBe(200);
    expect(page2.body.replace_original).toBe(true);
    expect(page2.body.text).not.toBe(page1.body.text);
  });

  it("deletes once when Confirm is clicked twice at once", async () => {
    const victim = (await switchboard.client.listTags()).items.find((t) => t.name === "vip");
    expect(victim).toBeDefined();
    const ask = await req.command(`tag delete ${victim?.id}`, { user: ALICE });
    const prompt = await fake.waitForResponse(ask.responseUrl as string);
    const confirm = buttons(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
    expect(confirm?.value).toBeTruthy();
    const clicks = await Promise.all([
      req.blockAction(
        { action_id: confirm?.action_id as string, value: confirm?.value },
        { responseUrl: ask.responseUrl, user: ALICE },
      ),
      req.blockAction(
        { action_id: confirm?.action_id as string, value: confirm?.value },
        { responseUrl: ask.responseUrl, user: ALICE },
      ),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    await fake.waitFor(
      () => fake.responsesTo(ask.responseUrl as string).find((r) => r.body.delete_original === true),
      10_000,
      "the prompt deleted once the outcome is in the channel",
    );
    const deletes = (await new AuditLog(db, stack.workspace).list({ limit: 100 })).filter(
      (e) => e.operation === "deleteTag",
    );
    expect(deletes.length).toBe(1);
    expect((await switchboard.client.listTags()).items.some((t) => t.id === victim?.id)).toBe(false);
    for (const r of fake
      .responsesTo(ask.responseUrl as string)
      .filter((x) => x.body.replace_original === true)) {
      expect(buttons(r.body.blocks).some((b) => b.action_id?.startsWith(ACTION.confirm))).toBe(false);
    }
  });

  it.runIf(mode === "many")("leaves workspace B, on the same deployment, untouched", async () => {
    await expectNothingInB(stack);
  });
});
