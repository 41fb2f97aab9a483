// A test of a campaign on one's own phone (issue 28 §2): the campaign's
// template with its values, once, to one number (remembered per person per
// workspace), a POST /messages of type template that leaves the campaign and
// its recipients alone, audited as a test, answered with the message's
// status; a template the API will not send refused before the request.
import { describe, expect, it } from "vitest";
import type { Actor } from "../../src/commands/types.ts";
import { all, SHELL, useHarness } from "./helpers.ts";

const h = useHarness();

const OTHER: Actor = { userId: "U0OTHER", userName: "other", channelId: "C0GENERAL", via: "slack" };

const since = (n: number) => h().forwarder.requests.slice(n);
const messagePosts = (requests: string[]) => requests.filter((r) => r.startsWith("POST /v1/messages"));

const addCampaign = async (name: string) => {
  const r = await h().run(`campaign add ${name} template=1 group=1 first_name=Ana order_id=A-7`);
  const id = Number(/campaign #(\d+)/i.exec(r.text)?.[1]);
  expect(id, r.text).toBeGreaterThan(0);
  return id;
};

describe("campaign <id> test <phone>", () => {
  it("sends the template with the campaign's values once to that number, and nothing else", async () => {
    const { client, sandbox } = h();
    const id = await addCampaign("Tested");
    const before = h().forwarder.requests.length;
    const audits = h().audits.length;
    const r = await h().run(`campaign ${id} test +1 415 555 0177`);
    expect(r.text).toMatch(/^:test_tube: Test of \*Tested\* sent to \+14155550177: \*\w+/);
    expect(all(r)).toMatch(/the campaign's recipients got nothing/);
    const requests = since(before);
    expect(messagePosts(requests)).toHaveLength(1);
    expect(requests.filter((q) => q.startsWith("POST /v1/campaigns"))).toEqual([]);

    // The message as sent: a template to that number, the campaign's values.
    const { rows } = await sandbox.db.query<{ type: string; template: unknown; metadata: unknown }>(
      "select type, template, metadata from sandbox.messages order by id desc limit 1",
    );
    const row = rows[0]!;
    expect(row.type).toBe("template");
    expect(typeof row.template === "string" ? JSON.parse(row.template) : row.template).toMatchObject({
      name: "order_update",
      parameters: { first_name: "Ana", order_id: "A-7" },
    });
    // The campaign is untouched: still a draft, no recipients.
    expect((await client.getCampaign(id)).status).toBe("draft");
    expect((await client.listCampaignRecipients(id, { limit: 1 })).total ?? 0).toBe(0);
    // Audited as a test: one row, the send of a message, under the test's command line.
    const rowsAudited = h().audits.slice(audits);
    expect(rowsAudited).toHaveLength(1);
    expect(rowsAudited[0]).toMatchObject({ operation: "sendMessage", ok: true });
    expect(rowsAudited[0]!.command).toMatch(new RegExp(`^campaign ${id} test `));
  });

  it("remembers the number per person: the next test needs none, another person's does", async () => {
    const id = await addCampaign("Remembered");
    await h().run(`campaign ${id} test +1 415 555 0188`);
    const again = await h().run(`campaign ${id} test`);
    expect(again.text).toMatch(/sent to \+14155550188/);

    const before = h().forwarder.requests.length;
    const other = await h().run(`campaign ${id} test`, OTHER);
    expect(other.text).toMatch(/Which phone should get the test\? Give yours with its country code/);
    expect(messagePosts(since(before))).toEqual([]);
    const shell = await h().run(`campaign ${id} test`, SHELL);
    expect(shell.text).toMatch(/Which phone should get the test/);
  });

  it("refuses what is not a phone number, sending nothing", async () => {
    const id = await addCampaign("Not a phone");
    const before = h().forwarder.requests.length;
    for (const line of [`campaign ${id} test contact:3`, `campaign ${id} test soon`]) {
      const r = await h().run(line);
      expect(r.text).toMatch(/is not a phone number: a test goes to one phone number/);
    }
    expect(messagePosts(since(before))).toEqual([]);
  });
});

describe("a template the API will not send is refused before the request", () => {
  it("not approved (paused): said, nothing sent", async () => {
    const { client, sandbox } = h();
    const t = await client.createTemplate({
      integrationId: 1,
      name: `paused_offer_${Date.now() % 100000}`,
      language: "en",
      category: "MARKETING",
      bodyText: "A {{thing}} for you.",
      bodyExamples: { thing: "gift" },
    });
    await client.syncTemplates(1);
    const add = await h().run(`campaign add Paused template=${t.id} group=1 thing=gift`);
    const id = Number(/campaign #(\d+)/i.exec(add.text)?.[1]);
    await sandbox.db.query("update sandbox.templates set status = 'paused' where id = $1", [t.id]);
    const before = h().forwarder.requests.length;
    const r = await h().run(`campaign ${id} test +14155550199`);
    expect(r.text).toMatch(
      /Template \*paused_offer_\d+\* is paused: the messaging API sends only approved templates, so \*Paused\* cannot be tested yet; nothing was sent/,
    );
    expect(messagePosts(since(before))).toEqual([]);
  });

  it("a value missing (a campaign made with the spec's body alone): the placeholders named, nothing sent", async () => {
    const { client } = h();
    const c = await client.createCampaign({ name: "Bare", integrationId: 1, templateId: 1, groupIds: [1] });
    const before = h().forwarder.requests.length;
    const r = await h().run(`campaign ${c.id} test +14155550199`);
    expect(r.text).toMatch(
      /\*Bare\* has no value for the placeholders \*first_name\*, \*order_id\* of template \*order_update\*.*nothing was sent/,
    );
    expect(messagePosts(since(before))).toEqual([]);
  });
});
