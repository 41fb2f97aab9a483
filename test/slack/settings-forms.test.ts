// A settings change reaches forms at once, as it reaches commands
// (single-workspace mode, the real Bolt app over the fake Slack, the real
// core and sandbox). Before forms read the request's workspace, a form
// submitted after `writers` changed still wrote with the start-up core.
import { beforeAll, describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { Forms, randomName, templateEntries } from "./forms-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const SHELL = { userId: "shell", via: "shell" as const };
const stack = useStack({ writers: ["U0ALICE"], env: { MESSAGING_CHANNEL_ID: "1" }, slack: {} });
let alice: Forms;
beforeAll(() => {
  alice = new Forms(stack().req, stack().fake);
});

const writes = async () => (await new AuditLog(stack().db, stack().workspace).list({ limit: 1000 })).length;

/** The Send shortcut of `user`: the view it put up (the first views.update Slack took). */
async function shortcutView(user: { id: string; name: string }, what: string) {
  const before = stack().fake.callsOf("views.update").length;
  await stack().req.shortcut("sb_send", { user });
  return stack().fake.waitFor(
    () =>
      stack()
        .fake.callsOf("views.update")
        .slice(before)
        .find((c) => c.response.ok === true),
    15_000,
    what,
  );
}

describe("a settings change reaches forms at once", () => {
  it("a form opened before writers changed is refused at submission, in the form, and writes nothing", async () => {
    const v = await alice.open("template new");
    await alice.act(v.id, "body", { body: "Hi {{name}}" });
    // The operator makes Bob the only writer while Alice's form is open.
    const saved = await stack().switchboard.core.run("settings set writers=U0BOB", SHELL);
    expect(blocksToText(saved.blocks) || saved.text).not.toMatch(/nothing was saved/i);
    const before = await writes();
    const answer: Json = await alice.submit(
      v.id,
      templateEntries(randomName("After change").replace(/ /g, "_")),
    );
    // Never an empty answer that closes the form as if done: the refusal is shown.
    expect(answer).not.toEqual({});
    expect(JSON.stringify(answer)).toMatch(/may not|only|writers|not allowed/i);
    expect(await writes()).toBe(before);
  });

  it("the next shortcut of a non-writer is refused in its modal; the new writer's opens the form", async () => {
    const refused = await shortcutView({ id: "U0ALICE", name: "alice" }, "the shortcut's modal");
    expect(JSON.stringify(refused.args.view)).toMatch(/may not|only|cannot/i);
    const opened = await shortcutView({ id: "U0BOB", name: "bob" }, "the shortcut's form");
    expect((opened.args.view as Json).callback_id).toBe("sb_send");
  });
});

itLeavesBUntouched(() => stack());
