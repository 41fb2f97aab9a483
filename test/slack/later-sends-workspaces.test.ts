// Messages sent later in many workspaces (issue 40 §2), through the real app in
// many-workspace mode: each workspace numbers its own, lists only its own, and
// the one runner of the process (the switchboard's, as many-workspaces.ts makes it)
// sends each with its own workspace's core and key, in its own organization,
// once; Edit… opens and changes its own workspace's message only.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { laterSendsOf } from "../../src/commands/later-message.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;
beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 2 });
}, 90_000);
afterAll(() => stack?.close());

type Workspace = WorkspacesStack["workspaces"][number];

/**
 * `send <phone> <words> at=<at>` in `ws`, its customer having written in to its own organization (its 24-hour
 * window open), confirmed: its number, and the customer's conversation.
 */
async function setIn(ws: Workspace, phone: string, words: string, at: Date) {
  const wrote = await stack.sb.sandbox!.inbound({ phone, text: "hola", of: { apiKey: ws.org.apiKey } });
  const iso = at.toISOString().replace(".000Z", "Z");
  const prompt = JSON.parse(await ws.command(`send ${phone} ${words} at=${iso}`)) as { blocks?: unknown };
  const confirm = JSON.stringify(prompt.blocks ?? []).match(
    /"action_id":"(sb_confirm[^"]*)","value":"([^"]+)"/,
  );
  expect(confirm, JSON.stringify(prompt)).toBeTruthy();
  const set = await ws.click({ action_id: confirm![1]!, value: confirm![2]! });
  // Confirmed ("working on it…"), then set: numbered in its own workspace.
  const answer = await stack.fake.waitFor(() =>
    stack.fake.responsesTo(set.responseUrl!).find((r) => /will be sent at/.test(String(r.body.text))),
  );
  return {
    n: Number(/^Message (\d+) to /.exec(String(answer.body.text))![1]),
    conversationId: wrote.conversationId,
  };
}

describe("messages sent later in many workspaces", () => {
  it("each workspace numbers and lists only its own; the process's runner sends each with its own key, once", async () => {
    const [one, two] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    const at = new Date(Math.ceil((Date.now() + 4_000) / 1000) * 1000);
    const phones = ["+14155550171", "+14155550172"];
    const conversations: number[] = [];
    for (const [i, ws] of [one, two].entries()) {
      const set = await setIn(ws, phones[i]!, `Hola from ${i + 1}`, at);
      expect(set.n).toBe(1); // each its workspace's first
      conversations.push(set.conversationId);
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

describe("Edit… on a message sent later, in many workspaces", () => {
  it("opens its own workspace's message with its token; Save changes that one, the other workspace's same number untouched", async () => {
    const [one, two] = stack.workspaces as [Workspace, Workspace];
    const at = new Date((Math.floor(Date.now() / 60_000) + 90) * 60_000);
    const mine = await setIn(one, "+14155550173", "Edit me", at);
    const theirs = await setIn(two, "+14155550174", "Leave me", at);
    expect(mine.n).toBe(theirs.n); // the same number, each its own workspace's

    const list = JSON.parse(await one.command("scheduled")) as { blocks: unknown };
    const edit = JSON.stringify(list.blocks).match(
      new RegExp(`"action_id":"([^"]+)","value":"scheduled edit ${mine.n}"`),
    );
    expect(edit).toBeTruthy();
    const clicked = await one.click({ action_id: edit![1]!, value: `scheduled edit ${mine.n}` });
    const opened = await stack.fake.waitFor(() =>
      stack.fake
        .callsOf("views.open")
        .find((c) => c.args.trigger_id === clicked.triggerId && c.response.ok === true),
    );
    expect(opened.team).toBe(one.callTeam);
    const view = stack.fake.view((opened.response.view as { id: string }).id)!;
    expect(JSON.stringify(view.view.blocks)).toContain("Edit me");
    expect(JSON.stringify(view.view.blocks)).not.toContain("Leave me");

    const answer = await one.submit(view.id, { text: "Edited in one" });
    expect(answer.errors).toBeUndefined();
    expect(
      (await laterSendsOf(new WorkspaceStores(stack.db, one.team.teamId)).get(mine.n))?.payload.body.text,
    ).toBe("Edited in one");
    const other = await laterSendsOf(new WorkspaceStores(stack.db, two.team.teamId)).get(theirs.n);
    expect(other?.payload.body.text).toBe("Leave me");
    expect(other?.version).toBe(0);
  });
});
