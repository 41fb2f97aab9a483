// Saved replies (issue 29 §1): per workspace, a name and a text with
// placeholders from the customer's record. `/sb replies` lists them (anyone);
// `reply add|edit|delete` are writers' (audited); every bad input is answered
// in words and changes nothing. The placeholders filled as a customer reads them.

import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import type { Reply } from "../../src/commands/types.ts";
import { fillReply, replyPlaceholders } from "../../src/domain/saved-reply.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { SavedReplies } from "../../src/store/saved-replies.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const ALICE = { userId: "U0ALICE", via: "slack" as const, channelId: "C0GENERAL" };
const BOB = { userId: "U0BOB", via: "slack" as const, channelId: "C0GENERAL" };
const text = (r: Reply) => blocksToText(r.blocks) || r.text;

describe("filling a saved reply from the customer's record", () => {
  const ana = {
    first_name: "Ana",
    last_name: "Lima",
    phone: "+14155550123",
    custom_fields: { order_id: "A-1001" },
  };
  it("fills first and last name, name, phone and custom fields by key", () => {
    expect(fillReply("Hi {first_name} {last_name} ({name}, {phone}): order {order_id}.", ana)).toBe(
      "Hi Ana Lima (Ana Lima, +14155550123): order A-1001.",
    );
  });
  it("a fallback where the record has no value; nothing where none is given", () => {
    expect(fillReply("Hi {first_name|there}, {order_id}!", {})).toBe("Hi there, !");
    expect(fillReply("Hi {first_name|there}!", ana)).toBe("Hi Ana!");
    expect(fillReply("Hi { first_name | there }!", { first_name: "  " })).toBe("Hi there!");
  });
  it("{name} is the chat user's name when the contact has none; other braces stay as written", () => {
    expect(fillReply("Dear {name}", { name: "Priya Patel" })).toBe("Dear Priya Patel");
    expect(fillReply("Use {{code}} or {1} or {}", ana)).toBe("Use {{code}} or {1} or {}");
    expect(replyPlaceholders("{first_name|there} {order_id} {first_name}")).toEqual([
      "first_name",
      "order_id",
    ]);
  });
});

