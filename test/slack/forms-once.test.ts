// A form's submission delivered twice (a double click on a slow form: the
// same view and hash) does its work once, and the second gets an answer too;
// a submission whose work failed is answered in the form, never by an empty
// answer that closes it as if done. The real Bolt app over the fake Slack,
// the real core and sandbox.
import { beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../../src/store/audit.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { Forms, randomName, templateEntries } from "./forms-harness.ts";

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

const stack = useStack({ writers: ["U0ALICE"], env: { MESSAGING_CHANNEL_ID: "1" }, slack: {} });
let alice: Forms;
beforeAll(() => {
  alice = new Forms(stack().req, stack().fake);
});

const templateWrites = async () =>
  (await new AuditLog(stack().db, stack().workspace).list({ limit: 1000 })).filter((e) =>
    /template/i.test(`${e.operation} ${e.command}`),
  ).length;

describe("a form submitted twice", () => {
  it("does its work once; both deliveries are answered", async () => {
    const v = await alice.open("template new");
    await alice.act(v.id, "body", { body: "Hi {{name}}" });
    const entries = templateEntries(randomName("Twice").replace(/ /g, "_"));
    const before = await templateWrites();
    // The same view and hash, twice at once.
    const [first, second]: Json[] = await Promise.all([
      alice.submit(v.id, entries),
      alice.submit(v.id, entries),
    ]);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    // Both answers came, so both deliveries were handled: one write.
    await stack().fake.waitFor(
      () => stack().fake.messages.find((m) => /submitted for approval/.test(m.text ?? "")),
      15_000,
      "the template's outcome",
    );
    expect((await templateWrites()) - before).toBe(1);
    expect(
      stack().fake.messages.filter((m) => new RegExp(entries.name.toLowerCase()).test(m.text ?? "")),
    ).toHaveLength(1);
  });

  it("a corrected submission of the same view after field errors is not taken for a repeat", async () => {
    const v = await alice.open("template new");
    await alice.act(v.id, "body", { body: "Hi {{name}}" });
    const good = templateEntries(randomName("Fixed").replace(/ /g, "_"));
    const refused: Json = await alice.submit(v.id, { ...good, name: "!!!" });
    expect(refused.response_action).toBe("errors");
    const before = await templateWrites();
    const ok: Json = await alice.submit(v.id, good);
    expect(ok.response_action).toBeUndefined();
    expect((await templateWrites()) - before).toBe(1);
  });
});

itLeavesBUntouched(() => stack());
