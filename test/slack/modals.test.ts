// The forms end to end: signed Slack requests → Bolt → the real core → the
// client → the embedded sandbox, with the fake Slack answering views.open,
// views.update and recording what is posted. Bad input gets field errors and
// makes no request (the audit table, which records every write, stays as it was).

import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import type { Switchboard } from "../../src/host/app.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { checkView } from "../fakes/block-kit.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import type { TestDb } from "../helpers/db.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { blockIds, Forms, randomName, templateEntries } from "./forms-harness.ts";

let fake: FakeSlack;
let db: TestDb;
let switchboard: Switchboard;
let forms: Forms;
let bobForms: Forms;

// biome-ignore lint/suspicious/noExplicitAny: Block Kit JSON is read loosely.
type Json = any;

let stack: SlackStack;

beforeAll(async () => {
  stack = await startStack({
    writers: ["U0ALICE"],
    env: { MESSAGING_CHANNEL_ID: "1" },
    slack: {},
  });
  ({ fake, db, switchboard } = stack);
  forms = new Forms(stack.req, fake);
  bobForms = new Forms(stack.req, fake, { id: "U0BOB", name: "bob" });
}, 60_000);

afterAll(async () => {
  await stack?.close();
});

const writes = async () => (await new AuditLog(db, stack.workspace).list({ limit: 1000 })).length;
const posted = (re: RegExp) =>
  fake.waitFor(() => fake.messages.find((m) => re.test(m.text ?? "")), 15_000, `a message matching ${re}`);
const inputsOf = (view: Json) =>
  (view.blocks as Json[]).filter((b) => b.type === "input").map((b) => b.block_id);

describe("the forms' channel menus (issue 9)", () => {
  it("offer the channels by the names people gave them, the default told apart", async () => {
    await stack.req.command("channel name 2 Support line", { user: { id: "U0ALICE", name: "alice" } });
    await posted(/Support line/);
    for (const line of ["campaign new", "send", "template new"]) {
      const v = await forms.open(line);
      const channel = (v.view.blocks as Json[]).find((b) => b.block_id === "channel");
      const texts = (channel.element.options as Json[]).map((o) => o.text.text);
      expect(texts, line).toContain("Support line");
      expect(texts, line).toContain("Channel 1 (default)");
      expect(texts.join("\n"), line).not.toMatch(/Channel 2/);
    }
    // A choice that redraws the form keeps the names.
    const v = await forms.open("send");
    const redrawn = await forms.act(v.id, "type", { type: "template" });
    const channel = (redrawn.view.blocks as Json[]).find((b) => b.block_id === "channel");
    expect((channel.element.options as Json[]).map((o) => o.text.text)).toContain("Support line");
  });
});