describe("saved reply commands", () => {
  const s = useStack({ writers: [ALICE.userId] });
  const audited = async (operation: string) =>
    (await new AuditLog(s().db, s().workspace).list({ limit: 200 })).filter((e) => e.operation === operation);

  it("none yet: the list says how to add one", async () => {
    expect(text(await s().core.run("replies", BOB))).toMatch(/No saved reply yet: `\/sb reply add/);
  });

  it("a writer adds one: stored, audited, its placeholders said; a second of that name is refused", async () => {
    const r = await s().core.run(
      'reply add "Order shipped" Hi {first_name|there}, order {order_id} ships today.',
      ALICE,
    );
    expect(text(r)).toMatch(/Saved reply Order shipped added/);
    expect(text(r)).toContain("`{first_name}`, `{order_id}`");
    expect(await audited("reply.add")).toHaveLength(1);
    const twice = await s().core.run('reply add "ORDER SHIPPED" Something else', ALICE);
    expect(text(twice)).toMatch(/There is a saved reply called Order shipped already: nothing was changed/);
    expect((await new SavedReplies(s().db, s().workspace).get("order shipped"))?.text).toBe(
      "Hi {first_name|there}, order {order_id} ships today.",
    );
    const list = text(await s().core.run("replies", BOB));
    expect(list).toMatch(/Order shipped · Hi \{first_name\|there\}, order \{order_id\} ships today\./);
  });

  it("someone who may not write cannot add, edit or delete; nothing changes", async () => {
    for (const line of ["reply add hello Hi", "reply edit Order shipped Hi", "reply delete Order shipped"]) {
      const r = await s().core.run(line, BOB);
      expect(r.text).toMatch(/Only <@U0ALICE> may make changes/);
    }
    expect((await new SavedReplies(s().db, s().workspace).list()).map((r) => r.name)).toEqual([
      "Order shipped",
    ]);
  });

  it("edit changes the text (audited); an unknown name is told, nothing changed", async () => {
    const r = await s().core.run('reply edit "order shipped" Thanks {first_name|there}!', ALICE);
    expect(text(r)).toMatch(/Saved reply Order shipped changed/);
    expect((await new SavedReplies(s().db, s().workspace).get("Order shipped"))?.text).toBe(
      "Thanks {first_name|there}!",
    );
    expect(await audited("reply.edit")).toHaveLength(1);
    expect(text(await s().core.run("reply edit nope Hi", ALICE))).toMatch(
      /There is no saved reply called nope: nothing was changed/,
    );
    // In Slack, `reply edit <name>` alone opens the form: an unknown name is told instead.
    expect(text(await s().core.run("reply edit nope", ALICE))).toMatch(/There is no saved reply called nope/);
  });

  it("in the shell, `reply add` and `reply edit <name>` alone are commands still: their arguments are asked for", async () => {
    const SHELL = { userId: "U0ALICE", via: "shell" as const };
    expect(text(await s().core.run("reply add", SHELL))).toMatch(/name is required/);
    expect(text(await s().core.run("reply add hello", SHELL))).toMatch(/text is required/);
    expect(text(await s().core.run('reply edit "order shipped"', SHELL))).toMatch(/text is required/);
    // In Slack, a name without a text is asked for too (only `reply add` alone opens the form).
    expect(text(await s().core.run("reply add hello", ALICE))).toMatch(/text is required/);
    expect(await new SavedReplies(s().db, s().workspace).get("hello")).toBeUndefined();
  });

  it("delete removes it (audited); a second delete is told", async () => {
    const r = await s().core.run("reply delete Order shipped", ALICE);
    expect(text(r)).toMatch(/Saved reply Order shipped deleted/);
    expect(await audited("reply.delete")).toHaveLength(1);
    expect(text(await s().core.run("reply delete Order shipped", ALICE))).toMatch(/There is no saved reply/);
    expect(await new SavedReplies(s().db, s().workspace).list()).toEqual([]);
  });

  it("one limit everywhere: at most 3,000 characters, as the forms hold, told in words (issue 39 §1)", async () => {
    const long = `Hi {first_name|there}, ${"x".repeat(3500)}`;
    const add = await s().core.run(`reply add long ${long}`, ALICE);
    expect(text(add)).toMatch(/is 3,5\d\d characters: a saved reply may have at most 3,000/);
    expect(await new SavedReplies(s().db, s().workspace).get("long")).toBeUndefined();
    const fits = "y".repeat(3000);
    expect(text(await s().core.run(`reply add long ${fits}`, ALICE))).toMatch(/Saved reply long added/);
    const edit = await s().core.run(`reply edit long ${fits}z`, ALICE);
    expect(text(edit)).toMatch(/is 3,001 characters: a saved reply may have at most 3,000/);
    expect((await new SavedReplies(s().db, s().workspace).get("long"))?.text).toBe(fits);
    // The form opens with it whole: it fits the field.
    const form = await s().core.run("reply edit long", ALICE);
    expect(form.form?.kind).toBe("saved-reply-edit");
    // One kept from before the limit does not open a form it does not fit: its new text is asked for.
    await new SavedReplies(s().db, s().workspace).add(
      "older",
      "z".repeat(3500),
      ALICE.userId,
      new Date(),
      null,
    );
    const older = await s().core.run("reply edit older", ALICE);
    expect(older.form).toBeUndefined();
    expect(text(older)).toMatch(/older is 3,500 characters[\s\S]*reply edit older <text…>`/);
    expect(text(await s().core.run("help reply add", ALICE))).toMatch(/at most 3,000 characters/);
  });

  it("kept per workspace: another workspace's store does not see them", async () => {
    await s().core.run("reply add hello Hello {first_name|there}", ALICE);
    expect(await new SavedReplies(s().db, "T0OTHER").list()).toEqual([]);
    expect(await new SavedReplies(s().db, "T0OTHER").remove("hello")).toBeUndefined();
    expect((await new SavedReplies(s().db, s().workspace).get("hello"))?.text).toBe(
      "Hello {first_name|there}",
    );
  });

  itLeavesBUntouched(s);
});
