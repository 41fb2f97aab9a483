// The away message in many workspaces (issue 40 §1), through the real app in
// many-workspace mode: two workspaces, each connected to its own organization
// with its own key, each with its own away message and away now on. A
// customer who writes to each gets that workspace's text, sent in its own
// organization (with its key); B's text never goes out with A's key.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messageDirection } from "../../src/api/inbox.ts";
import { startWorkspacesStack, type WorkspacesStack } from "../helpers/workspaces-stack.ts";

let stack: WorkspacesStack;
beforeAll(async () => {
  stack = await startWorkspacesStack({ teams: 2, env: { INBOX_POLL_SECONDS: "1" } });
}, 90_000);
afterAll(() => stack?.close());

describe("the away message in many workspaces", () => {
  it("each workspace's customers get its own away message, in its own organization; never the other's", async () => {
    const [a, b] = stack.workspaces as [(typeof stack.workspaces)[0], (typeof stack.workspaces)[0]];
    const phones = ["+14155550181", "+14155550182"];
    const texts = ["Away from A: back on Monday", "Away from B: back tomorrow"];
    const conversations: number[] = [];
    for (const [i, ws] of [a, b].entries()) {
      expect(await ws.command(`settings set away="${texts[i]}" away-now=on`)).toMatch(/Saved/);
      // Said in the channel (not on the response URL), with this workspace's own token.
      await ws.req.command(`inbox on ${ws.general}`, { user: ws.user });
      await stack.fake.waitFor(() =>
        stack.fake
          .callsOf("chat.postMessage")
          .find((c) => c.team === ws.callTeam && /Inbox on/.test(String(c.args.text))),
      );
    }
    for (const [i, ws] of [a, b].entries()) {
      const wrote = await stack.sb.sandbox!.inbound({
        phone: phones[i]!,
        text: "Hello, anyone there?",
        of: { apiKey: ws.org.apiKey },
      });
      conversations.push(wrote.conversationId);
    }
    const awaysIn = async (i: number) =>
      (await [a, b][i]!.api.listConversationMessages(conversations[i]!, { limit: 100 })).items.filter(
        (m) => messageDirection(m) === "outbound" && /^Away from/.test(String(m.text)),
      );
    for (const i of [0, 1])
      await expect.poll(async () => (await awaysIn(i)).length, { timeout: 60_000, interval: 500 }).toBe(1);
    // Each in its own organization, with its own key: its own text, never the other's.
    expect(String((await awaysIn(0))[0]?.text)).toBe(texts[0]);
    expect(String((await awaysIn(1))[0]?.text)).toBe(texts[1]);
    // A's key sent nothing of B's anywhere: none of A's organization's conversations holds B's text.
    const aUsers = await a.api.listChatUsers({ limit: 100 });
    for (const u of aUsers.items) {
      const c = (u as { conversationId?: number }).conversationId;
      if (typeof c !== "number") continue;
      const said = JSON.stringify((await a.api.listConversationMessages(c, { limit: 100 })).items);
      expect(said).not.toContain(texts[1]);
    }
  }, 120_000);
});
