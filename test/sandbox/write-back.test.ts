// Customers write back in the sandbox: the control route outside /v1, and the
// replies that follow a campaign (docs/sandbox.md, "Customers write back").
import { describe, expect, it } from "vitest";
import { call, manualClock, type Rec, withSandbox } from "../helpers/sandbox.ts";

const clock = manualClock();
const sandbox = withSandbox({ campaignTickMs: 0, campaignBatch: 100, now: clock.now });

async function control(path: string, body: unknown, key?: string | null) {
  const sb = sandbox();
  const headers: Record<string, string> = { "content-type": "application/json" };
  const k = key === undefined ? sb.apiKey : key;
  if (k !== null) headers["x-api-key"] = k;
  const res = await fetch(`${sb.controlUrl}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Rec };
}

describe("sandbox: customers write back", () => {
  it("POST /_sandbox/chat-users/{id}/messages: the chat user writes in, unread, window open, needHuman on request", async () => {
    const sb = sandbox();
    const users = await call(sb, "GET", "/chat-users", { query: { needHuman: false, limit: 1 } });
    const user = users.body.data[0];
    const written = await control(`/chat-users/${user.id}/messages`, {
      text: "Hello <!channel>",
      needHuman: true,
    });
    expect(written.status).toBe(201);
    expect(written.body).toMatchObject({
      chatUserId: user.id,
      direction: "inbound",
      text: "Hello <!channel>",
    });
    const after = await call(sb, "GET", `/chat-users/${user.id}`);
    expect(after.body).toMatchObject({ needHuman: true, hasUnreadMessages: true });
    const history = await call(sb, "GET", `/conversations/${written.body.conversationId}/messages`);
    expect(history.body.data[0].id).toBe(written.body.id);
    // The window is open: a free text answer is accepted.
    const answer = await call(sb, "POST", "/messages", {
      body: { channelId: 1, type: "text", chatUserId: user.id, text: "Hi!" },
    });
    expect(answer.status).toBe(201);
  });

  it("refuses without the read-write key, an unknown chat user, an empty text; not under /v1", async () => {
    const sb = sandbox();
    expect((await control("/chat-users/1/messages", { text: "x" }, null)).status).toBe(401);
    expect((await control("/chat-users/1/messages", { text: "x" }, sb.readKey)).status).toBe(403);
    expect((await control("/chat-users/999999/messages", { text: "x" })).status).toBe(404);
    const empty = await control("/chat-users/1/messages", { text: " " });
    expect(empty.status).toBe(400);
    expect(empty.body.message[0]).toMatch(/^text /);
    expect((await call(sb, "POST", "/chat-users/1/messages", { body: { text: "x" } })).status).toBe(404);
  });

  it("after a campaign, some recipients answer once their message is read, a few asking for a human", async () => {
    const sb = sandbox();
    const group = await call(sb, "POST", "/contact-groups", { body: { name: "Write back" } });
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      const c = await call(sb, "POST", "/contacts", {
        body: { phone: `+1415556${String(1000 + i * 10).padStart(4, "0")}`, first_name: `Reader ${i}` },
      });
      ids.push(c.body.id);
    }
    await call(sb, "POST", `/contact-groups/${group.body.id}/contacts`, { body: { contactIds: ids } });
    const templates = await call(sb, "GET", "/templates", { query: { channelId: 1, status: "approved" } });
    const t = templates.body.data.find((x: Rec) => x.name === "order_update");
    const created = await call(sb, "POST", "/campaigns", {
      body: {
        name: "Write back",
        integrationId: 1,
        templateId: t.id,
        groupIds: [group.body.id],
        templateParameters: { first_name: "Reader", order_id: "W-1" },
      },
    });
    await call(sb, "POST", `/campaigns/${created.body.id}/send`);
    for (let i = 0; i < 6; i++) {
      clock.advance(1000);
      await sb.tick();
    }
    const recipients = (
      await call(sb, "GET", `/campaigns/${created.body.id}/recipients`, { query: { limit: 100 } })
    ).body.data as Rec[];
    const answering = recipients.filter((r) => r.status === "read" && r.id % 5 === 2);
    expect(answering.length).toBeGreaterThan(0);
    const unread = await call(sb, "GET", "/chat-users", {
      query: { hasUnreadMessages: true, search: "Reader", limit: 100, includeMessages: true },
    });
    const inbound = (unread.body.data as Rec[]).flatMap((u) =>
      (u.messages as Rec[]).filter((m) => m.direction === "inbound"),
    );
    expect(inbound.length).toBe(answering.length);
    const human = answering.filter((r) => r.id % 3 === 0).length;
    const needing = (unread.body.data as Rec[]).filter((u) => u.needHuman).length;
    expect(needing).toBe(human);
    // Another tick at the same time writes nothing more.
    await sb.tick();
    const again = await call(sb, "GET", "/chat-users", {
      query: { hasUnreadMessages: true, search: "Reader", limit: 100 },
    });
    expect((again.body.data as Rec[]).reduce((n, u) => n + u.unreadCount, 0)).toBe(answering.length);
  });
});
