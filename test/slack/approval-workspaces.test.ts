// Approval before a send, many workspaces (issue 28 §3): approvers are one
// workspace's setting; its card goes to its own audit channel with its own
// token, mentioning its approver; the decision is kept as its record. The
// other workspace, without approvers, sends as before.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Approvals } from "../../src/store/approvals.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;
beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 2, connect: "demo" });
  // The first workspace's approver and each workspace's own audit channel (a channel is one workspace's).
  stack.fake.addUser({ id: "U0LUIS", name: "luis", team: "TWS1" });
  stack.fake.addChannel({ id: "C0AUDIT", name: "audit", team: "TWS1" });
  stack.fake.addChannel({ id: "C0AUDIT2", name: "audit", team: "TWS2" });
}, 90_000);
afterAll(() => stack?.close());

type Json = { type?: string; elements?: Array<{ value?: string; text?: { text?: string } }> };
const buttons = (blocks: unknown) =>
  ((blocks as Json[] | undefined) ?? []).flatMap((b) => (b.type === "actions" ? (b.elements ?? []) : []));

/** A draft of `ws` whose audience is a new group of two of its contacts. */
async function draft(i: number, name: string): Promise<number> {
  const ws = stack.workspaces[i]!;
  const contacts = (await ws.api.listContacts({ limit: 50 })).items.filter((c) => c.optedOut !== true);
  const g = await ws.api.createGroup({ name: `${name} group` });
  await ws.api.addGroupContacts(Number(g.id), [Number(contacts[0]!.id), Number(contacts[1]!.id)]);
  const template = (await ws.api.listTemplates({})).items.find(
    (t) => t.name === "order_update" && t.status === "approved",
  )!;
  // A draft is answered in the channel (chat.postMessage), not by response_url.
  await ws.req.command(
    `campaign add ${name} template=${template.id} group=${g.id} first_name=Ana order_id=A-7`,
    {
      user: ws.user,
    },
  );
  const posted = await stack.fake.waitFor(
    () =>
      stack.fake
        .callsOf("chat.postMessage")
        .find(
          (c) => c.team === ws.callTeam && String(c.args.text).includes(`Draft campaign *${name}* created`),
        ),
    10_000,
    "the draft's card",
  );
  const answer = String(posted.args.text);
  const id = Number(/campaign #(\d+)/i.exec(answer)?.[1]);
  expect(id, answer).toBeGreaterThan(0);
  return id;
}

describe("approval in many workspaces", () => {
  it("is one workspace's: its card in its audit channel with its token, its decision its record", async () => {
    const [one, two] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    expect(await one.command("settings set approvers=<@U0LUIS|luis> audit=<#C0AUDIT|audit>")).toMatch(
      /Saved: Audit channel, Who approves campaigns/,
    );
    const a = await draft(0, "One sale");
    const b = await draft(1, "Two sale");

    // Workspace one asks for approval; workspace two sends as before.
    expect(await one.command(`campaign ${a} send`)).toMatch(
      /it is sent once approved — an approval from <@U0LUIS>/,
    );
    expect(await two.command(`campaign ${b} send`)).toMatch(/Send campaign/);

    const click = await one.click({ action_id: "sb_run", value: `campaign ${a} request` });
    expect(JSON.stringify((await stack.fake.waitForResponse(click.responseUrl!)).body)).toMatch(
      /asked in <#C0AUDIT>/,
    );
    const post = await stack.fake.waitFor(
      () =>
        stack.fake
          .callsOf("chat.postMessage")
          .find(
            (c) =>
              c.args.channel === "C0AUDIT" && JSON.stringify(c.args.blocks ?? []).includes("approval_head"),
          ),
      10_000,
      "the approval card in the audit channel",
    );
    expect(post.team).toBe(one.callTeam);
    expect(String(post.args.text)).toMatch(/^<@U0LUIS>: Approve One sale\?/);
    const approve = buttons(post.args.blocks).find((x) => x.text?.text === "Approve")!.value!;

    // Luis approves in workspace one: its record, not workspace two's.
    const decided = await one.click({ action_id: "sb_run", value: approve }, { user: { id: "U0LUIS" } });
    expect(JSON.stringify((await stack.fake.waitForResponse(decided.responseUrl!)).body)).toMatch(
      /You approved \*One sale\* for 2 people/,
    );
    expect((await new Approvals(stack.db, one.team.teamId).latest(a))?.state).toBe("approved");
    expect(await new Approvals(stack.db, two.team.teamId).latest(a)).toBeUndefined();
    // The card in the audit channel says so, and Send now works in workspace one.
    const updated = await stack.fake.waitFor(
      () =>
        stack.fake
          .callsOf("chat.update")
          .find((c) => c.args.channel === "C0AUDIT" && c.team === one.callTeam && c.response.ok),
      10_000,
      "the card redrawn",
    );
    expect(JSON.stringify(updated.args.blocks)).toMatch(/Approved\* by <@U0LUIS>/);
    expect(await one.command(`campaign ${a} send`)).toMatch(/Send campaign/);
  });

  it("a settings change is posted to that workspace's audit channel with its token, as a write is", async () => {
    const [one] = stack.workspaces as [(typeof stack.workspaces)[0]];
    expect(await one.command("settings set country=FR")).toMatch(/Saved: /);
    const post = await stack.fake.waitFor(
      () =>
        stack.fake
          .callsOf("chat.postMessage")
          .find((c) => c.args.channel === "C0AUDIT" && /changed the settings/.test(String(c.args.text))),
      10_000,
      "the settings change in the audit channel",
    );
    expect(post.team).toBe(one.callTeam);
    expect(String(post.args.text)).toContain(`<@${one.user.id}>`);
  });

  it("a disconnect is posted to that workspace's audit channel with its token, its runtime gone or not", async () => {
    const [, two] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    expect(await two.command("settings set audit=<#C0AUDIT2|audit>")).toMatch(/Saved: /);
    const asked = await two.command("disconnect");
    const id =
      /"action_id":"sb_confirm"[^}]*?"value":"([^"]+)"|"value":"([^"]+)"[^}]*?"action_id":"sb_confirm"/.exec(
        asked,
      );
    const confirmation = id?.[1] ?? id?.[2];
    expect(confirmation, asked).toBeTruthy();
    const confirmed = await two.click({ action_id: "sb_confirm", value: confirmation as string });
    await stack.fake.waitFor(
      () =>
        stack.fake
          .responsesTo(confirmed.responseUrl!)
          .find((r) => /Disconnected from/.test(JSON.stringify(r.body))),
      10_000,
      "the disconnect's answer",
    );
    const post = await stack.fake.waitFor(
      () =>
        stack.fake
          .callsOf("chat.postMessage")
          .find(
            (c) => c.args.channel === "C0AUDIT2" && /disconnected this workspace/.test(String(c.args.text)),
          ),
      10_000,
      "the disconnect in the audit channel",
    );
    expect(post.team).toBe(two.callTeam);
    expect(post.response.ok).toBe(true);
    expect(String(post.args.text)).toContain(`<@${two.user.id}>`);

    // Connected again; then disconnected once this replica no longer keeps its runtime (on PostgreSQL the
    // change's own notice can drop it first): posted all the same, with its bot, without building one.
    expect(await two.command("connect demo")).toMatch(/Connected to/);
    const admin = (await stack.sb.workspaces.runtime(two.team.teamId))?.core.admin;
    expect(admin).toBeDefined();
    await stack.sb.workspaces.forget(two.team.teamId);
    const posts = () =>
      stack.fake
        .callsOf("chat.postMessage")
        .filter(
          (c) => c.args.channel === "C0AUDIT2" && /disconnected this workspace/.test(String(c.args.text)),
        );
    expect(posts()).toHaveLength(1);
    expect((await admin!.disconnect({ userId: two.user.id, via: "slack" })).ok).toBe(true);
    const again = await stack.fake.waitFor(
      () => posts()[1],
      10_000,
      "the second disconnect in the audit channel",
    );
    expect(again.team).toBe(two.callTeam);
    expect(again.response.ok).toBe(true);
    expect(stack.sb.workspaces.kept(two.team.teamId)).toBeUndefined();
  });
});
