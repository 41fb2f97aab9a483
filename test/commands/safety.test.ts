// Bad input, confirmations, permissions, audit and API errors: through the
// core, the real client and the sandbox.

import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { createCommandCore } from "../../src/commands/core.ts";
import { ACTION, type Actor, type Reply } from "../../src/commands/types.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { Confirmations } from "../../src/store/confirmations.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { startProxy } from "../helpers/proxy.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { all, expectSlackValid, SHELL, SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();
const OTHER: Actor = { userId: "U0OTHER", via: "slack", channelId: "C0GENERAL" };

/** The reply's buttons, as action id and value. */
const buttons = (r: Reply) =>
  r.blocks.flatMap((b) =>
    b.type === "actions"
      ? b.elements.map((e) => ({ actionId: e.action_id, value: "value" in e ? e.value : undefined }))
      : [],
  );

/** A new draft campaign's id. */
const newCampaign = async (name: string) => {
  const add = await h().run(`campaign add ${name} template=1 group=1 first_name=a order_id=b`);
  return Number(/campaign #(\d+)/i.exec(add.text)![1]);
};

describe("bad input: a clear answer naming the field, the usage, and no request", () => {
  // A third element "shell" runs the line as the shell operator: in Slack these
  // lines open a form instead (see the test after this loop).
  const cases: Array<[string, RegExp, "shell"?]> = [
    ["tag add Hot red", /color.*#RRGGBB/],
    ["tag add", /name.*required/],
    ["tag x", /id.*number/],
    ["tag 0", /id.*positive/],
    ["tag edit 3", /at least one of name=, color=, description=/],
    ["tag edit 3 colour=#FF0000", /colour= is not an option.*color=/],
    ["tags page=2", /page= is not an option/],
    ["contacts limit=500", /limit.*between 1 and 100/],
    // Numbers are plain decimal digits: not hexadecimal, exponent, binary or fractional forms.
    ["contact 0x10", /id.*decimal digits/],
    ["contact 1e1", /id.*decimal digits/],
    ["contact #0b1", /id.*decimal digits/],
    ["contacts limit=0x10", /limit.*decimal digits/],
    ["contacts limit=1e1", /limit.*decimal digits/],
    ["contacts page=2.0", /page.*decimal digits/],
    ["group 1 add 0x10,2", /contacts.*decimal digits/],
    ["field edit 1 position=1e1", /position.*decimal digits/],
    ["send contact:0x10 hi", /contact:.*positive number/],
    ["contacts page=0", /page.*at least 1/],
    ["contacts opted-out=maybe", /opted-out.*yes or no/],
    ["contacts page=1 page=2", /given twice/],
    ["contact add 12 first=Ana", /phone.*(?:country code|\+ code)/],
    ["contact add +14155550123 email=nope", /email.*e-mail/],
    ["contact add +14155550123 Bad-Key=1", /Bad-Key|bad-key/],
    ["contact edit 4", /form in Slack[\s\S]*For example: `\/sb contact edit 12 /, "shell"],
    ["field add Bad-Key Label", /key.*lower-case slug/],
    ["field add ok_key Label type=money", /type.*one of text, number, date, boolean/],
    ["field edit 1 key=new", /immutable/],
    ["group 1 add", /contacts/],
    ["group 1 add 1 x", /contacts/],
    ["group 1 add 2 2", /repeat/],
    ["templates status=live", /status.*approved/],
    ['template add x lang=english category=UTILITY body="Hi"', /lang.*language code/],
    ['template add x lang=en category=FUN body="Hi"', /category.*UTILITY/],
    ['template add x lang=en category=UTILITY body="Hi {{name}}" nope=1', /nope.*not a placeholder/],
    ['template add x lang=en category=UTILITY body="Hi" footer="{{x}}"', /footer.*placeholders/],
    [
      'template add x lang=en category=UTILITY body="Hi" button="This button text is far too long"',
      /button.*25 characters/,
    ],
    ["campaigns status=done", /status.*draft/],
    ["campaign 1 recipients limit=0", /limit/],
    ["campaign add Promo template=1 group=x", /group/],
    ["campaign add Promo group=1", /template.*required/],
    ["campaign add Promo template=1 group=1 at=tomorrow", /start time tomorrow is not a time.*ISO 8601/],
    ["history 1 before=yesterday", /before.*ISO 8601/],
    ["users order=sideways", /order.*ASC, DESC/],
    ["users type=fax", /type.*phonechat/],
    ["users from=someday", /from.*ISO 8601/],
    ["send", /form in Slack[\s\S]*For example: `\/sb send \+1 415 555 0123 /, "shell"],
    ["send hello there", /not a recipient/],
    // In the shell (in Slack, a recipient alone opens the message form with it chosen).
    ["send +14155550123", /text.*required/, "shell"],
    ["send +14155550123 template=order_update", /lang.*required/],
    ["send +14155550123 hi lang=en", /lang.*only for template/],
    ["send +14155550123 image", /url.*required/],
    ["send +14155550123 image not-a-url", /url.*http/],
    ["send contact:abc hi", /contact:.*positive number/],
    ["send +14155550123 hi channel=x", /channel.*number/],
    ["send +14155550123 hi human=perhaps", /human.*yes or no/],
    ['tag add "unterminated', /closing quote/],
    ["tagz", /no command[\s\S]*tags/],
    ["campain 1", /no command[\s\S]*campaign/],
    // Nothing close: no unrelated suggestions, only the way to the list.
    ["foo", /There is no command `\/sb foo`\.(?![\s\S]*Did you mean)[\s\S]*`\/sb help` lists every command/],
    ["user edit 1", /form in Slack[\s\S]*For example: `\/sb user edit 4 /, "shell"],
    ["user edit 1 email=bad", /email/],
    ["import notes.txt", /shell/],
  ];
  for (const [line, pattern, via] of cases) {
    it(via ? `${line} (${via})` : line, async () => {
      const { forwarder, db } = h();
      const before = forwarder.requests.length;
      const auditBefore = (await new AuditLog(db, h().workspace).list({ limit: 1000 })).length;
      const r = await h().run(line, via === "shell" ? SHELL : undefined);
      expect(r.visibility).toBe("ephemeral");
      expect(r.text).toMatch(pattern);
      expect(r.confirmation).toBeUndefined();
      expect(forwarder.requests.slice(before)).toEqual([]);
      expect((await new AuditLog(db, h().workspace).list({ limit: 1000 })).length).toBe(auditBefore);
    });
  }

  it("in Slack, send, contact edit and user edit without options open a form and write nothing", async () => {
    const { forwarder, db } = h();
    const auditBefore = (await new AuditLog(db, h().workspace).list({ limit: 1000 })).length;
    for (const line of ["send", "contact edit 4", "user edit 1"]) {
      const before = forwarder.requests.filter((r) => !r.startsWith("GET ")).length;
      const r = await h().run(line);
      expect(r.form?.kind, line).toMatch(/^(send|contact|chat-user)$/);
      expect(forwarder.requests.filter((r) => !r.startsWith("GET ")).length, line).toBe(before);
    }
    expect((await new AuditLog(db, h().workspace).list({ limit: 1000 })).length).toBe(auditBefore);
  });

  it("a 100 KB command is refused before any request, in words, and 4,000 characters still run", async () => {
    const { forwarder, db } = h();
    const auditBefore = (await new AuditLog(db, h().workspace).list({ limit: 1000 })).length;
    for (const line of [`contacts ${"a".repeat(100_000)}`, `tag add x #FF0000 ${"b".repeat(5000)}`]) {
      const before = forwarder.requests.length;
      const r = await h().run(line);
      expect(r.text).toMatch(/command is [\d,]+ characters long.*at most 4,000/);
      expect(r.text).not.toMatch(/HTTP|431/);
      expect(forwarder.requests.slice(before)).toEqual([]);
    }
    expect((await new AuditLog(db, h().workspace).list({ limit: 1000 })).length).toBe(auditBefore);
    const fits = await h().run(`contacts ${"a".repeat(3990)}`);
    expect(fits.text).toMatch(/Contacts matching/);
  });

  it("shows the one usage that fits with a field error, as an example: no grammar (issue 30)", async () => {
    const r = await h().run("tag add Hot red");
    expect(r.text).toContain("For example: `/sb tag add");
    expect(r.text).not.toMatch(/&lt;|\|/);
    // A command with several forms: the one that fits what was typed.
    const text = (await h().run("send +14155550123")).text;
    expect((await h().run("send +1415 image")).text).toMatch(
      /For example: `\/sb send \+1 415 555 0123 image /,
    );
    expect((await h().run("send +1415 template=x")).text).toMatch(
      /For example: `\/sb send .*template=order_update/,
    );
    expect(text).not.toMatch(/ \| send|&lt;/);
  });

  it("a mistyped command gets the corrected line, ready to run (issue 30)", async () => {
    expect((await h().run("campain 2")).text).toMatch(/Did you mean `\/sb campaign 2`\?/);
    expect((await h().run("campaign 2 sned")).text).toMatch(/Did you mean `\/sb campaign 2 send`\?/);
    expect((await h().run("group ad Foo")).text).toMatch(/Did you mean `\/sb group add Foo`\?/);
    for (const line of ["campain 2", "campaign 2 sned", "contacs limit=2"]) {
      const r = await h().run(line);
      expect(r.text, line).not.toMatch(/\||&lt;|\n•/);
    }
  });
});

describe("API errors in plain words", () => {
  it("404 names the record", async () => {
    const r = await h().run("tag 999");
    expect(r.text).toMatch(/No such tag #999/);
    expect((await h().run("campaign 999 send")).text).toMatch(/No such campaign #999/);
  });

  it("a read-only key: the key lacks the write scope", async () => {
    const { sandbox, forwarder, db } = h();
    const client = new MessagingClient({ baseUrl: `${forwarder.url}/v1`, apiKey: sandbox.readKey });
    const core = createCommandCore({
      api: client,
      stores: new WorkspaceStores(db, h().workspace),
      apiKey: sandbox.readKey,
      defaultChannelId: 1,
    });
    const r = await core.run("tag add Nope #000000", SLACK_USER);
    expect(r.text).toMatch(/need a key with the write scope/);
    expect(r.text).not.toMatch(/403/);
    expect(all(r)).not.toContain(sandbox.readKey);
    const audit = (await new AuditLog(db, h().workspace).list({ limit: 1 }))[0]!;
    expect(audit).toMatchObject({ operation: "createTag", ok: false, status: 403 });
    await client.close();
  });

  it("a wrong key: the API key is not valid, and the key is not shown", async () => {
    const { forwarder, db } = h();
    const key = "sb_wrong_key_0000000000";
    const client = new MessagingClient({ baseUrl: `${forwarder.url}/v1`, apiKey: key });
    const core = createCommandCore({
      api: client,
      stores: new WorkspaceStores(db, h().workspace),
      apiKey: key,
    });
    const r = await core.run("me", SLACK_USER);
    expect(r.text).toMatch(/does not accept the API key/);
    expect(r.text).not.toMatch(/401/);
    expect(all(r)).not.toContain(key);
    await client.close();
  });

  it("no server: a retry hint, no stack trace", async () => {
    const { db } = h();
    const client = new MessagingClient({
      baseUrl: "http://127.0.0.1:9/v1",
      apiKey: "k_unreachable",
      maxRetries: 0,
    });
    const core = createCommandCore({ api: client, stores: new WorkspaceStores(db, h().workspace) });
    const r = await core.run("tags", SLACK_USER);
    expectSlackValid(r);
    expect(r.text).toMatch(/Could not reach the messaging API|No answer/);
    expect(r.text).not.toMatch(/at .*\.ts:\d+/);
    await client.close();
  });
});

describe("confirmations", () => {
  it("Confirm sends once under a concurrent double click, and again after a restart says so", async () => {
    const { core, client, forwarder, db } = h();
    const add = await h().run("campaign add Double click template=1 group=1 first_name=a order_id=b");
    const id = Number(/campaign #(\d+)/i.exec(add.text)![1]);
    const ask = await h().run(`campaign ${id} send`);
    const cid = ask.confirmation!.id;
    const before = forwarder.requests.length;
    const [a, b] = await Promise.all([core.confirm(cid, SLACK_USER), core.confirm(cid, SLACK_USER)]);
    const texts = [a.text, b.text];
    expect(texts.filter((t) => /: sending/.test(t))).toHaveLength(1);
    expect(texts.filter((t) => /Already/.test(t))).toHaveLength(1);
    const sends = forwarder.requests.slice(before).filter((r) => r === `POST /v1/campaigns/${id}/send`);
    expect(sends).toHaveLength(1);
    expect((await client.getCampaign(id)).status).toBe("running");

    // A new core on the same store, as after a restart.
    const again = await h().newCore().confirm(cid, SLACK_USER);
    expect(again.text).toMatch(/Already done: confirmed by <@U0WRITER> at \d{4}-/);
    const audit = (await new AuditLog(db, h().workspace).list({ limit: 1000 })).filter(
      (e) => e.operation === "sendCampaign",
    );
    expect(audit).toHaveLength(1);
  });

  it("a pending confirmation survives a restart", async () => {
    const ask = await h().run("tag delete 3");
    const restarted = h().newCore();
    const r = await restarted.confirm(ask.confirmation!.id, SLACK_USER);
    expect(r.text).toMatch(/Tag \*[^*]+\* deleted \(Tag #3\)/);
  });

  it("only the user who asked may confirm or cancel", async () => {
    const add = await h().run("tag add Mine #123456");
    const id = Number(/Tag #(\d+)/.exec(add.text)![1]);
    const ask = await h().run(`tag delete ${id}`);
    expect(all(ask)).toMatch(/Only <@U0WRITER> can confirm/);
    const r = await h().core.confirm(ask.confirmation!.id, OTHER);
    expect(r.text).toMatch(/Only <@U0WRITER>/);
    const d = await h().core.dismiss(ask.confirmation!.id, OTHER);
    expect(d.text).toMatch(/Only <@U0WRITER>/);
    await h().client.getTag(id);
  });

  it("Cancel drops it: a later Confirm does nothing", async () => {
    const add = await h().run("tag add Keep #654321");
    const id = Number(/Tag #(\d+)/.exec(add.text)![1]);
    const ask = await h().run(`tag delete ${id}`);
    const d = await h().core.dismiss(ask.confirmation!.id, SLACK_USER);
    expect(d.text).toMatch(/Cancelled/);
    const r = await h().core.confirm(ask.confirmation!.id, SLACK_USER);
    expect(r.text).toMatch(/cancelled by <@U0WRITER>/);
    await h().client.getTag(id);
  });

  it("an expired or unknown confirmation is refused", async () => {
    const c = await new Confirmations(h().db, h().workspace).create({
      actor: SLACK_USER.userId,
      command: { id: "tag.delete", raw: { id: "1" }, line: "tag delete 1" },
      ttlMs: -1000,
    });
    expect((await h().core.confirm(c.id, SLACK_USER)).text).toMatch(/expired/);
    await h().client.getTag(1);
    expect((await h().core.confirm("not-a-uuid", SLACK_USER)).text).toMatch(/does not exist/);
    expect((await h().core.confirm("6f1c1a4e-0000-4000-8000-000000000000", SLACK_USER)).text).toMatch(
      /does not exist/,
    );
  });

  it("a forged Confirm naming another workspace's confirmation is refused in words and writes nothing", async () => {
    const add = await h().run("tag add Theirs #123456");
    const id = Number(/Tag #(\d+)/.exec(add.text)![1]);
    // Workspace T0OTHER's pending delete, by a person with the same user id as ours.
    const theirs = new Confirmations(h().db, "T0OTHER");
    const c = await theirs.create({
      actor: SLACK_USER.userId,
      command: { id: "tag.delete", raw: { id: String(id) }, line: `tag delete ${id}` },
      ttlMs: 60_000,
    });
    const audited = (await new AuditLog(h().db, h().workspace).list({ limit: 1000 })).length;
    // This core is the "env" workspace's: the id is not one of its confirmations.
    expect((await h().core.confirm(c.id, SLACK_USER)).text).toMatch(/does not exist/);
    expect((await h().core.dismiss(c.id, SLACK_USER)).text).toMatch(/does not exist/);
    await h().client.getTag(id);
    expect(await theirs.get(c.id)).toMatchObject({ state: "pending" });
    expect((await new AuditLog(h().db, h().workspace).list({ limit: 1000 })).length).toBe(audited);
    expect(await new AuditLog(h().db, "T0OTHER").list()).toEqual([]);
  });

  it("a confirmed send whose answer is lost says unknown, then and on every later click, with the check; sent once", async () => {
    const { sandbox, client, db } = h();
    const id = await newCampaign("Lost answer");
    const sendPath = `/v1/campaigns/${id}/send`;
    // The send reaches the sandbox; its answer never comes back (the socket is destroyed).
    const proxy = await startProxy(sandbox.url, { drop: (m, url) => m === "POST" && url === sendPath });
    const lossy = new MessagingClient({ baseUrl: proxy.url, apiKey: sandbox.apiKey });
    try {
      const core = h().newCore({ api: lossy });
      const ask = await core.run(`campaign ${id} send`, SLACK_USER);
      const cid = ask.confirmation!.id;
      const first = await core.confirm(cid, SLACK_USER);
      expectSlackValid(first);
      expect(all(first)).toMatch(/No answer from the messaging API[\s\S]*outcome is unknown/);
      expect(all(first)).toMatch(/Check the campaign's status/);
      expect(first.text).not.toMatch(/failed|retry/);
      expect(buttons(first)).toEqual([{ actionId: ACTION.run, value: `campaign ${id}` }]);
      expect((await new Confirmations(db, h().workspace).get(cid))!.state).toBe("unknown");

      for (const later of [
        await core.confirm(cid, SLACK_USER),
        await h().newCore().confirm(cid, SLACK_USER),
      ]) {
        expectSlackValid(later);
        expect(later.text).toMatch(/Confirmed by <@U0WRITER> at \d{4}-.*no answer came.*outcome is unknown/);
        expect(later.text).toMatch(/Check the campaign's status/);
        expect(later.text).not.toMatch(/failed|retry/);
        expect(buttons(later)).toEqual([{ actionId: ACTION.run, value: `campaign ${id}` }]);
      }
      expect(proxy.seen.filter((r) => r === `POST ${sendPath}`)).toHaveLength(1);
      expect((await client.getCampaign(id)).status).toBe("running");
    } finally {
      await lossy.close();
      await proxy.close();
    }
  });

  it("a confirmation left running by a crash is unknown after the startup settle: a click says so, sends nothing", async () => {
    const { db, client, forwarder } = h();
    const id = await newCampaign("Crashed send");
    const ask = await h().run(`campaign ${id} send`);
    const cid = ask.confirmation!.id;
    // The crashed process had claimed it (running) and stopped before any answer.
    expect((await new Confirmations(db, h().workspace).claim(cid, SLACK_USER.userId))?.state).toBe("running");
    expect((await h().core.confirm(cid, SLACK_USER)).text).toMatch(/being carried out now/);

    // Start again: the settle src/host/app.ts runs, and a new core on the same store.
    expect(await new Confirmations(db, h().workspace).settleInterrupted()).toBeGreaterThanOrEqual(1);
    const before = forwarder.requests.length;
    const r = await h().newCore().confirm(cid, SLACK_USER);
    expectSlackValid(r);
    expect(r.text).toMatch(/Confirmed by <@U0WRITER> at \d{4}-.*Switchboard stopped.*outcome is unknown/);
    expect(r.text).toMatch(/Check the campaign's status/);
    expect(r.text).not.toMatch(/being carried out|failed|retry/);
    expect(buttons(r)).toEqual([{ actionId: ACTION.run, value: `campaign ${id}` }]);
    expect(forwarder.requests.slice(before).filter((q) => q.startsWith("POST"))).toEqual([]);
    expect((await client.getCampaign(id)).status).toBe("draft");
    expect(await new Confirmations(db, h().workspace).settleInterrupted()).toBe(0);
  });

  it("a process still running a command that another one's start settled records its real outcome", async () => {
    const { db } = h();
    const c = await new Confirmations(db, h().workspace).create({
      actor: SLACK_USER.userId,
      command: { id: "tag.delete", raw: { id: "999" }, line: "tag delete 999" },
      ttlMs: 60_000,
    });
    await new Confirmations(db, h().workspace).claim(c.id, SLACK_USER.userId);
    await new Confirmations(db, h().workspace).settleInterrupted();
    expect((await new Confirmations(db, h().workspace).get(c.id))!.state).toBe("unknown");
    await new Confirmations(db, h().workspace).finish(c.id, "done", { text: "Tag #999 deleted" });
    expect((await new Confirmations(db, h().workspace).get(c.id))!.state).toBe("done");
  });

  it("the shell confirms its own requests", async () => {
    const add = await h().core.run("tag add Shell #111111", SHELL);
    const id = Number(/Tag #(\d+)/.exec(add.text)![1]);
    const ask = await h().core.run(`tag delete ${id}`, SHELL);
    const r = await h().core.confirm(ask.confirmation!.id, SHELL);
    expect(r.text).toMatch(/deleted/);
  });
});

describe("who may do what", () => {
  const U_WRITER = { ...SLACK_USER, userId: "U1" };
  const U_GROUP = { ...SLACK_USER, userId: "U2" };
  const U_NOBODY = { ...SLACK_USER, userId: "U3" };

  it("reads are open, writes need a writer or a member of a writer group, broadcasts a broadcaster", async () => {
    const lookups: string[] = [];
    const core = h().newCore({
      writers: ["U1", "S9"],
      broadcasters: ["U1"],
      resolveGroupMembers: async (g) => {
        lookups.push(g);
        return g === "S9" ? ["U2"] : [];
      },
    });
    expect((await core.run("tags", U_NOBODY)).text).toMatch(/Tags/);

    const before = h().forwarder.requests.length;
    const refused = await core.run("tag add Nope #000000", U_NOBODY);
    expect(refused.text).toMatch(/Only <@U1>, <!subteam\^S9> may make changes/);
    expect(refused.text).not.toMatch(/\/sb /);
    expect(h().forwarder.requests.length).toBe(before);

    expect((await core.run("tag add ByGroup #000001", U_GROUP)).visibility).toBe("in_channel");
    expect((await core.run("tag add ByUser #000002", U_WRITER)).visibility).toBe("in_channel");

    const broadcast = await core.run("campaign 2 send", U_GROUP);
    expect(broadcast.text).toMatch(/Only <@U1> may send or cancel campaigns/);
    expect(broadcast.confirmation).toBeUndefined();
    expect((await core.run("campaign 2 send", U_WRITER)).confirmation).toBeDefined();
    // The group's members were asked for once and then cached.
    expect(lookups.filter((g) => g === "S9")).toHaveLength(1);
    // The shell is the operator: trusted.
    expect((await core.run("tag add ByShell #000003", SHELL)).visibility).toBe("in_channel");
  });

  it("with no country set, a number without its + code is refused saying so, never read as US (issue 30)", async () => {
    const admin = { mayAdminister: async (a: { userId: string }) => a.userId === "U1" } as never;
    const core = h().newCore({ defaultCountry: undefined, admin });
    const before = h().forwarder.requests.length;
    const r = await core.run("send 611 222 334 hola", U_WRITER);
    expect(r.text).toMatch(
      /`611 222 334` has no country code and no country is set: an admin can set one in Settings/,
    );
    expect(r.text).not.toMatch(/United States|\bUS\b/);
    const buttons = JSON.stringify(r.blocks);
    expect(buttons).toContain('"value":"settings"');
    expect(JSON.stringify((await core.run("send 611 222 334 hola", U_NOBODY)).blocks)).not.toContain(
      '"value":"settings"',
    );
    expect(h().forwarder.requests.length).toBe(before);
  });

  it("a refusal names what the person did in words, never a command they did not type (issue 30)", async () => {
    const core = h().newCore({ writers: ["U1"] });
    const r = await core.run("inbox assign C0SUPPORT 42 me", U_NOBODY);
    expect(r.text).toMatch(/^Only <@U1> may assign conversations\./);
    expect(r.text).not.toMatch(/\/sb|inbox assign/);
  });

  it("broadcasters default to the writers", async () => {
    const core = h().newCore({ writers: ["U1"] });
    expect((await core.run("campaign 2 cancel", U_NOBODY)).text).toMatch(/Only <@U1> may send or cancel/);
    expect((await core.run("campaign 2 cancel", U_WRITER)).confirmation).toBeDefined();
  });

  it("a confirmation re-checks the right at Confirm time", async () => {
    const open = h().newCore();
    const ask = await open.run("tag delete 2", U_NOBODY);
    const strict = h().newCore({ writers: ["U1"] });
    const r = await strict.confirm(ask.confirmation!.id, U_NOBODY);
    expect(r.text).toMatch(/Only <@U1> may make changes/);
    await h().client.getTag(2);
  });
});

describe("audit", () => {
  it("records each write with who, via, the command line, the operation and the answer, and calls onAudit", async () => {
    const { db, audits } = h();
    const n = audits.length;
    await h().run("tag add Audited #ABCDEF");
    const row = (await new AuditLog(db, h().workspace).list({ limit: 1 }))[0]!;
    expect(row).toMatchObject({
      actor: "U0WRITER",
      via: "slack",
      channel: "C0GENERAL",
      command: "tag add Audited #ABCDEF",
      operation: "createTag",
      ok: true,
      status: 201,
    });
    expect(row.answer).toMatchObject({ name: "Audited" });
    expect(audits.length).toBe(n + 1);
    expect(audits.at(-1)).toMatchObject({ operation: "createTag", ok: true });
  });

  it("records a refused write with its status, and no read", async () => {
    const { db, client } = h();
    // A tag name that exists already: the API refuses it with 409.
    const taken = (await client.listTags()).items[0]?.name as string;
    await h().run(`tag add "${taken}" #112233`);
    const row = (await new AuditLog(db, h().workspace).list({ limit: 1 }))[0]!;
    expect(row).toMatchObject({ operation: "createTag", ok: false, status: 409 });
    const ops = (await new AuditLog(db, h().workspace).list({ limit: 1000 })).map((e) => e.operation);
    expect(ops.filter((o) => /^(get|list)/.test(o))).toEqual([]);
  });

  it("audits what a form's work writes, by HTTP method: each write once, no read, no input refused before sending", async () => {
    const { core, audits } = h();
    const n = audits.length;
    await core.perform(SLACK_USER, { access: "write", command: "form: tag" }, async (api) => {
      await api.listTags();
      const tag = await api.createTag({ name: "From a form", color: "#0A0B0C" });
      await expect(api.createTag({ name: "Bad", color: "red" })).rejects.toThrow(/color/);
      await api.deleteTag(tag.id!);
      await expect(api.deleteTag(tag.id!)).rejects.toThrow();
    });
    expect(audits.slice(n).map((e) => [e.operation, e.ok, e.status, e.command])).toEqual([
      ["createTag", true, 201, "form: tag"],
      ["deleteTag", true, 200, "form: tag"],
      ["deleteTag", false, 404, "form: tag"],
    ]);
    expect(audits.at(-1)!.answer).toMatchObject({ error: "not_found" });
  });
});

itLeavesBUntouched(h);
