// A send started from the approval message (issue 39 §1): its audit line says
// so in words, "@alice started *Spring sale* from the approval message", never
// "Typed in <#U0ALICE>: `campaign 4 send`". Through the fake Slack, the Bolt
// app, the core and the sandbox: the request, Bob's approval, then Send now on
// the approval card in Alice's DM and its Confirm; its launch card goes to the
// channel the approval was asked from, and the DM says where (issue 37 §4).
import { describe, expect, it } from "vitest";
import { Approvals } from "../../src/store/approvals.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { ALICE, BOB } from "../helpers/fake-slack.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const AUDIT = "C0AUDIT";
const stack = useStack({
  slack: {
    users: [ALICE, BOB],
    channels: [
      { id: "C0GENERAL", name: "general", is_member: true },
      { id: AUDIT, name: "audit", is_member: true },
    ],
  },
  env: { SWITCHBOARD_APPROVERS: "U0BOB", AUDIT_CHANNEL: AUDIT },
});

/** A campaign of the first `size` contacts made and asked for by Alice in `channelId`, approved by Bob; its id. */
async function approvedCampaign(
  group: string,
  size: number,
  name: string,
  channelId: string,
): Promise<number> {
  const { core, db, client } = stack();
  const contacts = (await client.listContacts({ limit: 10 })).items.filter((c) => c.opted_out !== true);
  const g = await client.createGroup({ name: group });
  await client.addGroupContacts(
    Number(g.id),
    contacts.slice(0, size).map((c) => Number(c.id)),
  );
  const alice = { userId: ALICE.id, userName: ALICE.name, channelId, via: "slack" as const };
  const made = await core.run(
    `campaign add "${name}" template=1 group=${g.id} first_name=Ana order_id=A-7`,
    alice,
  );
  const id = Number(/campaign #(\d+)/i.exec(made.text)?.[1]);
  expect(id, made.text).toBeGreaterThan(0);
  expect((await core.run(`campaign ${id} request`, alice)).text).toMatch(/approv/i);
  const asked = (await new Approvals(db, stack().workspace).latest(id))!;
  const bob = { userId: BOB.id, userName: BOB.name, channelId: "D0BOB", via: "slack" as const };
  expect((await core.run(`campaign ${id} approve request=${asked.id}`, bob)).text).toMatch(/You approved/);
  return id;
}

/** Send now on the approval card in Alice's DM (`cardTs`), then the prompt's Confirm (`promptTs`): the Confirm's request. */
async function sendNowFromApproval(id: number, cardTs: string, promptTs: string) {
  const { req, fake } = stack();
  const click = await req.blockAction(
    { action_id: "sb_run", value: `campaign ${id} send`, block_id: "approval_actions" },
    { user: ALICE, channelId: "D0ALICE", messageTs: cardTs },
  );
  const prompt = await fake.waitForResponse(click.responseUrl!);
  const [, actionId, value] =
    JSON.stringify(prompt.body.blocks).match(/"action_id":"(sb_confirm[^"]*)","value":"([^"]+)"/) ?? [];
  expect(value, JSON.stringify(prompt.body)).toBeTruthy();
  return req.blockAction(
    { action_id: actionId!, value: value! },
    { user: ALICE, channelId: "D0ALICE", messageTs: promptTs },
  );
}

describe("a send from the approval message", () => {
  it("reads as started from the approval message, with no DM id and no command", async () => {
    const { fake, db } = stack();
    const id = await approvedCampaign("Approval audit", 3, "Spring sale", "C0GENERAL");

    // Send now on the approval card in Alice's DM, then its Confirm.
    const before = fake.messages.length;
    const ok = await sendNowFromApproval(id, "1700000000.000200", "1700000000.000300");
    await fake.waitForResponse(ok.responseUrl!);

    const sentence = `<@${ALICE.id}> started *Spring sale* from the approval message`;
    const post = await fake.waitFor(
      () => fake.messages.slice(before).find((m) => m.channel === AUDIT && /started/.test(String(m.text))),
      15_000,
      "the audit post",
    );
    expect(post.text).toBe(`:white_check_mark: ${sentence}`);
    const shown = `${post.text}\n${JSON.stringify(post.blocks)}`;
    expect(shown).toContain("From the approval message");
    expect(shown).not.toMatch(/Typed|D0ALICE|<#U0ALICE>|campaign \d+ send/);
    const [row] = (await new AuditLog(db, stack().workspace).list({ limit: 20 })).filter(
      (e) => e.operation === "sendCampaign",
    );
    expect(row).toMatchObject({ how: "approval", ok: true });

    // Issue 37 §4: its launch card is posted where the approval was asked from (#general), not left in the DM,
    // and the DM says where.
    const launch = fake.messages
      .slice(before)
      .filter((m) => JSON.stringify(m.blocks ?? []).includes("Starting; the figures follow here"));
    expect(launch.map((m) => m.channel)).toEqual(["C0GENERAL"]);
    const told = fake.responsesTo(ok.responseUrl!).map((r) => JSON.stringify(r.body));
    expect(told.some((t) => t.includes("Its card, with the live figures, is in <#C0GENERAL>"))).toBe(true);
  });

  it("asked for in a DM, its launch card goes to the audit channel, and the DM says where", async () => {
    const { fake } = stack();
    // Everything in Alice's DM with the app: made, asked for, and started there.
    const id = await approvedCampaign("Asked in a DM", 2, "Asked privately", "D0ALICE");
    const before = fake.messages.length;
    const ok = await sendNowFromApproval(id, "1700000000.000400", "1700000000.000500");
    const launch = await fake.waitFor(
      () =>
        fake.messages
          .slice(before)
          .find((m) => JSON.stringify(m.blocks ?? []).includes("Starting; the figures follow here")),
      15_000,
      "the launch card",
    );
    expect(launch.channel).toBe(AUDIT);
    const told = await fake.waitFor(() =>
      fake
        .responsesTo(ok.responseUrl!)
        .map((r) => JSON.stringify(r.body))
        .find((t) => t.includes(`Its card, with the live figures, is in <#${AUDIT}>`)),
    );
    expect(told).toBeTruthy();
  });

  it("the campaign's card in the channel is redrawn as the approval is asked for and given (issue 37 §4)", async () => {
    const { req, fake, client } = stack();
    const contacts = (await client.listContacts({ limit: 10 })).items.filter((c) => c.opted_out !== true);
    const g = await client.createGroup({ name: "Redrawn" });
    await client.addGroupContacts(
      Number(g.id),
      contacts.slice(0, 2).map((c) => Number(c.id)),
    );
    const before = fake.messages.length;
    await req.command(`campaign add "Card follows" template=1 group=${g.id} first_name=Ana order_id=A-7`, {
      user: ALICE,
      channelId: "C0GENERAL",
    });
    const card = await fake.waitFor(() =>
      fake.messages
        .slice(before)
        .find((m) => m.channel === "C0GENERAL" && /Card follows/.test(String(m.text))),
    );
    const id = Number(/campaign #(\d+)/i.exec(String(card.text))?.[1]);
    const latest = () =>
      JSON.stringify(
        fake
          .callsOf("chat.update")
          .filter((c) => c.args.channel === "C0GENERAL" && c.args.ts === card.ts)
          .at(-1)?.args.blocks ?? [],
      );
    await req.command(`campaign ${id} request`, { user: ALICE, channelId: "C0GENERAL" });
    await fake.waitFor(
      () => (/Waiting for approval/.test(latest()) ? true : undefined),
      10_000,
      "redrawn as waiting",
    );
    expect(latest()).not.toContain(`campaign ${id} request`);
    await req.command(`campaign ${id} approve`, { user: BOB, channelId: "D0BOB" });
    await fake.waitFor(
      () => (/Approved\* by/.test(latest()) ? true : undefined),
      10_000,
      "redrawn as approved",
    );
    expect(latest()).toContain(`campaign ${id} send`);
  });
});

itLeavesBUntouched(() => stack());
