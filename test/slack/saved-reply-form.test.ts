// The saved reply form (issue 29 §1, "the same in a form"), end to end through
// the fake Slack and the real Bolt app: `/sb reply add` alone opens it; Save
// stores the reply with its line breaks and its inbox, audited as `reply add`
// is; a channel without an inbox, a name taken, an empty text are each said
// under the field and change nothing (the entry also posted to the audit
// channel, as the command's is); `/sb reply edit <name>` alone opens it
// with the reply's text and inbox, and Save changes them (audited); someone
// who may not write cannot save.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AuditLog } from "../../src/store/audit.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { SavedReplies } from "../../src/store/saved-replies.ts";
import { eventually } from "../helpers/eventually.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { blockIds, Forms } from "./forms-harness.ts";

const ALICE = { id: "U0ALICE", name: "alice" };
const BOB = { id: "U0BOB", name: "bob" };
const INBOX = "C0SUPPORT";
const PLAIN = "C0RANDOM";
const AUDIT = "C0AUDIT";
const TEXT = "Hi {first_name|there},\n\nYour order {order_id} ships today.\nThanks!";

let s: SlackStack;
let forms: Forms;
let saved: SavedReplies;

beforeAll(async () => {
  s = await startStack({
    writers: [ALICE.id],
    env: { AUDIT_CHANNEL: AUDIT },
    slack: {
      channels: [
        { id: INBOX, name: "support", is_member: true },
        { id: PLAIN, name: "random", is_member: true },
        { id: AUDIT, name: "audit", is_member: true },
      ],
      users: [ALICE, BOB],
    },
  });
  await new InboxStore(s.db, s.workspace).setInbox(INBOX, "all", ALICE.id, new Date());
  forms = new Forms(s.req, s.fake, ALICE);
  saved = new SavedReplies(s.db, s.workspace);
}, 120_000);

afterAll(async () => {
  await s?.close();
});

const audited = async (operation: string) =>
  (await new AuditLog(s.db, s.workspace).list({ limit: 200 })).filter((e) => e.operation === operation);

describe("the saved reply form", () => {
  it("`reply add` alone opens it; Save keeps the line breaks and the inbox, audited; bad input is said and changes nothing", async () => {
    const { id, view } = await forms.open("reply add");
    expect(view.callback_id).toBe("sb_saved_reply_edit");
    expect(view.title.text).toBe("New saved reply");
    expect(blockIds(view)).toEqual(["name", "text", "inbox"]);

    // Nothing written: both fields asked for.
    expect(await forms.submit(id, { name: "  ", text: "" })).toMatchObject({
      response_action: "errors",
      errors: { name: "Give the reply a name.", text: "Write what the reply says." },
    });
    // A channel that has no inbox.
    const noInbox = await forms.submit(id, { name: "Order shipped", text: TEXT, inbox: PLAIN });
    expect(noInbox.errors.inbox).toMatch(/This channel has no inbox/);
    expect(await saved.get("Order shipped")).toBeUndefined();

    expect(await forms.submit(id, { name: "Order shipped", text: TEXT, inbox: INBOX })).toEqual({
      response_action: "clear",
    });
    expect(await saved.get("order shipped")).toMatchObject({
      name: "Order shipped",
      text: TEXT,
      inbox: INBOX,
    });
    expect(await audited("reply.add")).toEqual([
      expect.objectContaining({ actor: ALICE.id, ok: true, via: "slack" }),
    ]);
    // In the audit channel too, as the command's entry would be.
    await eventually(
      () =>
        s.fake.messages.some(
          (m) => m.channel === AUDIT && String(m.text).includes(`<@${ALICE.id}> saved the reply`),
        ),
      "the audit entry in the audit channel",
    );
    // The answer, where the form was opened.
    await eventually(
      () => s.fake.messages.some((m) => String(m.text).startsWith("Saved reply *Order shipped* added.")),
      "the answer posted",
    );

    // The same name again: said under the name, nothing changed.
    const again = await forms.open("reply add");
    const taken = await forms.submit(again.id, { name: "ORDER SHIPPED", text: "Other" });
    expect(taken.errors.name).toBe(
      "There is a saved reply called Order shipped already: choose another name.",
    );
    expect((await saved.get("Order shipped"))?.text).toBe(TEXT);
    expect(await audited("reply.add")).toHaveLength(1);
  });

  it("`reply edit <name>` alone opens it with the reply's text and inbox; Save changes them, audited", async () => {
    const { id, view } = await forms.open('reply edit "order shipped"');
    expect(view.title.text).toBe("Edit saved reply");
    expect(blockIds(view)).toEqual(["text", "inbox"]);
    const el = (b: string) => view.blocks.find((x: { block_id?: string }) => x.block_id === b).element;
    expect(el("text").initial_value).toBe(TEXT);
    expect(el("inbox").initial_conversation).toBe(INBOX);
    // Saved untouched: nothing written, no audit row, and said (issue 39 §3).
    const untouched = await forms.submit(id);
    expect(untouched.response_action).toBe("update");
    expect(JSON.stringify(untouched.view)).toContain("nothing changed, so nothing was saved");
    expect(await audited("reply.edit")).toEqual([]);

    const changed = "Hello {first_name|there},\nit ships today.";
    expect(await forms.submit(id, { text: changed, inbox: "" })).toEqual({ response_action: "clear" });
    expect(await saved.get("Order shipped")).toMatchObject({ text: changed, inbox: null });
    expect(await audited("reply.edit")).toEqual([expect.objectContaining({ actor: ALICE.id, ok: true })]);
  });

  it("someone who may not write cannot save from it: said in the form, nothing changed", async () => {
    const { id } = await forms.open("reply add");
    const refused = await new Forms(s.req, s.fake, BOB).submit(id, { name: "Bob's", text: "Hi" });
    expect(refused.errors.name).toMatch(/Only writers may add or change saved replies/);
    expect(await saved.get("Bob's")).toBeUndefined();
  });
});

itLeavesBUntouched(() => s);
