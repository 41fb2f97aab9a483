// A settings change reaches forms at once, as it reaches commands
// (single-workspace mode, the real Bolt app over the fake Slack, the real
// core and sandbox). Before forms read the request's workspace, a form
// submitted after `writers` changed still wrote with the start-up core.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { Forms, randomName } from "./forms-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const SHELL = { userId: "shell", via: "shell" as const };
let stack: SlackStack;
let alice: Forms;

beforeAll(async () => {
  stack = await startStack({ writers: ["U0ALICE"], env: { MESSAGING_CHANNEL_ID: "1" }, slack: {} });
  alice = new Forms(stack.req, stack.fake);
}, 180_000);

afterAll(async () => {
  await stack?.close();
});

const writes = async () => (await new AuditLog(stack.db, ENV_WORKSPACE).list({ limit: 1000 })).length;

describe("a settings change reaches forms at once", () => {
  it("a form opened before writers changed is refused at submission, in the form, and writes nothing", async () => {
    const v = await alice.open("template new");
    await alice.act(v.id, "body", { body: "Hi {{name}}" });
    // The operator makes Bob the only writer while Alice's form is open.
    const saved = await stack.switchboard.core.run("settings set writers=U0BOB", SHELL);
    expect(blocksToText(saved.blocks) || saved.text).not.toMatch(/nothing was saved/i);
    const before = await writes();
    const answer: Json = await alice.submit(v.id, {
      name: randomName("After change").replace(/ /g, "_"),
      language: "en",
      category: "UTILITY",
      body: "Hi {{name}}",
      "example:name": "Ana",
    });
    // Never an empty answer that closes the form as if done: the refusal is shown.
    expect(answer).not.toEqual({});
    expect(JSON.stringify(answer)).toMatch(/may not|only|writers|not allowed/i);
    expect(await writes()).toBe(before);
  });

  it("the next shortcut of a non-writer is refused in its modal; the new writer's opens the form", async () => {
    const updates = () => stack.fake.callsOf("views.update").length;
    let before = updates();
    await stack.req.shortcut("sb_send", { user: { id: "U0ALICE", name: "alice" } });
    const refused = await stack.fake.waitFor(
      () =>
        stack.fake
          .callsOf("views.update")
          .slice(before)
          .find((c) => c.response.ok === true),
      15_000,
      "the shortcut's modal",
    );
    expect(JSON.stringify(refused.args.view)).toMatch(/may not|only|cannot/i);
    before = updates();
    await stack.req.shortcut("sb_send", { user: { id: "U0BOB", name: "bob" } });
    const opened = await stack.fake.waitFor(
      () =>
        stack.fake
          .callsOf("views.update")
          .slice(before)
          .find((c) => c.response.ok === true),
      15_000,
      "the shortcut's form",
    );
    expect((opened.args.view as Json).callback_id).toBe("sb_send");
  });
});
