// Held starts in many workspaces (issue 37 §1), through the real app in
// many-workspace mode: each workspace's start is set by its own person (who
// may, its approval, its quiet hours), kept as its workspace's row, and run by
// the one runner of the process with that workspace's core and key, in its
// own organization, once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;
beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 2 });
}, 90_000);
afterAll(() => stack?.close());

/** A draft in `i`'s own organization (its key), with a group of two of its contacts. */
async function draftIn(i: number, name: string): Promise<number> {
  const ws = stack.workspaces[i]!;
  const contacts = (await ws.api.listContacts({ limit: 50 })).items.filter((c) => c.optedOut !== true);
  const g = await ws.api.createGroup({ name: `${name} group` });
  await ws.api.addGroupContacts(Number(g.id), [Number(contacts[0]!.id), Number(contacts[1]!.id)]);
  const t = (await ws.api.listTemplates({})).items.find((x) => x.name === "welcome_message")!;
  const c = await ws.api.createCampaign({
    name,
    integrationId: Number(t.integrationId ?? t.integration_id ?? 1),
    templateId: Number(t.id),
    groupIds: [Number(g.id)],
  } as never);
  return Number(c.id);
}

describe("held starts in many workspaces", () => {
  it("each workspace's start is its own row, run by the one runner with its own key, once", async () => {
    const [one, two] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    const ids = [await draftIn(0, "Held one"), await draftIn(1, "Held two")];
    const at = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000);
    const iso = at.toISOString().replace(".000Z", "Z");
    for (const [i, ws] of [one, two].entries()) {
      const prompt = JSON.parse(await ws.command(`campaign ${ids[i]} send at=${iso}`)) as {
        blocks?: unknown;
      };
      const confirm = JSON.stringify(prompt.blocks ?? []).match(
        /"action_id":"(sb_confirm[^"]*)","value":"([^"]+)"/,
      );
      expect(confirm, JSON.stringify(prompt)).toBeTruthy();
      const sent = await ws.click({ action_id: confirm![1]!, value: confirm![2]! });
      await stack.fake.waitForResponse(sent.responseUrl!);
    }
    // Confirmed ("working on it…"), then held (a waiting campaign-start timer): each workspace's row, its own.
    const rows = await eventually(async () => {
      const r = await stack.db.query<{ workspace: string; campaign_id: number; state: string }>(
        `select workspace, (payload->>'campaignId')::integer as campaign_id, state from timers.due
          where kind = 'campaign-start' and at = $1 order by workspace`,
        [at],
      );
      return r.rows.length === 2 ? r.rows : undefined;
    }, "both starts held");
    expect(rows.map((r) => [r.workspace, r.campaign_id, r.state])).toEqual([
      [one.team.teamId, ids[0], "waiting"],
      [two.team.teamId, ids[1], "waiting"],
    ]);
    await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now() + 300)));
    const runner = stack.sb.heldStarts as unknown as { pass(): Promise<string[]> };
    expect((await runner.pass()).sort()).toEqual(["sent", "sent"]);
    // Each sent in its own organization, with its own key.
    expect(String((await one.api.getCampaign(ids[0]!)).status)).not.toBe("draft");
    expect(String((await two.api.getCampaign(ids[1]!)).status)).not.toBe("draft");
    expect(await runner.pass()).toEqual([]);
  });
});