describe("the campaign form", () => {
  it("opens within Slack's limits, with the default channel chosen", async () => {
    const v = await forms.open("campaign new");
    expect(checkView(v.view)).toEqual([]);
    expect(v.view.title.text.length).toBeLessThanOrEqual(24);
    const channel = (v.view.blocks as Json[]).find((b) => b.block_id === "channel");
    expect(channel.element.initial_option.value).toBe("1");
    expect(inputsOf(v.view)).toEqual(
      expect.arrayContaining(["name", "template", "tag", "groups", "contacts", "start"]),
    );
  });

  it("offers approved templates as the user types, each with its language and body, under 75 characters", async () => {
    const v = await forms.open("campaign new");
    const all = await forms.suggest(v.id, "template", "");
    expect(all.length).toBeGreaterThan(0);
    for (const o of all) expect(o.text.text.length).toBeLessThanOrEqual(75);
    expect(all.map((o) => o.text.text).join("\n")).not.toMatch(/loyalty_points|flash_deal/); // pending, rejected
    const some = await forms.suggest(v.id, "template", "order");
    expect(some.map((o) => o.text.text)).toEqual([
      expect.stringMatching(/^order_update · en — Hi \{\{first_name\}\}/),
    ]);
  });

  it("shows one input per placeholder when a template is chosen, keeping what was typed", async () => {
    const v = await forms.open("campaign new");
    const [order] = await forms.suggest(v.id, "template", "order_update");
    const updated = await forms.act(v.id, "template", { name: "Kept name", template: order.value });
    expect(blockIds(updated.view)).toEqual(expect.arrayContaining(["param:first_name", "param:order_id"]));
    const name = (updated.view.blocks as Json[]).find((b) => b.block_id === "name");
    expect(name.element.initial_value).toBe("Kept name");
    expect(checkView(updated.view)).toEqual([]);
  });

  it("refuses bad values at their fields and makes no request", async () => {
    const v = await forms.open("campaign new");
    const [order] = await forms.suggest(v.id, "template", "order_update");
    await forms.act(v.id, "template", { template: order.value });
    const u = await forms.act(v.id, "tag", { template: order.value, tag: "new" });
    const before = await writes();
    const answer = await forms.submit(u.id, {
      name: "",
      template: order.value,
      tag: "new",
      tag_name: "x",
      tag_color: "blue",
    });
    expect(answer.response_action).toBe("errors");
    expect(Object.keys(answer.errors)).toEqual(
      expect.arrayContaining(["name", "param:first_name", "param:order_id", "tag_color"]),
    );
    expect(answer.errors.tag_color).toMatch(/#RRGGBB/);
    // The audience is offered, not required (issue 9): the spec's campaign body has none.
    expect(answer.errors.groups).toBeUndefined();
    expect(await writes()).toBe(before);
  });

  it("does not create a campaign whose template's placeholders were never shown (issue 9)", async () => {
    const v = await forms.open("campaign new");
    const [order] = await forms.suggest(v.id, "template", "order_update");
    const groups = (v.view.blocks as Json[]).find((b) => b.block_id === "groups").element.options as Json[];
    const before = await writes();
    // Submitted before the form showed the template's placeholders: their values were never asked.
    const answer = await forms.submit(v.id, {
      name: randomName("No values"),
      template: order.value,
      groups: [groups[0]!.value],
    });
    expect(answer.response_action).toBe("errors");
    expect(answer.errors.template).toMatch(/placeholders are not loaded yet: choose it again/);
    expect(await writes()).toBe(before);

    // Chosen again, its values given: created, and without an audience too (offered, not required).
    const shown = await forms.act(v.id, "template", { template: order.value });
    const name = randomName("No audience");
    const ok = await forms.submit(shown.id, {
      name,
      template: order.value,
      "param:first_name": "friend",
      "param:order_id": "B-2",
    });
    expect(ok.response_action).toBeUndefined();
    await posted(new RegExp(`Draft campaign #\\d+ “${name}”`));
  });

  it("creates a draft with a new tag and posts it with Send and Open buttons", async () => {
    const v = await forms.open("campaign new");
    const [order] = await forms.suggest(v.id, "template", "order_update");
    const withTemplate = await forms.act(v.id, "template", { template: order.value });
    const withTag = await forms.act(withTemplate.id, "tag", { template: order.value, tag: "new" });
    expect(blockIds(withTag.view)).toEqual(expect.arrayContaining(["tag_name", "tag_color"]));
    const groups = (withTag.view.blocks as Json[]).find((b) => b.block_id === "groups").element
      .options as Json[];
    const contacts = await forms.suggest(v.id, "contacts", "a");
    expect(contacts.length).toBeGreaterThan(0);
    const name = randomName("Form campaign");
    const tagName = randomName("Form tag");
    const answer = await forms.submit(withTag.id, {
      name,
      template: order.value,
      "param:first_name": "friend",
      "param:order_id": "A-1",
      tag: "new",
      tag_name: tagName,
      tag_color: "#112233",
      groups: [groups[0]!.value],
      contacts: [contacts[0]!.value],
    });
    expect(answer.response_action).toBeUndefined();
    const msg = await posted(new RegExp(`Draft campaign #\\d+ “${name}”`));
    const campaigns = await switchboard.client.listCampaigns({ limit: 100 });
    const c = campaigns.items.find((x) => x.name === name) as Json;
    expect(c).toBeDefined();
    const tag = (await switchboard.client.listTags()).items.find((t) => t.name === tagName);
    expect(tag?.color).toBe("#112233");
    expect(c.conversationTagId ?? c.conversation_tag_id).toBe(tag?.id);
    expect(c.templateParameters ?? c.template_parameters).toEqual({ first_name: "friend", order_id: "A-1" });
    const buttons = (msg.blocks as Json[])
      .flatMap((b) => b.elements ?? [])
      .filter((e: Json) => e.type === "button");
    expect(buttons.map((b: Json) => b.value)).toEqual([`campaign ${c.id} send`, `campaign ${c.id}`]);
    expect(buttons[0].action_id).toBe(ACTION.run);
    const audit = (await new AuditLog(db, stack.workspace).list({ limit: 100 })).filter((e) =>
      e.command.includes(name),
    );
    expect(audit.map((e) => e.operation).sort()).toEqual(["createCampaign", "createTag"]);
  });

  it("refuses the form to someone who may not write, before they fill it in", async () => {
    const before = fake.callsOf("views.open").length;
    const res = await bobForms.req.command("campaign new", { user: bobForms.user });
    const answer = await fake.waitForResponse(res.responseUrl as string);
    expect(JSON.stringify(answer.body)).toContain("<@U0ALICE>");
    expect(fake.callsOf("views.open").length).toBe(before);
  });
});

describe("the message form", () => {
  it("shows only the fields of the chosen type", async () => {
    const v = await forms.open("send");
    expect(checkView(v.view)).toEqual([]);
    expect(inputsOf(v.view)).toEqual(expect.arrayContaining(["to", "recipient", "type", "text", "human"]));
    const tpl = await forms.act(v.id, "type", { type: "template", to: "+14155550199" });
    expect(inputsOf(tpl.view)).toContain("template");
    expect(inputsOf(tpl.view)).not.toContain("text");
    const [order] = await forms.suggest(v.id, "template", "order", { type: "template" });
    const withParams = await forms.act(v.id, "template", { type: "template", template: order.value });
    expect(inputsOf(withParams.view)).toEqual(expect.arrayContaining(["param:first_name", "param:order_id"]));
    const img = await forms.act(v.id, "type", { type: "image" });
    expect(inputsOf(img.view)).toEqual(expect.arrayContaining(["media", "caption"]));
    expect(inputsOf(img.view)).not.toContain("param:first_name");
  });

  it("finds contacts and chat users as the user types", async () => {
    const v = await forms.open("send");
    const options = await forms.suggest(v.id, "recipient", "a");
    expect(options.some((o) => o.value.startsWith("contact:"))).toBe(true);
    expect(options.some((o) => o.value.startsWith("user:"))).toBe(true);
    for (const o of options) expect(o.text.text.length).toBeLessThanOrEqual(75);
  });

  it("refuses a missing recipient and a bad phone at their fields without a request", async () => {
    const v = await forms.open("send");
    const before = await writes();
    const none = await forms.submit(v.id, { text: "hello" });
    expect(none.errors.to).toMatch(/phone number, or choose a contact/);
    const bad = await forms.submit(v.id, { to: "12ab", text: "hello" });
    expect(bad.errors.to).toMatch(/not a phone number/);
    const empty = await forms.submit(v.id, { to: "+14155550199" });
    expect(Object.keys(empty.errors)).toEqual(["text"]);
    expect(await writes()).toBe(before);
  });

  it("refuses free text outside the 24-hour window at the message field, with the template hint, keeping the input", async () => {
    const v = await forms.open("send");
    const answer = await forms.submit(v.id, { to: "+14155550177", text: "Are you there?" });
    expect(answer.response_action).toBe("errors");
    expect(answer.errors.text).toMatch(/24-hour/);
    expect(answer.errors.text).toMatch(/Template/);
  });

  it("opens with the recipient chosen from a card's Send message, and sends to them", async () => {
    const card = await stack.req.command("contact 1", { user: { id: "U0ALICE", name: "alice" } });
    const body = (await fake.waitForResponse(card.responseUrl as string)).body as Json;
    const button = (body.blocks as Json[])
      .flatMap((b) => (b.type === "actions" ? (b.elements as Json[]) : []))
      .find((e) => e.text?.text === "Send message");
    expect(button.value).toBe("send contact:1");
    const v = await forms.open(button.value);
    expect(checkView(v.view)).toEqual([]);
    const chosen = (v.view.blocks as Json[]).find((b) => b.block_id === "recipient").element.initial_option;
    expect(chosen.value).toBe("contact:1");
    expect(chosen.text.text).toMatch(/^Ana Lopez · \+14155550200 \(contact #1\)$/);
    // A phone alone opens the form with it in the phone field.
    const byPhone = await forms.open("send +1 415 555 0177");
    expect((byPhone.view.blocks as Json[]).find((b) => b.block_id === "to").element.initial_value).toBe(
      "+14155550177",
    );
  });

  it("sends a template with its parameters", async () => {
    const v = await forms.open("send");
    await forms.act(v.id, "type", { type: "template", to: "+14155550177" });
    const [order] = await forms.suggest(v.id, "template", "order", { type: "template" });
    await forms.act(v.id, "template", { type: "template", template: order.value, to: "+14155550177" });
    const answer = await forms.submit(v.id, {
      to: "+14155550177",
      type: "template",
      template: order.value,
      "param:first_name": "Ana",
      "param:order_id": "A-9",
    });
    expect(answer.response_action).toBeUndefined();
    await posted(
      /^:envelope: Sent to \*\+14155550177\*: “Hi Ana, your order A-9 is on its way\.” · \w+ \(Message #\d+\)/,
    );
  });
});

describe("the template form", () => {
  it("shows the normalized name and one example per placeholder as the body is typed; adds buttons", async () => {
    const v = await forms.open("template new");
    expect(checkView(v.view)).toEqual([]);
    const named = await forms.act(v.id, "name", { name: "Order Shipped!" });
    const hint = (named.view.blocks as Json[]).find((b) => b.block_id === "name_hint");
    expect(hint.elements[0].text).toContain("`order_shipped`");
    const typed = await forms.act(v.id, "body", {
      name: "Order Shipped!",
      body: "Hi {{name}}, order {{order}} is out",
    });
    expect(inputsOf(typed.view)).toEqual(expect.arrayContaining(["example:name", "example:order"]));
    const one = await forms.act(v.id, "button_controls", {}, { action_id: "sb_add_button", value: "1" });
    expect(inputsOf(one.view)).toEqual(
      expect.arrayContaining(["button:0:type", "button:0:text", "button:0:url"]),
    );
    expect(checkView(one.view)).toEqual([]);
  });

  it("refuses what the client refuses, at the fields, without a request", async () => {
    const v = await forms.open("template new");
    await forms.act(v.id, "body", { body: "Hi {{name}}" });
    await forms.act(v.id, "button_controls", {}, { action_id: "sb_add_button", value: "1" });
    const before = await writes();
    const answer = await forms.submit(v.id, {
      name: "!!!",
      language: "english",
      body: "Hi {{name}}",
      footer: "Bye {{name}}",
      "button:0:type": "URL",
      "button:0:text": "A button text that is far too long",
    });
    expect(answer.response_action).toBe("errors");
    expect(answer.errors).toMatchObject({
      name: expect.stringMatching(/letters or digits/),
      language: expect.stringMatching(/language code/),
      category: expect.any(String),
      footer: expect.stringMatching(/placeholders/),
      "example:name": expect.stringMatching(/example/),
      "button:0:text": expect.stringMatching(/25/),
      "button:0:url": expect.stringMatching(/required/),
    });
    expect(await writes()).toBe(before);
  });

  it("submits a good template for approval", async () => {
    const v = await forms.open("template new");
    const name = randomName("Form template");
    await forms.act(v.id, "body", { body: "Hi {{name}}" });
    const answer = await forms.submit(v.id, templateEntries(name));
    expect(answer.response_action).toBeUndefined();
    await posted(/Template \*form_template_[0-9a-f]+\* submitted for approval/);
  });
});

describe("the edit forms", () => {
  it("opens a contact prefilled, custom fields as their types, and saves a change", async () => {
    const created = await switchboard.client.createContact({
      phone: "+14155550166",
      first_name: "Eda",
      custom_fields: { loyalty_tier: "gold", points: 12, birthday: "1990-04-01", vip: true },
    });
    const v = await forms.open(`contact edit ${created.id}`);
    expect(checkView(v.view)).toEqual([]);
    const el = (id: string) => (v.view.blocks as Json[]).find((b) => b.block_id === id)?.element;
    expect(el("first_name").initial_value).toBe("Eda");
    expect(el("field:points")).toMatchObject({ type: "number_input", initial_value: "12" });
    expect(el("field:birthday")).toMatchObject({ type: "datepicker", initial_date: "1990-04-01" });
    expect(el("field:vip").initial_option.value).toBe("true");
    expect(el("field:loyalty_tier")).toMatchObject({ type: "plain_text_input", initial_value: "gold" });
    const bad = await forms.submit(v.id, { phone: "nope" });
    expect(bad.errors.phone).toMatch(/not a phone number/);
    const ok = await forms.submit(v.id, { last_name: "Lind", "field:points": "40" });
    expect(ok.response_action).toBeUndefined();
    // What changed, on whom, by name and label (issue 30).
    await posted(/\*Eda Lind\*: last name and points changed/);
    const after = await switchboard.client.getContact(created.id as number);
    expect(after.last_name).toBe("Lind");
    expect(after.custom_fields).toMatchObject({ loyalty_tier: "gold", points: 40, vip: true });
  });

  it("opens a chat user prefilled and saves a change", async () => {
    const users = await switchboard.client.listChatUsers({ limit: 5 });
    const u = users.items[0]!;
    const v = await forms.open(`user edit ${u.id}`);
    expect(checkView(v.view)).toEqual([]);
    const bad = await forms.submit(v.id, { email: "not-an-email" });
    expect(bad.errors.email).toBeDefined();
    const ok = await forms.submit(v.id, { address: "1 Main St" });
    expect(ok.response_action).toBeUndefined();
    await posted(/: address changed/).catch((err) => {
      throw new Error(`${err}: ${JSON.stringify(fake.messages.slice(-3).map((m) => m.text))}`);
    });
  });

  it("shows a chat user's custom fields by label, a date field as a date picker as in the contact form (issue 30)", async () => {
    const users = await switchboard.client.listChatUsers({ limit: 5 });
    const u = users.items[0]!;
    const v = await forms.open(`user edit ${u.id}`);
    const block = (id: string) => (v.view.blocks as Json[]).find((b) => b.block_id === id);
    expect(block("field:birthday").element.type).toBe("datepicker");
    expect(block("field:birthday").label.text).toBe("Birthday");
    expect(block("field:loyalty_tier").label.text).toBe("Loyalty tier");
    expect(JSON.stringify(v.view)).not.toMatch(/Custom field/);
    const ok = await forms.submit(v.id, { "field:birthday": "1991-02-03" });
    expect(ok.response_action).toBeUndefined();
    await posted(/: birthday changed/);
    const after = await switchboard.client.getChatUser(u.id as number);
    expect(JSON.stringify(after)).toContain("1991-02-03");
  });
});

describe("an emptied field in the edit forms (issue 39)", () => {
  it("a contact's emptied first name or custom value is refused in words, nothing written; the box clears it", async () => {
    const created = await switchboard.client.createContact({
      phone: "+14155550177",
      first_name: "Noa",
      email: "noa@example.com",
      custom_fields: { loyalty_tier: "silver" },
    });
    const id = created.id as number;
    const v = await forms.open(`contact edit ${id}`);
    const emptied = await forms.submit(v.id, { first_name: "", "field:loyalty_tier": "" });
    expect(emptied.response_action).toBe("errors");
    expect(emptied.errors.first_name).toMatch(/You emptied First name: to clear it, tick/);
    expect(emptied.errors["field:loyalty_tier"]).toMatch(/You emptied Loyalty tier/);
    let now = await switchboard.client.getContact(id);
    expect([now.first_name, (now.custom_fields as Json)?.loyalty_tier]).toEqual(["Noa", "silver"]);
    // An e-mail address cannot be cleared at all: said at its field, box or not.
    const email = await forms.submit(v.id, { email: "", clear: "yes" });
    expect(email.errors.email).toMatch(/cannot be cleared/);
    expect((await switchboard.client.getContact(id)).email).toBe("noa@example.com");
    // Asked plainly: cleared, and the line says so.
    const cleared = await forms.submit(v.id, { "field:loyalty_tier": "", clear: "yes" });
    expect(cleared.response_action).toBeUndefined();
    await posted(/\*Noa\*: loyalty tier cleared/).catch((err) => {
      throw new Error(`${err}: ${JSON.stringify(fake.messages.slice(-3).map((m) => m.text))}`);
    });
    now = await switchboard.client.getContact(id);
    expect((now.custom_fields as Json)?.loyalty_tier).toBeUndefined();
    expect(now.first_name).toBe("Noa");
  });

  it("an untouched Save of either edit form writes nothing and says nothing changed", async () => {
    const created = await switchboard.client.createContact({
      phone: "+14155550178",
      first_name: "Uma",
      custom_fields: { loyalty_tier: "gold", points: 3, birthday: "1990-04-01", vip: false },
    });
    const users = await switchboard.client.listChatUsers({ limit: 5 });
    for (const line of [`contact edit ${created.id}`, `user edit ${users.items[0]!.id}`]) {
      const v = await forms.open(line);
      const before = await writes();
      const answer = await forms.submit(v.id);
      expect(answer.response_action, line).toBe("update");
      expect(JSON.stringify(answer.view), line).toContain("Nothing changed");
      expect(await writes(), line).toBe(before);
    }
  });

  it("a chat user's emptied name is refused in words, nothing written; the box clears it", async () => {
    const users = await switchboard.client.listChatUsers({ limit: 5 });
    const u = users.items.find((x) => JSON.stringify(x).includes('"name":"'))!;
    const id = u.id as number;
    await switchboard.client.updateChatUser(id, { standardFields: { name: "Bruna Costa" } });
    const v = await forms.open(`user edit ${id}`);
    const emptied = await forms.submit(v.id, { name: "" });
    expect(emptied.response_action).toBe("errors");
    expect(emptied.errors.name).toMatch(/You emptied Name: to clear it, tick/);
    expect(JSON.stringify(await switchboard.client.getChatUser(id))).toContain("Bruna Costa");
    const cleared = await forms.submit(v.id, { name: "", clear: "yes" });
    expect(cleared.response_action).toBeUndefined();
    await vi.waitFor(async () =>
      expect(JSON.stringify(await switchboard.client.getChatUser(id))).not.toContain("Bruna Costa"),
    );
  });
});

describe("a refusal after the API was too slow for Slack's 3 seconds", () => {
  // Its own app, whose API is the sandbox behind a loopback proxy that holds
  // each POST /messages until the test lets it go: the form is surely past
  // Slack's deadline (it got the "Working…" view) before the API answers.
  let slow: SlackStack;
  let slowForms: Forms;
  const held: Array<() => void> = [];

  beforeAll(async () => {
    slow = await startStack({
      sandbox: { readLimit: 100_000, writeLimit: 100_000 },
      sandboxDb: "own",
      proxy: {
        hold: (method, url) =>
          method === "POST" && url.startsWith("/v1/messages")
            ? new Promise<void>((resolve) => held.push(resolve))
            : undefined,
      },
      writers: ["U0ALICE"],
      env: { MESSAGING_CHANNEL_ID: "1" },
      slack: { fake },
    });
    slowForms = new Forms(slow.req, fake);
  }, 60_000);

  afterAll(async () => {
    for (const release of held.splice(0)) release();
    await slow?.close();
  });

  it("gives the form back with what was typed and the error under its field", async () => {
    const v = await slowForms.open("send");
    const callbackId = v.view.callback_id;
    const submitLate = async (entries: Record<string, string>) => {
      const updatesBefore = fake.callsOf("views.update").filter((c) => c.args.view_id === v.id).length;
      const answer = await slowForms.submit(v.id, entries);
      expect(answer.response_action).toBe("update");
      expect(answer.view.title.text).toMatch(/Working/);
      await fake.waitFor(() => held.length > 0, 15_000, "the held POST /messages");
      for (const release of held.splice(0)) release();
      const update = await fake.waitFor(
        () =>
          fake
            .callsOf("views.update")
            .filter((c) => c.args.view_id === v.id)
            .slice(updatesBefore)
            .find((c) => c.response.ok === true),
        15_000,
        "the form restored",
      );
      return update.args.view as Json;
    };
    const restored = await submitLate({ to: "+14155550177", text: "Are you there? (kept)" });
    expect(restored.callback_id).toBe(callbackId);
    expect(checkView(restored)).toEqual([]);
    const block = (id: string) => (restored.blocks as Json[]).find((b) => b.block_id === id);
    expect(block("to").element.initial_value).toBe("+14155550177");
    expect(block("text").element.initial_value).toBe("Are you there? (kept)");
    const ids = (restored.blocks as Json[]).map((b) => b.block_id);
    const error = (restored.blocks as Json[])[ids.indexOf("text") + 1];
    expect(error.type).toBe("context");
    expect(error.elements[0].text).toMatch(/24-hour/);
    expect(ids.filter((id) => String(id).startsWith("sb_refused"))).toHaveLength(1);
    // Submitted again as it came back (slow and refused again): one error block, not two.
    const again = await submitLate({});
    expect((again.blocks as Json[]).find((b) => b.block_id === "text").element.initial_value).toBe(
      "Are you there? (kept)",
    );
    expect((again.blocks as Json[]).filter((b) => String(b.block_id).startsWith("sb_refused"))).toHaveLength(
      1,
    );
  });
});

itLeavesBUntouched(() => stack);
