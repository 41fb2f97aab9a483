// Issue 22 §2: a prompt is a promise. A send or cancel the campaign's status
// already answers (completed, cancelled, failed) is answered at once, with the
// next useful action, and no prompt; the same for a template the spec's
// deletion rule keeps. Where the spec leaves the transition open (a paused
// campaign) the prompt stays, and the API's refusal is put in words.
import { describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { seedCampaign } from "../reports/helpers.ts";
import { SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();

const buttons = (r: { blocks: unknown[] }) =>
  (
    r.blocks as Array<{
      type: string;
      elements?: Array<{ action_id?: string; value?: string; text?: { text: string } }>;
    }>
  )
    .filter((b) => b.type === "actions")
    .flatMap((b) => b.elements ?? []);
const writes = () => h().forwarder.requests.filter((r) => !r.startsWith("GET")).length;

describe("the state is read before asking (issue 22 §2)", () => {
  it("cancel or send of a completed, cancelled or failed campaign: answered at once, no prompt, no write", async () => {
    const before = writes();
    const done = (await h().client.listCampaigns({ status: "completed" })).items[0]!;
    const cancel = await h().run(`campaign ${done.id} cancel`);
    expect(cancel.confirmation).toBeUndefined();
    expect(cancel.text).toContain(`*${done.name}* has already completed; there is nothing to cancel.`);
    expect(buttons(cancel).map((b) => [b.text?.text, b.value])).toContainEqual([
      "Report",
      `report now ${done.id}`,
    ]);
    expect(buttons(cancel).some((b) => b.action_id?.startsWith(ACTION.confirm))).toBe(false);

    const send = await h().run(`campaign ${done.id} send`);
    expect(send.confirmation).toBeUndefined();
    expect(send.text).toMatch(/has already completed; a campaign is sent once/);

    for (const status of ["cancelled", "failed"]) {
      const id = await seedCampaign(h().sandbox.db, { name: `Old ${status}`, status, counts: { failed: 1 } });
      const r = await h().run(`campaign ${id} cancel`, SLACK_USER);
      expect(r.confirmation, status).toBeUndefined();
      expect(r.text).toMatch(
        new RegExp(`\\*Old ${status}\\* (was cancelled|has failed); there is nothing to cancel`),
      );
    }
    expect(writes()).toBe(before);
  });

  it("a paused campaign keeps the prompt; the API's refusal comes back in words, with the name", async () => {
    const id = await seedCampaign(h().sandbox.db, {
      name: "Paused promo",
      status: "paused",
      counts: { pending: 2 },
    });
    // An audience (one contact): a campaign with none is refused before any prompt.
    await h().sandbox.db.query(
      "update sandbox.campaigns set contact_ids = (select array[min(id)] from sandbox.contacts) where id = $1",
      [id],
    );
    const ask = await h().run(`campaign ${id} send`);
    expect(ask.confirmation).toBeDefined();
    const r = await h().core.confirm(ask.confirmation!.id, SLACK_USER);
    expect(r.text).toMatch(/\*Paused promo\* is paused: it was started already, and a campaign is sent once/);
    expect(r.text).not.toMatch(/campaign \d+ is/);
  });

  it("a template the API keeps (approved): no prompt, and what to do instead", async () => {
    const approved = (await h().client.listTemplates({ status: "approved" })).items[0]!;
    const r = await h().run(`template delete ${approved.id}`);
    expect(r.confirmation).toBeUndefined();
    expect(r.text).toContain(`Template *${approved.name}* is approved`);
    expect(r.text).toMatch(/leave it out of new campaigns/);
  });
});

itLeavesBUntouched(h);
