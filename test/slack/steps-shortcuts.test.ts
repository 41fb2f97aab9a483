// Shortcuts open the commands' forms: a small modal at once (the trigger_id
// lasts 3 s), replaced by the form when its data is read. The message
// shortcut fills the message form with the message's text.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SHORTCUTS } from "../../src/slack/forms/index.ts";
import { checkView } from "../fakes/block-kit.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { manifestFunctions } from "./steps-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

let stack: SlackStack;
let fake: FakeSlack;

beforeAll(async () => {
  stack = await startStack({ writers: ["U0ALICE"], env: { MESSAGING_CHANNEL_ID: "1" }, slack: {} });
  ({ fake } = stack);
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

/** The view the shortcut ended with: opened, then updated once with the form (or a refusal). */
async function formOf(triggerId: string): Promise<Json> {
  const open = await fake.waitFor(
    () => fake.calls.find((c) => c.method === "views.open" && c.args.trigger_id === triggerId),
    10_000,
    "views.open",
  );
  expect(open.response.ok).toBe(true);
  const viewId = (open.response.view as Json).id;
  const update = await fake.waitFor(
    () => fake.calls.find((c) => c.method === "views.update" && c.args.view_id === viewId),
    15_000,
    "views.update",
  );
  expect(update.response).toMatchObject({ ok: true });
  return update.args.view;
}

const blockIdsOf = (view: Json) => (view.blocks as Json[]).map((b) => b.block_id);

describe("global shortcuts", () => {
  it.each([
    ["Send a message", SHORTCUTS.send, "sb_send", "to"],
    ["New campaign", SHORTCUTS.newCampaign, "sb_campaign", "template"],
    ["Import contacts", SHORTCUTS.import, "sb_import", "file"],
  ])("%s opens the command's form", async (_name, callbackId, formCallback, block) => {
    const sent = await stack.req.shortcut(callbackId);
    expect(sent.status).toBe(200);
    const view = await formOf(sent.triggerId!);
    expect(checkView(view)).toEqual([]);
    expect(view.callback_id).toBe(formCallback);
    expect(blockIdsOf(view)).toContain(block);
  });

  it("shows a person who may not make changes why, in the modal", async () => {
    const sent = await stack.req.shortcut(SHORTCUTS.send, { user: { id: "U0BOB", name: "bob" } });
    const view = await formOf(sent.triggerId!);
    expect(view.callback_id).toBe("sb_wait");
    expect(JSON.stringify(view.blocks)).toMatch(/Only <@U0ALICE> may make changes/);
  });
});

describe("message shortcut Send to a customer", () => {
  it("opens the message form with the message's text, Slack's markup made plain", async () => {
    const sent = await stack.req.shortcut(SHORTCUTS.sendToCustomer, {
      message: { text: "Your order &lt;A-12&gt; ships today: <https://example.com/t/12|track it>" },
    });
    const view = await formOf(sent.triggerId!);
    expect(view.callback_id).toBe("sb_send");
    const text = (view.blocks as Json[]).find((b) => b.block_id === "text");
    expect(text.element.initial_value).toBe(
      "Your order <A-12> ships today: track it (https://example.com/t/12)",
    );
    // Results of the form go to the message's channel.
    expect(JSON.parse(view.private_metadata).ch).toBe("C0GENERAL");
  });
});

describe("manifest.yml", () => {
  it("declares the shortcuts the app handles", async () => {
    const { parse } = await import("yaml");
    const { readFileSync } = await import("node:fs");
    const m = parse(readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8"));
    expect((m.features.shortcuts as Json[]).map((s) => [s.callback_id, s.type]).sort()).toEqual(
      [
        [SHORTCUTS.sendToCustomer, "message"],
        [SHORTCUTS.send, "global"],
        [SHORTCUTS.newCampaign, "global"],
        [SHORTCUTS.import, "global"],
        [SHORTCUTS.savedReply, "message"],
      ].sort(),
    );
    expect(Object.keys(manifestFunctions()).length).toBe(4);
  });
});
