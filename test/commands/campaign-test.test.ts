// A test of a campaign on one's own phone (issue 28 §2): the campaign's
// template with its values, once, to one number (remembered per person per
// workspace), a POST /messages of type template that leaves the campaign and
// its recipients alone, audited as a test, answered with the message's
// status; a template the API will not send refused before the request.
// Issue 37 §5: a number that is not the person's test number asks to confirm
// once, the remembered one does not; the 11th test in an hour is refused in
// words, nothing sent.
import { describe, expect, it } from "vitest";
import type { SwitchboardCore } from "../../src/commands/core.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, approvedTemplate, expectSlackValid, SHELL, SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();

const OTHER: Actor = { userId: "U0OTHER", userName: "other", channelId: "C0GENERAL", via: "slack" };

const since = (n: number) => h().forwarder.requests.slice(n);
const messagePosts = (requests: string[]) => requests.filter((r) => r.startsWith("POST /v1/messages"));

/** Runs a line and confirms its prompt, if it asks one. */
const confirmed = async (line: string, actor: Actor = SLACK_USER, core: SwitchboardCore = h().core) => {
  const asked = await core.run(line, actor);
  expectSlackValid(asked);
  if (!asked.confirmation) return asked;
  const done = await core.confirm(asked.confirmation.id, actor);
  expectSlackValid(done);
  return done;
};

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
    const r = await confirmed(`campaign ${id} test +1 415 555 0177`);
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
    await confirmed(`campaign ${id} test +1 415 555 0188`);
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

describe("a number that is not the person's test number (issue 37 §5)", () => {
  const ANA: Actor = { userId: "U0ANA", userName: "ana", channelId: "C0GENERAL", via: "slack" };

  it("asks to confirm once, naming the number; the remembered one sends at once", async () => {
    const id = await addCampaign("Confirm the number");
    let before = h().forwarder.requests.length;
    const asked = await h().run(`campaign ${id} test +1 415 555 0111`, ANA);
    expect(asked.confirmation).toBeDefined();
    expect(asked.text).toMatch(/Send a test of \*Confirm the number\* to \+14155550111\?/);
    expect(all(asked)).toMatch(/You have no test number yet: check it is your phone/);
    expect(all(asked)).toContain("Send test");
    expect(messagePosts(since(before))).toEqual([]);
    const sent = await h().core.confirm(asked.confirmation!.id, ANA);
    expect(sent.text).toMatch(/^:test_tube: Test of \*Confirm the number\* sent to \+14155550111/);
    expect(messagePosts(since(before))).toHaveLength(1);

    // The remembered number, typed or not: no prompt.
    before = h().forwarder.requests.length;
    for (const line of [`campaign ${id} test +1 415 555 0111`, `campaign ${id} test`]) {
      const r = await h().run(line, ANA);
      expect(r.confirmation, line).toBeUndefined();
      expect(r.text).toMatch(/sent to \+14155550111/);
    }
    expect(messagePosts(since(before))).toHaveLength(2);

    // Another number: asked again, the remembered one named; cancelled, nothing sent and the number kept.
    before = h().forwarder.requests.length;
    const other = await h().run(`campaign ${id} test +1 415 555 0122`, ANA);
    expect(other.confirmation).toBeDefined();
    expect(all(other)).toMatch(/Your test number is \+14155550111; this one is new/);
    await h().core.dismiss(other.confirmation!.id, ANA);
    expect(messagePosts(since(before))).toEqual([]);
    expect((await h().run(`campaign ${id} test`, ANA)).text).toMatch(/sent to \+14155550111/);
  });

  it("in the shell too (its y/N): a new number asks, the remembered one does not", async () => {
    const id = await addCampaign("Shell number");
    const asked = await h().run(`campaign ${id} test +1 415 555 0133`, SHELL);
    expect(asked.confirmation).toBeDefined();
    await h().core.confirm(asked.confirmation!.id, SHELL);
    expect((await h().run(`campaign ${id} test +1 415 555 0133`, SHELL)).confirmation).toBeUndefined();
  });
});

describe("at most 10 tests a person an hour (issue 37 §5)", () => {
  it("the 11th in an hour is refused in words, nothing sent; the next goes at the time said", async () => {
    let now = new Date("2026-03-02T08:42:00Z");
    const core = h().newCore({ now: () => now });
    const TESTER: Actor = { userId: "U0TESTER", userName: "tester", channelId: "C0GENERAL", via: "slack" };
    const id = await addCampaign("Ten an hour");
    const run = async (line: string, actor: Actor = TESTER): Promise<Reply> => confirmed(line, actor, core);
    await run(`campaign ${id} test +1 415 555 0144`);
    for (let i = 1; i < 10; i++) {
      now = new Date(now.getTime() + 60_000);
      expect((await run(`campaign ${id} test`)).text).toMatch(/^:test_tube: Test of/);
    }
    now = new Date("2026-03-02T09:20:00Z");
    const before = h().forwarder.requests.length;
    const refused = await run(`campaign ${id} test`);
    expect(refused.text).toMatch(
      /You have sent 10 tests in the last hour; the next can go at <!date\^\d+\^\{time\}\|09:42 UTC>/,
    );
    expect(refused.text).toMatch(/nothing was sent/);
    // A new number is refused before its prompt, too.
    const asked = await run(`campaign ${id} test +1 415 555 0155`);
    expect(asked.text).toMatch(/You have sent 10 tests in the last hour/);
    expect(messagePosts(since(before))).toEqual([]);
    // Someone else may.
    expect(
      (await run(`campaign ${id} test +1 415 555 0166`, { ...TESTER, userId: "U0NEIGHBOUR" })).text,
    ).toMatch(/^:test_tube: Test of/);
    // At the time said, one more goes.
    now = new Date("2026-03-02T09:42:00Z");
    expect((await run(`campaign ${id} test`)).text).toMatch(/^:test_tube: Test of \*Ten an hour\* sent/);
    expect((await run(`campaign ${id} test`)).text).toMatch(/the next can go at .*09:43 UTC/);
  });
});

describe("a template the API will not send is refused before the request", () => {
  it("not approved (paused): said, nothing sent", async () => {
    const { client, sandbox } = h();
    const t = await approvedTemplate(client, "paused_offer", "A {{thing}} for you.", { thing: "gift" });
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

itLeavesBUntouched(h);
