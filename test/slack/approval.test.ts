// Four eyes before a send (issue 28 §3, §5), through the fake Slack and the
// sandbox: with approvers set, a draft's Send… becomes Request approval; the
// card goes by DM to each approver (no audit channel here); the requester
// cannot approve their own; two approvers' clicks give one decision, the
// second told who decided; every copy is redrawn; an approval expires after
// 24 hours (an injected clock), and a changed audience asks again; the shell
// refuses a send that needs approval; settings are parsed and refused in words.
import { describe, expect, it } from "vitest";
import { approvalForStart } from "../../src/campaigns/approval.ts";
import { approvalCardView } from "../../src/campaigns/approval-card.ts";
import { createCommandCore } from "../../src/commands/core.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import { auditSentence } from "../../src/slack/features/audit-words.ts";
import { Approvals } from "../../src/store/approvals.ts";
import type { AuditEntry } from "../../src/store/audit.ts";
import { CampaignCards } from "../../src/store/campaign-cards.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { ALICE, BOB } from "../helpers/fake-slack.ts";
import { startStack, useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const CAROL = { id: "U0CAROL", name: "carol" };
const stack = useStack({
  slack: { users: [ALICE, BOB, CAROL] },
  env: { SWITCHBOARD_APPROVERS: "U0ALICE,U0BOB,U0CAROL" },
  proxy: true,
});

const as = (u: { id: string; name: string }): Actor => ({
  userId: u.id,
  userName: u.name,
  channelId: "C0GENERAL",
  via: "slack",
});
const SHELL: Actor = { userId: "shell", via: "shell" };
const all = (r: Reply) => `${r.text}\n${JSON.stringify(r.blocks)}`;
type Json = { type?: string; elements?: Array<{ value?: string; text?: { text?: string } }> };
const buttons = (blocks: unknown) =>
  ((blocks as Json[] | undefined) ?? []).flatMap((b) => (b.type === "actions" ? (b.elements ?? []) : []));

/** A group of `n` contacts who have not opted out; returns its id and the contacts left to add. */
async function groupOf(n: number): Promise<{ group: number; spare: number[] }> {
  const { client } = stack();
  const contacts = (await client.listContacts({ limit: 100 })).items.filter(
    (c) => c.optedOut !== true && c.opted_out !== true,
  );
  const g = await client.createGroup({ name: `Approval ${Math.random().toString(36).slice(2, 8)}` });
  await client.addGroupContacts(
    Number(g.id),
    contacts.slice(0, n).map((c) => Number(c.id)),
  );
  return { group: Number(g.id), spare: contacts.slice(n, n + 10).map((c) => Number(c.id)) };
}

async function draft(name: string, group: number): Promise<number> {
  const r = await stack().switchboard.core.run(
    `campaign add ${name} template=1 group=${group} first_name=Ana order_id=A-7`,
    as(ALICE),
  );
  const id = Number(/campaign #(\d+)/i.exec(r.text)?.[1]);
  expect(id, r.text).toBeGreaterThan(0);
  return id;
}

/** Alice clicks Request approval on the draft's card; the answer to her click. */
async function request(id: number): Promise<string> {
  const { req, fake } = stack();
  const click = await req.blockAction(
    { action_id: "sb_run", value: `campaign ${id} request` },
    { user: ALICE, messageTs: "1700000000.000100" },
  );
  const answer = await fake.waitForResponse(click.responseUrl!);
  return JSON.stringify(answer.body);
}

/** The copies of a campaign's approval card, as Slack holds them now. */
const copies = (id: number) =>
  stack().fake.messages.filter(
    (m) =>
      JSON.stringify(m.blocks ?? []).includes('"approval_head"') &&
      buttons(m.blocks).some((b) => new RegExp(`^campaign ${id} (approve|send|request)`).test(b.value ?? "")),
  );

/** The DM to Alice (the requester) whose text matches `text`, posted within 10 s. */
const dmToAlice = (text: RegExp, what: string) =>
  stack().fake.waitFor(
    () =>
      stack()
        .fake.callsOf("chat.postMessage")
        .find((x) => x.args.channel === "U0ALICE" && text.test(String(x.args.text))),
    10_000,
    what,
  );
const latest = (id: number) => new Approvals(stack().db, stack().workspace).latest(id);

/** A command core of the stack's workspace whose approvals read this clock (the Slack cards are the app's). */
function clockedCore(now: () => Date) {
  const { client, db, apiKey, switchboard, workspace } = stack();
  return createCommandCore({
    api: client,
    stores: new WorkspaceStores(db, workspace),
    apiKey,
    defaultChannelId: 1,
    defaultCountry: "US",
    reports: switchboard.reports,
    approval: {
      approvers: ["U0ALICE", "U0BOB", "U0CAROL"],
      cards: () => switchboard.slack?.approvalCards,
      now,
    },
  });
}

/** How many times the copies of a campaign's approval card were redrawn. */
const updatesOf = (id: number) =>
  stack()
    .fake.callsOf("chat.update")
    .filter((x) => copies(id).some((m) => m.ts === x.args.ts && m.channel === x.args.channel)).length;

describe("approval before a send", () => {
  it("asks, refuses a self-approval, takes the first of two approvers' clicks, tells the requester, then sends", async () => {
    const { core, req, fake, db } = stack();
    const { group } = await groupOf(3);
    const id = await draft("Spring sale", group);

    // The draft's card: Request approval instead of Send…; a send is refused in words.
    const card = await core.run(`campaign ${id}`, as(ALICE));
    expect(buttons(card.blocks).map((b) => b.text?.text)).toContain("Request approval");
    expect(buttons(card.blocks).map((b) => b.text?.text)).not.toContain("Send…");
    const refused = await core.run(`campaign ${id} send`, as(ALICE));
    expect(refused.confirmation).toBeUndefined();
    // Who may approve, that one approval is enough, and that Alice (an approver) cannot approve her own.
    expect(all(refused)).toMatch(
      /Spring sale\* reaches 3 people: it is sent once approved — one approval is enough, from <@U0BOB> or <@U0CAROL> \(you cannot approve your own\)/,
    );

    // Requested: one card by DM to each approver but Alice, who asked.
    expect(await request(id)).toMatch(/Approval of \*Spring sale\* for 3 people asked by direct message of/);
    await fake.waitFor(() => copies(id).length === 2 || undefined, 10_000, "two copies of the card");
    const card0 = copies(id)[0]!;
    expect(JSON.stringify(card0.blocks)).toMatch(/Customers will read/);
    expect(JSON.stringify(card0.blocks)).toMatch(/3 people/);
    expect(JSON.stringify(card0.blocks)).toMatch(/Waiting for approval\* \(asked by <@U0ALICE>\)/);
    const approve = buttons(card0.blocks).find((b) => b.text?.text === "Approve")!.value!;
    expect(approve).toMatch(new RegExp(`^campaign ${id} approve request=\\d+$`));
    // The campaign card says so.
    expect(all(await core.run(`campaign ${id}`, as(ALICE)))).toMatch(
      /Waiting for approval\* \(asked by <@U0ALICE>\)/,
    );

    // Alice approves her own: refused, nothing decided.
    const self = await req.blockAction({ action_id: "sb_run", value: approve }, { user: ALICE });
    expect(JSON.stringify((await fake.waitForResponse(self.responseUrl!)).body)).toMatch(
      /nobody approves their own campaign/,
    );
    expect((await latest(id))?.state).toBe("pending");

    // Bob and Carol click at once: one decision; the other is told who decided.
    const [b, c] = await Promise.all([
      req.blockAction({ action_id: "sb_run", value: approve }, { user: BOB, channelId: "D0BOB" }),
      req.blockAction({ action_id: "sb_run", value: approve }, { user: CAROL, channelId: "D0CAROL" }),
    ]);
    const answers = await Promise.all(
      [b, c].map(async (x) => JSON.stringify((await fake.waitForResponse(x.responseUrl!)).body)),
    );
    const r = (await latest(id))!;
    expect(r.state).toBe("approved");
    const winner = r.decidedBy!;
    expect(["U0BOB", "U0CAROL"]).toContain(winner);
    expect(answers.filter((a) => /You approved \*Spring sale\* for 3 people/.test(a))).toHaveLength(1);
    expect(answers.filter((a) => a.includes(`Already decided: *Approved* by <@${winner}>`))).toHaveLength(1);
    const { rows } = await db.query<{ n: number }>(
      "select count(*)::int as n from approvals.requests where campaign_id = $1 and decided_by is not null",
      [id],
    );
    expect(rows[0]!.n).toBe(1);

    // Every copy says who decided, with a date token, and offers Send now.
    await fake.waitFor(
      () =>
        copies(id).every((m) => JSON.stringify(m.blocks).includes(`Approved* by <@${winner}>, <!date^`)) ||
        undefined,
      10_000,
      "every copy redrawn",
    );
    for (const m of copies(id)) expect(buttons(m.blocks).map((x) => x.text?.text)).toEqual(["Send now"]);
    // The requester is told by DM; the audit says it in words.
    await dmToAlice(/approved \*Spring sale\* for 3 people/, "the requester's DM");
    const audit = await db.query<Record<string, unknown>>(
      "select * from switchboard.audit where operation like 'campaign.approval.%' and command like $1 order by id",
      [`campaign ${id} %`],
    );
    const sentences = audit.rows.map((row) =>
      auditSentence({
        actor: String(row.actor),
        via: row.via,
        operation: String(row.operation),
        command: String(row.command),
        ok: true,
        answer: typeof row.answer === "string" ? JSON.parse(row.answer) : row.answer,
      } as AuditEntry),
    );
    expect(sentences).toEqual([
      "<@U0ALICE> asked to approve *Spring sale* for 3 people",
      `<@${winner}> approved *Spring sale* for 3 people`,
    ]);

    // The campaign card: Approved by …, Send now; the send keeps its confirmation, and uses the approval.
    const approvedCard = await core.run(`campaign ${id}`, as(ALICE));
    expect(all(approvedCard)).toMatch(new RegExp(`Approved\\* by <@${winner}>, <!date\\^`));
    expect(buttons(approvedCard.blocks)[0]?.text?.text).toBe("Send now");
    const prompt = await core.run(`campaign ${id} send`, as(ALICE));
    expect(prompt.confirmation, prompt.text).toBeDefined();
    const sent = await core.confirm(prompt.confirmation!.id, as(ALICE));
    expect(sent.text).not.toMatch(/approv/i);
    expect((await latest(id))?.state).toBe("used");
  });

  it("a send prompt with approvers set counts the audience once: at most 10 API reads", async () => {
    const { core, proxy } = stack();
    const groups = [await groupOf(2), await groupOf(2), await groupOf(2)];
    const r = await core.run(
      `campaign add Counted sale template=1 group=${groups.map((g) => g.group).join(",")} contacts=${groups[0]!.spare.slice(0, 2).join(",")} first_name=Ana order_id=A-7`,
      as(ALICE),
    );
    const id = Number(/campaign #(\d+)/i.exec(r.text)?.[1]);
    expect(id, r.text).toBeGreaterThan(0);
    await request(id);
    await core.run(`campaign ${id} approve request=${(await latest(id))!.id}`, as(BOB));
    expect((await latest(id))?.state).toBe("approved");
    const before = proxy!.seen.length;
    const prompt = await core.run(`campaign ${id} send`, as(ALICE));
    expect(prompt.confirmation, prompt.text).toBeDefined();
    const reads = proxy!.seen.slice(before).filter((x) => x.startsWith("GET "));
    expect(reads.length, reads.join("\n")).toBeLessThanOrEqual(10);
  });

  it("a rejection tells the requester the reason and keeps the draft", async () => {
    const { core, req, fake } = stack();
    const { group } = await groupOf(2);
    const id = await draft("Rejected sale", group);
    await request(id);
    await fake.waitFor(() => copies(id).length === 2 || undefined, 10_000, "the cards");
    const reject = buttons(copies(id)[0]!.blocks).find((b) => b.text?.text === "Reject…")!.value!;
    // Reject… opens the modal; its reason decides.
    const click = await req.blockAction({ action_id: "sb_run", value: reject }, { user: BOB });
    const opened = await fake.waitFor(
      () => fake.callsOf("views.open").find((x) => x.args.trigger_id === click.triggerId && x.response.ok),
      10_000,
      "the reject modal",
    );
    const viewId = (opened.response as { view: { id: string } }).view.id;
    await req.submitView(
      viewId,
      { reason: { reason: { type: "plain_text_input", value: "wrong discount" } } },
      { user: BOB },
    );
    await dmToAlice(/rejected \*Rejected sale\*: "wrong discount"/, "the requester told");
    const r = (await latest(id))!;
    expect(r).toMatchObject({ state: "rejected", decidedBy: "U0BOB", reason: "wrong discount" });
    expect((await stack().client.getCampaign(id)).status).toBe("draft");
    const shown = all(await core.run(`campaign ${id}`, as(ALICE)));
    expect(shown).toMatch(/Rejected\* by <@U0BOB>, <!date\^/);
    expect(shown).toContain("wrong discount");
  });

  it("an audience changed by more than 10% since the approval asks again", async () => {
    const { core, client } = stack();
    const { group, spare } = await groupOf(3);
    const id = await draft("Grown sale", group);
    await request(id);
    const r = (await latest(id))!;
    expect((await core.run(`campaign ${id} approve request=${r.id}`, as(BOB))).text).toMatch(/You approved/);
    await client.addGroupContacts(group, spare.slice(0, 2));
    const refused = await core.run(`campaign ${id} send`, as(ALICE));
    expect(refused.confirmation).toBeUndefined();
    expect(all(refused)).toMatch(
      /changed since <@U0BOB> approved it: it reaches 5 people, not the approved 3 \(more than 10% apart\)\. Nothing was sent/,
    );
    expect(buttons(refused.blocks).map((b) => b.value)).toContain(`campaign ${id} request`);
  });

  describe("an approval is for what was approved (issue 37 §2)", () => {
    const sends = (id: number) =>
      stack().proxy!.seen.filter((x) => x === `POST /v1/campaigns/${id}/send`).length;
    /** A draft approved by Bob, with its prompt shown to Alice (before the change), as the defect's story goes. */
    async function approved(name: string, group: number) {
      const { core } = stack();
      const id = await draft(name, group);
      await request(id);
      const r = (await latest(id))!;
      expect((await core.run(`campaign ${id} approve request=${r.id}`, as(BOB))).text).toMatch(
        /You approved/,
      );
      const prompt = await core.run(`campaign ${id} send`, as(ALICE));
      expect(prompt.confirmation, prompt.text).toBeDefined();
      return { id, prompt };
    }

    it("the template changed in the provider's dashboard after the approval: nothing is sent, the requester told what changed, the card says the approval no longer holds", async () => {
      const { core, sandbox, fake } = stack();
      const { group } = await groupOf(3);
      const { id, prompt } = await approved("Pinned sale", group);
      // The provider's dashboard changes the campaign's template (the API itself has no campaign update).
      await sandbox.db.query(
        "update sandbox.campaigns set template_id = 2, template_parameters = null where id = $1",
        [id],
      );
      const sent = await core.confirm(prompt.confirmation!.id, as(ALICE));
      expect(all(sent)).toMatch(
        /Pinned sale\* changed since <@U0BOB> approved it: the template is now \*welcome_message\* \(en\), not the approved \*order_update\* \(en\)/,
      );
      expect(all(sent)).toContain("Nothing was sent");
      expect(buttons(sent.blocks).map((b) => b.value)).toContain(`campaign ${id} request`);
      expect(sends(id)).toBe(0);
      expect((await stack().client.getCampaign(id)).status).toBe("draft");
      expect((await latest(id))?.state).toBe("void");
      await fake.waitFor(
        () =>
          copies(id).length > 0 &&
          (copies(id).every((m) => JSON.stringify(m.blocks).includes("no longer holds")) || undefined),
        10_000,
        "every copy says the approval no longer holds",
      );
      for (const m of copies(id))
        expect(buttons(m.blocks).map((x) => x.text?.text)).toEqual(["Request approval"]);
    });

    it("its group replaced by another of the same size: nothing is sent", async () => {
      const { core, sandbox } = stack();
      const { group } = await groupOf(3);
      const { group: other } = await groupOf(3);
      const { id, prompt } = await approved("Regrouped sale", group);
      await sandbox.db.query("update sandbox.campaigns set group_ids = array[$2::int] where id = $1", [
        id,
        other,
      ]);
      const sent = await core.confirm(prompt.confirmation!.id, as(ALICE));
      expect(all(sent)).toMatch(
        new RegExp(`the groups are now group #${other}, not the approved group #${group}`),
      );
      expect(sends(id)).toBe(0);
    });

    it("a placeholder's value changed: nothing is sent", async () => {
      const { core, sandbox } = stack();
      const { group } = await groupOf(3);
      const { id, prompt } = await approved("Revalued sale", group);
      await sandbox.db.query(
        `update sandbox.campaigns set template_parameters = '{"first_name":"Ana","order_id":"B-9"}'::jsonb where id = $1`,
        [id],
      );
      const sent = await core.confirm(prompt.confirmation!.id, as(ALICE));
      expect(all(sent)).toMatch(/the value of order_id is now “B-9”, not the approved “A-7”/);
      expect(sends(id)).toBe(0);
    });

    it("unchanged, it is sent once", async () => {
      const { core } = stack();
      const { group } = await groupOf(3);
      const { id, prompt } = await approved("Kept sale", group);
      await core.confirm(prompt.confirmation!.id, as(ALICE));
      expect(sends(id)).toBe(1);
      expect((await latest(id))?.state).toBe("used");
    });
  });

  it("an approval is good for 24 hours (an injected clock), and a held start can take it once", async () => {
    const { core, client } = stack();
    const { group } = await groupOf(2);
    const id = await draft("Held sale", group);
    await request(id);
    const r = (await latest(id))!;
    await core.run(`campaign ${id} approve request=${r.id}`, as(CAROL));
    const decided = (await latest(id))!;
    const at = (hours: number) => () => new Date(decided.decidedAt!.getTime() + hours * 3600_000);
    const deps = (hours: number) => ({
      api: client,
      approvals: {
        policy: { approvers: ["U0ALICE", "U0BOB", "U0CAROL"] },
        store: new Approvals(stack().db, stack().workspace),
        now: at(hours),
      },
    });
    // 25 hours on: expired, and the card says so.
    const late = await approvalForStart(deps(25), id);
    expect(late).toMatchObject({ ok: false, ask: true });
    expect(!late.ok && late.reason).toMatch(/expired .*an approval is good for 24 hours\. Ask again/);
    expect(JSON.stringify(approvalCardView(decided, at(25)()).blocks)).toMatch(/\*expired\*/);
    expect(buttons(approvalCardView(decided, at(25)()).blocks).map((b) => b.text?.text)).toEqual([
      "Request approval",
    ]);
    // 23 hours on: good; taken once for a held start, then checked again at the start.
    expect(await approvalForStart(deps(23), id, { take: true })).toMatchObject({ ok: true });
    expect((await latest(id))?.state).toBe("used");
    expect(await approvalForStart(deps(23), id)).toMatchObject({ ok: true });
    expect(await approvalForStart(deps(23), id, { take: true })).toMatchObject({ ok: false });
  });

  it("a request nobody decided within 24 hours expires (an injected clock): click, card and send say so, every copy redrawn once", async () => {
    const { fake } = stack();
    const { group } = await groupOf(2);
    const id = await draft("Late sale", group);
    let now = new Date();
    const core = clockedCore(() => now);
    expect((await core.run(`campaign ${id} request`, as(ALICE))).text).toMatch(/Approval of \*Late sale\*/);
    await fake.waitFor(() => copies(id).length === 2 || undefined, 10_000, "two copies of the card");
    const r = (await latest(id))!;
    const updates = () => updatesOf(id);
    expect(updates()).toBe(0);

    // 23 hours on: still waiting. 25 hours on: expired.
    now = new Date(r.requestedAt.getTime() + 23 * 3600_000);
    expect(all(await core.run(`campaign ${id}`, as(ALICE)))).toMatch(/Waiting for approval/);
    now = new Date(r.requestedAt.getTime() + 25 * 3600_000);

    // Bob's Approve on it: refused in words, nothing decided; every copy redrawn as expired.
    const click = await core.run(`campaign ${id} approve request=${r.id}`, as(BOB));
    expect(click.text).toMatch(/this request expired/);
    expect((await latest(id))?.state).toBe("pending");
    expect(copies(id)).toHaveLength(2);
    for (const m of copies(id)) {
      expect(JSON.stringify(m.blocks)).toMatch(/\*expired\*.*nobody decided within 24 hours/);
      expect(buttons(m.blocks).map((b) => b.text?.text)).toEqual(["Request approval"]);
    }
    expect(updates()).toBe(2);

    // The campaign card and a send say it expired and offer Request approval; the copies are not redrawn again.
    const card = await core.run(`campaign ${id}`, as(ALICE));
    expect(all(card)).toMatch(/\*expired\*/);
    expect(buttons(card.blocks).map((b) => b.text?.text)).toContain("Request approval");
    const send = await core.run(`campaign ${id} send`, as(ALICE));
    expect(send.confirmation).toBeUndefined();
    expect(all(send)).toMatch(/expired .*nobody decided within 24 hours\. Ask again/);
    expect(buttons(send.blocks).map((b) => b.value)).toContain(`campaign ${id} request`);
    expect(await core.run(`campaign ${id} approve request=${r.id}`, as(CAROL))).toMatchObject({
      text: expect.stringMatching(/this request expired/),
    });
    expect(updates()).toBe(2);

    // Asked again: a new request, waiting.
    expect((await core.run(`campaign ${id} request`, as(ALICE))).text).toMatch(/Approval of \*Late sale\*/);
    expect((await latest(id))?.state).toBe("pending");
    expect((await latest(id))?.id).not.toBe(r.id);
  });

  it("an approval found expired by sends and clicks: every copy redrawn as expired once", async () => {
    const { fake } = stack();
    const { group } = await groupOf(2);
    const id = await draft("Stale sale", group);
    let now = new Date();
    const core = clockedCore(() => now);
    await core.run(`campaign ${id} request`, as(ALICE));
    await fake.waitFor(() => copies(id).length === 2 || undefined, 10_000, "two copies of the card");
    const r = (await latest(id))!;
    await core.run(`campaign ${id} approve request=${r.id}`, as(BOB));
    const decided = updatesOf(id);
    now = new Date((await latest(id))!.decidedAt!.getTime() + 25 * 3600_000);
    for (let i = 0; i < 2; i++)
      expect(all(await core.run(`campaign ${id} send`, as(ALICE)))).toMatch(/expired .*good for 24 hours/);
    expect(all(await core.run(`campaign ${id} approve request=${r.id}`, as(CAROL)))).toMatch(/expired/);
    for (const m of copies(id)) {
      expect(JSON.stringify(m.blocks)).toMatch(/\*expired\*/);
      expect(buttons(m.blocks).map((b) => b.text?.text)).toEqual(["Request approval"]);
    }
    expect(updatesOf(id) - decided).toBe(2);
  });

  it("the shell shows the approval state, refuses to send or ask, saying approval happens in Slack", async () => {
    const { core } = stack();
    const { group } = await groupOf(2);
    const id = await draft("Shell sale", group);
    const send = await core.run(`campaign ${id} send`, SHELL);
    expect(send.confirmation).toBeUndefined();
    expect(send.text).toMatch(
      /it is sent once approved — one approval is enough, from .*\. Approval happens in Slack/,
    );
    expect((await core.run(`campaign ${id} request`, SHELL)).text).toMatch(/Approval happens in Slack/);
    await request(id);
    expect(
      (await core.run(`campaign ${id}`, SHELL)).text +
        JSON.stringify((await core.run(`campaign ${id}`, SHELL)).blocks),
    ).toMatch(/Waiting for approval/);
  });

  it("settings: typed approvers and approve-from; a bad number refused in words; below it no approval", async () => {
    const core = stack().switchboard.core;
    const bad = await core.run("settings set approve-from=lots", SHELL);
    expect(bad.text).toMatch(/Nothing was saved:\n• Approval from: must be a number of people, like 500/);
    const ok = await core.run("settings set approvers=<@U0BOB|bob>,<@U0CAROL|carol> approve-from=500", SHELL);
    expect(ok.text).toMatch(/Saved: Who approves campaigns, Approval from\./);
    expect(all(ok)).toMatch(/<@U0BOB>, <@U0CAROL>/);
    expect(all(ok)).toMatch(/Campaigns reaching 500 people or more/);
    const { group } = await groupOf(2);
    const id = await draft("Small sale", group);
    // 2 people, below 500: Send… as before, and the prompt.
    const now = stack().switchboard.core;
    const card = await now.run(`campaign ${id}`, as(ALICE));
    expect(buttons(card.blocks)[0]?.text?.text).toBe("Send…");
    expect((await now.run(`campaign ${id} send`, as(ALICE))).confirmation).toBeDefined();
  });
});

describe("the shell alone", () => {
  it("refuses approvers: nobody could approve", async () => {
    // The shell: the environment's one installation, no Slack.
    const s = await startStack({ mode: "single" });
    try {
      const r = await s.core.run("settings set approvers=U0BOB", SHELL);
      expect(r.text).toMatch(/Who approves campaigns: nobody could approve, since approval happens in Slack/);
      expect((await s.core.run("settings", SHELL)).text).toMatch(/Who approves campaigns: Nobody/);
    } finally {
      await s.close();
    }
  });
});

// An approval given or refused redraws the campaign's cards posted in channels (issue 37 §4): the campaign is
// read for that only when it has such a card open (campaigns.cards). With none, deciding reads nothing of the
// API; with one, the one read of the campaign, and the reply carries its redraw.
/** A draft made with `campaign add` (its answer goes nowhere: no card is kept) and its approval asked by Alice. */
async function requested(name: string): Promise<number> {
  // Whatever the tests above set: Bob approves, every campaign (a settings change makes the core anew).
  await stack().switchboard.core.run("settings set approvers=<@U0BOB|bob> approve-from=none", SHELL);
  const id = await draft(name, 1);
  const asked = await stack().switchboard.core.run(`campaign ${id} request`, as(ALICE));
  expect(asked.text).toMatch(/approv/i);
  return id;
}

/** A card of the campaign kept open in #general, as a post in a channel keeps it. */
const openCard = (id: number, role: "card" | "live", ts: string) =>
  new CampaignCards(stack().db, stack().workspace).posted(
    { campaignId: id, channel: "C0GENERAL", ts, role },
    new Date(),
  );

/** The API requests made while `fn` runs. */
async function requestsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const seen = stack().proxy!.seen;
  const before = seen.length;
  await fn();
  return seen.slice(before);
}

describe("an approval's redraw reads the campaign only when it has a card to redraw", () => {
  it("no card open in a channel: approving and rejecting read nothing of the API", async () => {
    const a = await requested("No card approved");
    const core = stack().switchboard.core;
    const approved = await requestsDuring(async () => {
      const r = await core.run(`campaign ${a} approve`, as(BOB));
      expect(r.text).toMatch(/approved/i);
      expect(r.origin?.redraw).toBeUndefined();
    });
    expect(approved).toEqual([]);
    const b = await requested("No card rejected");
    const rejected = await requestsDuring(async () => {
      const r = await stack().switchboard.core.run(`campaign ${b} reject wrong discount`, as(BOB));
      expect(r.origin?.redraw).toBeUndefined();
    });
    expect(rejected).toEqual([]);
  });

  it("a card open in a channel: the campaign read once, and the reply redraws it", async () => {
    const id = await requested("With a card");
    const core = stack().switchboard.core;
    await openCard(id, "card", "1700000000.000200");
    const seen = await requestsDuring(async () => {
      const r = await core.run(`campaign ${id} approve`, as(BOB));
      expect(r.origin?.redraw).toBeDefined();
    });
    expect(seen.filter((q) => q === `GET /v1/campaigns/${id}`)).toEqual([`GET /v1/campaigns/${id}`]);
  });

  it("only a live card open (never redrawn by a decision): nothing read", async () => {
    const id = await requested("Live only");
    const core = stack().switchboard.core;
    await openCard(id, "live", "1700000000.000300");
    expect(await requestsDuring(() => core.run(`campaign ${id} approve`, as(BOB)))).toEqual([]);
  });
});

itLeavesBUntouched(() => stack());
