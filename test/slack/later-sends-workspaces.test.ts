// Messages sent later in many workspaces (issue 40 §2), through the real app in
// many-workspace mode: each workspace numbers its own, lists only its own, and
// the one runner of the process (the switchboard's, as many-workspaces.ts makes it)
// sends each with its own workspace's core and key, in its own organization,
// once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;
beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 2 });
}, 90_000);
afterAll(() => stack?.close());

describe("messages sent later in many workspaces", () => {
  it("each workspace numbers and lists only its own; the process's runner sends each with its own key, once", async () => {
    const [one, two] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    const at = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000);
    const iso = at.toISOString().replace(".000Z", "Z");
    const phones = ["+14155550171", "+14155550172"];
    const conversations: number[] = [];
    for (const [i, ws] of [one, two].entries()) {
      // The customer wrote in to this workspace's own organization: its 24-hour window is open.
      const wrote = await stack.sb.sandbox!.inbound({
        phone: phones[i]!,
        text: "hola",
        of: { apiKey: ws.org.apiKey },
      });
      conversations.push(wrote.conversationId);
      const prompt = JSON.parse(await ws.command(`send ${phones[i]} Hola from ${i + 1} at=${iso}`)) as {
        blocks?: unknown;
      };
      const confirm = JSON.stringify(prompt.blocks ?? []).match(
        /"action_id":"(sb_confirm[^"]*)","value":"([^"]+)"/,
      );
      expect(confirm, JSON.stringify(prompt)).toBeTruthy();
      const set = await ws.click({ action_id: confirm![1]!, value: confirm![2]! });
      // Confirmed ("working on it…"), then set: numbered in its own workspace, each its workspace's first.
      const answer = await stack.fake.waitFor(() =>
        stack.fake.responsesTo(set.responseUrl!).find((r) => /will be sent at/.test(String(r.body.text))),
      );
      expect(String(answer.body.text)).toMatch(/^Message 1 to /);
    }
    const listOne = await one.command("scheduled");
    expect(listOne).toContain("Hola from 1");
    expect(listOne).not.toContain("Hola from 2");
    const listTwo = await two.command("scheduled");
    expect(listTwo).toContain("Hola from 2");
    expect(listTwo).not.toContain("Hola from 1");

    await new Promise((r) => setTimeout(r, Math.max(0, at.getTime() - Date.now() + 300)));
    const runner = stack.sb.laterSends as unknown as { pass(): Promise<string[]> };
    expect((await runner.pass()).sort()).toEqual(["sent", "sent"]);
    expect(await runner.pass()).toEqual([]);
    // Each in its own organization, with its own key: in that organization's conversation, the other's not.
    for (const [i, ws] of [one, two].entries()) {
      const said = JSON.stringify((await ws.api.listConversationMessages(conversations[i]!, {})).items);
      expect(said).toContain(`Hola from ${i + 1}`);
      expect(said).not.toContain(`Hola from ${2 - i}`);
    }
  });
});
