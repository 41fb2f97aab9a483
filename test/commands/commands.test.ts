// Every command form through the core, the real client and the sandbox.
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { ACTION } from "../../src/commands/types.ts";
import { startMediaServer } from "../helpers/media-server.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, expectSlackValid, SHELL, SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();
const text = (r: { blocks: never[] | unknown[]; text: string }) => blocksToText(r.blocks as never) || r.text;
/** The number of the `what` (Tag, Contact, …) an answer names as "<what> #<n>". */
const numberIn = (r: { text: string }, what: string) =>
  Number(new RegExp(`${what} #(\\d+)`).exec(r.text)![1]);
/** Runs `line`, which makes a `what` and says so in the channel; gives the answer and the new one's number. */
async function made(line: string, what: string) {
  const reply = await h().run(line);
  expect(reply.visibility, reply.text).toBe("in_channel");
  return { reply, id: numberIn(reply, what) };
}
/** Confirms, as Slack's user, what an answer asked. */
const confirmed = (ask: { confirmation?: { id: string } }) =>
  h().core.confirm(ask.confirmation!.id, SLACK_USER);

describe("read commands", () => {
  const cases: Array<[string, RegExp[]]> = [
    ["/sb tags", [/Tags/, /Spring sale/, /#1D9BD1/]],
    ["tag 2", [/== Support ==/, /Colour: #E01E5A/, /Tag 2 · created/, /\[Edit: tag edit 2\]/]],
    ["me", [/Acme Retail/, /Business/, /…/]],
    ["contacts", [/Page 1 of 2 · 30 contacts/]],
    ["contacts dana", [/Dana Levi/]],
    ["contact 1", [/== Ana Lopez ==/, /\+1415555/, /Contact 1 · added/]],
    ["fields", [/loyalty_tier/, /birthday/]],
    ["groups", [/VIP customers/, /6 members/]],
    [
      "group 1",
      [/== VIP customers ==/, /Members: 6 contacts/, /Group 1 · created/, /\[Members: contacts group=1\]/],
    ],
    ["templates status=approved", [/order_update/]],
    [
      "template 1",
      [
        /== order_update · en ==/,
        /Status: ✓ Approved/,
        /Hi Ana, your order A-1001/,
        /\[New campaign: campaign new\]/,
      ],
    ],
    ["campaigns", [/Spring sale 2026/, /#2 VIP order follow-up · Draft · order_update \(en\)/]],
    ["campaigns status=completed", [/Spring sale 2026/]],
    ["campaign 1", [/Spring sale 2026/, /Completed/]],
    ["campaign 1 recipients", [/Recipients of Spring sale 2026/, /Page 1 of 1/]],
    ["campaign 1 recipients status=skipped", [/skipped/]],
    [
      "users",
      [/Chat users/, /Page 1 of 1 · 12 chat users/, /Farah Haddad · Phone chat/, /Web visitor · Web chat/],
    ],
    ["users need-human", [/needs a human/]],
    ["users type=phonechat sort=name order=asc messages limit=3", [/Page 1 of/]],
    ["users from=2020-01-01 to=2100-01-01", [/chat users/]],
    ["user 1", [/== Ana Lopez ==/, /Chat user 1/, /Contact: Ana Lopez/, /Type: Phone chat/]],
    [
      "message 1",
      [
        /== Message to Ana Lopez ==/,
        /Status: .*Read/,
        /Type: Text/,
        /Message 1 · outbound/,
        /\[Conversation: history 1\]/,
      ],
    ],
    ["history 1", [/== Conversation with Ana Lopez ==/, /Thanks! Can I change the delivery address\?/]],
    ["history 1 after=2000-01-01T00:00:00Z limit=2", [/Page 1/]],
    // Slack's help: a short list by topic (the shell's keeps "What most people do first": help-slack.test.ts).
    ["help", [/Campaigns — /, /\/sb help campaigns/]],
    ["help all", [/Switchboard commands/, /campaign <id> send/]],
    ["help tags", [/tag add <name>/, /Example/]],
    ["help tag add", [/tag add/]],
    ["", [/\/sb help campaigns/]],
  ];
  for (const [line, patterns] of cases) {
    it(`/sb ${line}`, async () => {
      const r = await h().run(line);
      expect(r.visibility).toBe("ephemeral");
      const shown = text(r);
      for (const p of patterns) expect(shown).toMatch(p);
      expect(shown).not.toMatch(/warning/);
    });
  }

  it("pages with position and next/previous buttons that run the next page", async () => {
    const r = await h().run("contacts limit=5 page=2");
    expect(text(r)).toMatch(/Page 2 of 6 · 30 contacts/);
    const buttons = r.blocks.flatMap((b) => (b.type === "actions" ? b.elements : [])) as Array<{
      value: string;
      action_id: string;
    }>;
    expect(buttons.map((b) => b.value)).toEqual(["contacts limit=5 page=1", "contacts limit=5 page=3"]);
    expect(buttons.every((b) => b.action_id.startsWith(ACTION.run))).toBe(true);
    const next = await h().run(buttons[1]!.value);
    expect(text(next)).toMatch(/Page 3 of 6/);
    const last = await h().run("contacts limit=5 page=6");
    const lastButtons = last.blocks.flatMap((b) => (b.type === "actions" ? b.elements : []));
    expect(lastButtons).toHaveLength(1);
  });

  it("a list of 100 records stays inside Slack's limits", async () => {
    const r = await h().run("contacts limit=100");
    expect(text(r)).toMatch(/30 contacts/);
  });

  it("the API key never appears, only its last 4 characters", async () => {
    const r = await h().run("me");
    const key = h().sandbox.apiKey;
    expect(all(r)).not.toContain(key);
    expect(all(r)).not.toContain(key.slice(0, -4));
    expect(all(r)).toContain(`…${key.slice(-4)}`);
  });
});

describe("write commands", () => {
  it("tag add, edit and delete (confirmed), in the channel (the Slack app names who: test/slack/core.test.ts)", async () => {
    const { client } = h();
    const { reply: add, id } = await made('tag add "Hot lead" #ff0000 very hot', "Tag");
    expect(add.text).not.toContain("<@U0WRITER>");
    expect(await client.getTag(id)).toMatchObject({
      name: "Hot lead",
      color: "#FF0000",
      description: "very hot",
    });

    const edit = await h().run(`tag edit ${id} name="Warm lead" color=#00FF00`);
    expect(edit.visibility).toBe("in_channel");
    expect(await client.getTag(id)).toMatchObject({ name: "Warm lead", color: "#00FF00" });

    const ask = await h().run(`tag delete ${id}`);
    expect(ask.visibility).toBe("ephemeral");
    expect(ask.confirmation).toBeDefined();
    expect(text(ask)).toMatch(/Delete tag #\d+ “Warm lead”/);
    await client.getTag(id); // still there
    const done = await confirmed(ask);
    expect(done.visibility).toBe("in_channel");
    expect(done.text).toMatch(/^Tag \*Warm lead\* deleted \(Tag #\d+\)$/);
    await expect(client.getTag(id)).rejects.toMatchObject({ kind: "not_found" });
  });

  it("contact add, edit (custom fields merged), opt-out, opt-in, delete", async () => {
    const { id } = await made(
      "contact add +1 (415) 555-7788 first=Zoe last=Kim email=<mailto:zoe@example.com|zoe@example.com> loyalty_tier=gold points=10",
      "Contact",
    );
    expect(await h().client.getContact(id)).toMatchObject({
      phone: "+14155557788",
      first_name: "Zoe",
      email: "zoe@example.com",
    });

    await h().run(`contact edit ${id} last=Park points=12`);
    const edited = await h().client.getContact(id);
    expect(edited).toMatchObject({ last_name: "Park" });
    expect(edited.custom_fields).toMatchObject({ loyalty_tier: "gold" });
    expect(String((edited.custom_fields as Record<string, unknown>).points)).toBe("12");

    expect((await h().run(`contact opt-out ${id}`)).text).toMatch(/opted out/);
    const out = await h().client.listContacts({ optedOut: true, limit: 100 });
    expect(out.items.some((c) => c.id === id)).toBe(true);
    expect((await h().run(`contact opt-in ${id}`)).text).toMatch(/opted in/);
    const back = await h().client.listContacts({ optedOut: false, limit: 100 });
    expect(back.items.some((c) => c.id === id)).toBe(true);

    const ask = await h().run(`contact delete ${id}`);
    await confirmed(ask);
    await expect(h().client.getContact(id)).rejects.toMatchObject({ kind: "not_found" });
  });

  it("field add, edit and delete", async () => {
    const { client } = h();
    const { id } = await made("field add shoe_size Shoe size type=number position=9", "Field");
    await h().run(`field edit ${id} label="Shoe size (EU)"`);
    const fields = await client.listContactFields();
    expect(fields.items.find((f) => f.id === id)).toMatchObject({
      key: "shoe_size",
      label: "Shoe size (EU)",
      type: "number",
    });
    const ask = await h().run(`field delete ${id}`);
    expect(text(ask)).toMatch(/Shoe size/);
    await confirmed(ask);
    expect((await client.listContactFields()).items.some((f) => f.id === id)).toBe(false);
  });

  it("group add, edit, members add and remove (confirmed), delete", async () => {
    const { client } = h();
    const { id } = await made("group add Beta testers description=early", "Group");
    await h().run(`group edit ${id} name="Beta testers EU"`);
    expect(await client.getGroup(id)).toMatchObject({ name: "Beta testers EU", description: "early" });
    await h().run(`group ${id} add 1,2 3`);
    expect((await client.listContacts({ groupId: id })).total).toBe(3);
    const ask = await h().run(`group ${id} remove 3`);
    expect(ask.confirmation).toBeDefined();
    expect((await client.listContacts({ groupId: id })).total).toBe(3);
    await confirmed(ask);
    expect((await client.listContacts({ groupId: id })).total).toBe(2);
    const del = await h().run(`group delete ${id}`);
    await confirmed(del);
    await expect(client.getGroup(id)).rejects.toMatchObject({ kind: "not_found" });
  });

  it("template add, sync and delete", async () => {
    const { client } = h();
    const { id } = await made(
      'template add "Order Shipped" lang=en category=utility body="Hi {{name}}, order {{order}} shipped" footer="Thanks" button=Track button="Open|<https://example.com/o|example.com/o>" name=Ana order=A1',
      "Template",
    );
    expect(await client.getTemplate(id)).toMatchObject({
      name: "order_shipped",
      status: "pending",
      integrationId: 1,
    });
    const sync = await h().run("templates sync channel=1");
    expect(sync.text).toMatch(/synchronized/);
    const ask = await h().run(`template delete ${id}`);
    // Sync may approve it; an approved template cannot be deleted, and the answer says why before asking.
    if (!ask.confirmation) expect(ask.text).toMatch(/messaging API deletes only pending, rejected, disabled/);
    else {
      const done = await confirmed(ask);
      expect(done.text).toMatch(/Template \*\w+\* deleted \(Template #\d+\)/);
      await expect(client.getTemplate(id)).rejects.toMatchObject({ kind: "not_found" });
    }
  });

  it("template delete of an approved template is refused with the rule, before any confirmation", async () => {
    const ask = await h().run("template delete 1");
    expect(ask.confirmation).toBeUndefined();
    expect(ask.text).toMatch(/is approved, and the messaging API deletes only/);
    expect(await h().client.getTemplate(1)).toMatchObject({ name: "order_update" });
  });

  it("campaign add, show with its buttons, send (confirmed) and cancel", async () => {
    const { client } = h();
    const { reply: add, id } = await made(
      "campaign add Autumn promo template=1 group=1 tag=2 first_name=friend order_id=X1",
      "[Cc]ampaign",
    );
    expect(await client.getCampaign(id)).toMatchObject({ name: "Autumn promo", status: "draft" });
    const values = add.blocks
      .flatMap((b) => (b.type === "actions" ? b.elements : []))
      .map((e) => (e as { value: string }).value);
    // The draft's card: Send… first.
    expect(values[0]).toBe(`campaign ${id} send`);

    const ask = await h().run(`campaign ${id} send`);
    expect(ask.confirmation).toBeDefined();
    expect(text(ask)).toMatch(/order_update/);
    expect(text(ask)).toMatch(/6 people: VIP customers \(6\)/);
    expect((await client.getCampaign(id)).status).toBe("draft");
    const sent = await confirmed(ask);
    expect(sent.visibility).toBe("in_channel");
    // The launch is the campaign's card (status, names, who launched it), not a line about it.
    expect(sent.text).toMatch(/Autumn promo: sending/);
    expect(text(sent)).toMatch(/Launched by @/);
    expect(sent.origin).toMatchObject({ command: "campaign.send", id });
    expect((await client.getCampaign(id)).status).toBe("running");

    const cancel = await h().run(`campaign ${id} cancel`);
    expect(text(cancel)).toMatch(/Cancel campaign/);
    const cancelled = await confirmed(cancel);
    expect(cancelled.text).toMatch(/cancelled/);
    expect((await client.getCampaign(id)).status).toBe("cancelled");
  });

  it("user edit", async () => {
    const r = await h().run('user edit 2 name=Bruno address="Rua 1"');
    expect(r.visibility).toBe("in_channel");
    expect(await h().client.getChatUser(2)).toMatchObject({ name: "Bruno" });
  });

  it("send: template by phone, image by contact, text to a chat user", async () => {
    const t = await h().run("send +1 415 555 0200 template=order_update lang=en first_name=Ana order_id=42");
    expect(t.visibility).toBe("in_channel");
    expect(t.text).toMatch(/^:envelope: Sent to \*\+14155550200\*: “Hi Ana, your order 42 is on its way\.”/);
    const msgId = numberIn(t, "Message");
    expect(await h().client.getMessage(msgId)).toMatchObject({ type: "template" });

    // The sandbox fetches the image (docs/sandbox.md): a file host on loopback.
    const files = await startMediaServer();
    const img = await h()
      .run(`send contact:1 image <${files.url}/a.png> look at this human=yes`)
      .finally(() => files.close());
    // The contact by name (contact #1 is Ana Lopez in the sandbox), never “contact #1”.
    expect(img.text).toMatch(/Sent to \*(?!contact #)[^*]+\*: “image: look at this”/);

    const txt = await h().run("send user:1 Hello, your order = ready");
    // Free text is subject to the 24-hour window: either sent, or refused with the service's reason.
    expect(txt.text).toMatch(/Sent to \*(?!chat user #)[^*]+\*: “Hello, your order = ready”|refused/);
  });

  it("send picks the one channel the templates name when MESSAGING_CHANNEL_ID is unset, and asks when several", async () => {
    const core = h().newCore({ defaultChannelId: undefined });
    const r = await core.run("send +14155550200 template=order_update lang=en", SLACK_USER);
    // The seeded templates name channels 1 and 2: the answer offers both, as buttons.
    expect(r.text).toMatch(/2 channels; choose the one to send on/);
    expect(r.text).not.toMatch(/Which channel\?/);
    expect(
      r.blocks
        .flatMap((b) => (b.type === "actions" ? b.elements : []))
        .map((e) => (e as { value?: string }).value),
    ).toEqual([1, 2].map((n) => `send +14155550200 template=order_update lang=en channel=${n}`));
    const ok = await core.run(
      "send +14155550200 template=order_update lang=en channel=1 first_name=Ana order_id=7",
      SLACK_USER,
    );
    expect(ok.text).toMatch(/Sent/);
  });

  it("import reads a CSV in the shell, and is refused from Slack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-import-"));
    const file = join(dir, "people.csv");
    writeFileSync(file, "phone,first_name\n+14155559901,Imp\nnot-a-phone,Bad\n");
    const asked = await h().core.run(`import ${file} group=2`, SHELL);
    expect(asked.text).toMatch(/Import 1 valid row from people\.csv\?/);
    const r = await h().core.confirm(asked.confirmation!.id, SHELL);
    expect(r.text).toMatch(/1 created/);
    expect(r.text).toMatch(/1 failed/);
    const slack = await h().run(`import ${file}`);
    expect(slack.text).toMatch(/only runs in the shell/);
  });

  it("campaign new and template new open forms in Slack, and give the command line in the shell", async () => {
    expect((await h().run("campaign new")).form?.kind).toBe("campaign");
    expect((await h().run("template new")).form?.kind).toBe("template");
    const shell = (line: string) =>
      h()
        .run(line, SHELL)
        .then((r) => r.text);
    expect(await shell("campaign new")).toMatch(
      /form in Slack.*\nFor example: `\/sb campaign add .*template=/,
    );
    expect(await shell("template new")).toMatch(/form in Slack.*\nFor example: `\/sb template add /);
  });
});

describe("related records and custom fields by name", () => {
  it("campaign <id> names its template, tag and audience, in four requests", async () => {
    const before = h().forwarder.requests.length;
    const r = await h().run("campaign 1");
    const shown = text(r);
    expect(shown).toMatch(/Template spring_sale \(es\)/);
    expect(shown).toMatch(/Tag Spring sale/);
    expect(shown).toMatch(/Channel 1 {2}·/);
    expect(shown).not.toMatch(/Channel channel/);
    expect(shown).toMatch(/To [A-Z]/);
    expect(shown).not.toMatch(/#\d/);
    const seen = h()
      .forwarder.requests.slice(before)
      .map((q) => q.replace(/\?.*$/, ""));
    expect(seen, seen.join(", ")).toHaveLength(4);
    for (const read of [
      /^GET \/v1\/campaigns\/1$/,
      /^GET \/v1\/contact-groups\/\d+$/,
      /^GET \/v1\/tags\/\d+$/,
      /^GET \/v1\/templates\/\d+$/,
    ])
      expect(
        seen.some((q) => read.test(q)),
        String(read),
      ).toBe(true);
  });

  it("campaigns names each row's template with one read of the templates, not one per row", async () => {
    const before = h().forwarder.requests.length;
    const r = await h().run("campaigns");
    expect(text(r)).toMatch(/✓ #1 Spring sale 2026 · Completed · spring_sale \(es\)/);
    const seen = h()
      .forwarder.requests.slice(before)
      .map((q) => q.replace(/\?.*$/, ""));
    expect(seen.sort()).toEqual(["GET /v1/campaigns", "GET /v1/templates"]);
  });

  it("contact and chat-user cards: what people do next as buttons, custom fields one per line", async () => {
    const contact = text(await h().run("contact 1"));
    expect(contact).toContain(
      "[Edit: contact edit 1] [Send message: send contact:1] [Opt out: contact opt-out 1]",
    );
    expect(contact).toMatch(/^Loyalty tier: gold$/m);
    // An opted-out contact says so and offers to opt in.
    const out = (await h().client.listContacts({ limit: 100 })).items.find((c) => c.opted_out === true);
    const shownOut = text(await h().run(`contact ${out?.id}`));
    expect(shownOut).toMatch(/Status: .*Opted out/);
    expect(shownOut).toContain(`[Opt in: contact opt-in ${out?.id}]`);
    const user = text(await h().run("user 1"));
    expect(user).toContain("[Send message: send user:1] [Edit: user edit 1]");
    expect(user).toContain("[Contact: contact 1]");
    expect(user).not.toMatch(/#\d/);
  });

  it("contact <id> shows custom fields by their labels", async () => {
    const shown = text(await h().run("contact 1"));
    expect(shown).toMatch(/Loyalty tier: gold/);
    expect(shown).toMatch(/VIP: yes/);
    expect(shown).not.toMatch(/loyalty_tier|vip:/);
  });

  it("when the extra reads fail, the answer still comes, with bare ids and keys", async () => {
    // A proxy that refuses the name reads (tags, templates, field definitions) and passes the rest.
    const refuse = /^\/v1\/(tags|templates|contact-fields)/;
    const upstream = h().forwarder.url;
    const server = createServer(async (req, res) => {
      if (refuse.test(req.url ?? "")) {
        res.writeHead(503, { "content-type": "application/json" });
        res.end('{"message":"unavailable"}');
        return;
      }
      const r = await fetch(`${upstream}${req.url}`, {
        method: req.method,
        headers: { "x-api-key": String(req.headers["x-api-key"]) },
      });
      res.writeHead(r.status, { "content-type": r.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await r.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const client = new MessagingClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      apiKey: h().sandbox.apiKey,
      maxRetries: 0,
    });
    try {
      const core = h().newCore({ api: client });
      const campaign = await core.run("campaign 1", SLACK_USER);
      expectSlackValid(campaign);
      expect(text(campaign)).toMatch(/Template #\d+/);
      expect(text(campaign)).toMatch(/Completed/);
      const list = await core.run("campaigns", SLACK_USER);
      expect(text(list)).toMatch(/Spring sale 2026 · Completed · template \d+/);
      const contact = await core.run("contact 1", SLACK_USER);
      expect(text(contact)).toMatch(/loyalty_tier: gold/);
    } finally {
      await client.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

itLeavesBUntouched(h);
