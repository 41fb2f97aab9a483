import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MediaServer, startMediaServer } from "../helpers/media-server.ts";
import { call, manualClock, type Rec, sendTemplate, withSandbox } from "../helpers/sandbox.ts";

const clock = manualClock();
const sandbox = withSandbox({ campaignTickMs: 0, now: clock.now });
let files: MediaServer;
beforeAll(async () => {
  files = await startMediaServer();
});
afterAll(() => files?.close());

const contactByName = async (first: string): Promise<Rec> => {
  const r = await call(sandbox(), "GET", "/contacts", { query: { search: first } });
  return r.body.data.find((c: Rec) => c.first_name === first);
};

describe("sandbox messages and the 24-hour window", () => {
  it("sends a text to a contact who wrote within 24 hours", async () => {
    const ana = await contactByName("Ana");
    const r = await call(sandbox(), "POST", "/messages", {
      body: { channelId: 1, type: "text", contactId: ana.id, text: "Sure, which address?" },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      direction: "outbound",
      type: "text",
      status: "queued",
      text: "Sure, which address?",
    });
    const read = await call(sandbox(), "GET", `/messages/${r.body.id}`);
    expect(read.body.status).toBe("queued");
  });

  it("refuses a text outside the window, or to someone who never wrote, with 422", async () => {
    const ben = await contactByName("Ben"); // last wrote 80 hours ago
    const old = await call(sandbox(), "POST", "/messages", {
      body: { channelId: 1, type: "text", contactId: ben.id, text: "Hello again" },
    });
    expect(old.status).toBe(422);
    expect(old.body.error).toBe("Unprocessable Entity");
    expect(old.body.message).toMatch(/outside the 24-hour conversation window/);
    expect(old.body.message).toMatch(/template/);

    const stranger = await call(sandbox(), "POST", "/messages", {
      body: { channelId: 1, type: "text", to: "+14155553333", text: "Hi" },
    });
    expect(stranger.status).toBe(422);
    expect(stranger.body.message).toMatch(/never wrote/);
  });

  it("holds image and document messages to the window too, but not templates", async () => {
    const sb = sandbox();
    const ben = await contactByName("Ben"); // last wrote 80 hours ago
    const ana = await contactByName("Ana"); // wrote within 24 hours
    const benUser = (await call(sb, "GET", "/chat-users", { query: { search: ben.phone } })).body.data[0];
    const benHistory = async () => {
      const u = await call(sb, "GET", `/chat-users/${benUser.id}`);
      return u.body.messages.length as number;
    };
    const before = await benHistory();
    for (const type of ["image", "document"]) {
      const media = {
        channelId: 1,
        type,
        mediaUrl: `${files.url}/${type === "image" ? "a.png" : "doc.pdf"}`,
      };
      const outside = await call(sb, "POST", "/messages", {
        body: { ...media, contactId: ben.id, text: "caption" },
      });
      expect(outside.status, type).toBe(422);
      expect(outside.body.message).toMatch(
        new RegExp(`outside the 24-hour conversation window.*free-form ${type}`),
      );
      const stranger = await call(sb, "POST", "/messages", { body: { ...media, to: "+14155553334" } });
      expect(stranger.status, type).toBe(422);
      const inside = await call(sb, "POST", "/messages", { body: { ...media, contactId: ana.id } });
      expect(inside.status, type).toBe(201);
      expect(inside.body).toMatchObject({ type, mediaUrl: media.mediaUrl, status: "queued" });
    }
    // Refused messages wrote nothing, and created no chat user for the stranger.
    expect(await benHistory()).toBe(before);
    const stranger = await call(sb, "GET", "/chat-users", { query: { search: "+14155553334" } });
    expect(stranger.body.meta.total).toBe(0);
    const template = await sendTemplate(sb, { contactId: ben.id }, "welcome_message");
    expect(template.status).toBe(201);
  });

  it("fetches an image's or document's mediaUrl and refuses one it cannot fetch or of the wrong type", async () => {
    const ana = await contactByName("Ana");
    const send = (type: string, mediaUrl: string) =>
      call(sandbox(), "POST", "/messages", { body: { channelId: 1, type, contactId: ana.id, mediaUrl } });
    const refused: Array<[string, string, RegExp]> = [
      ["image", `${files.url}/missing.png`, /answered HTTP 404/],
      ["document", `${files.url}/missing.pdf`, /answered HTTP 404/],
      ["image", `${files.url}/doc.pdf`, /application\/pdf, which is not an image/],
      ["image", `${files.url}/page.html`, /text\/html, which is not an image/],
      ["document", `${files.url}/page.html`, /text\/html, which is not a document/],
      ["image", "http://127.0.0.1:1/a.png", /could not be fetched/],
    ];
    for (const [type, url, why] of refused) {
      const r = await send(type, url);
      expect(r.status, url).toBe(422);
      expect(r.body.message, url).toMatch(why);
    }
    expect((await send("image", `${files.url}/a.png`)).status).toBe(201);
    expect((await send("document", `${files.url}/doc.pdf`)).status).toBe(201);
    // A picture is a document too, when sent as one.
    expect((await send("document", `${files.url}/a.png`)).status).toBe(201);
  });

  it("closes the window 24 hours after the last inbound message", async () => {
    const farah = await contactByName("Farah"); // wrote 1 hour ago
    const send = () =>
      call(sandbox(), "POST", "/messages", {
        body: { channelId: 1, type: "text", contactId: farah.id, text: "Yes" },
      });
    expect((await send()).status).toBe(201);
    clock.advance(23 * 3_600_000 + 60_000);
    expect((await send()).status).toBe(422);
    clock.advance(-(23 * 3_600_000 + 60_000));
  });

  it("opens the window when a person writes in (Sandbox.inbound)", async () => {
    const sb = sandbox();
    const send = () =>
      call(sb, "POST", "/messages", {
        body: { channelId: 1, type: "text", to: "+14155552323", text: "Hi!" },
      });
    expect((await send()).status).toBe(422);
    const m = await sb.inbound({ phone: "+1 415 555 2323", text: "Hello, anyone?" });
    expect((await call(sb, "GET", `/messages/${m.id}`)).body).toMatchObject({
      direction: "inbound",
      status: "received",
    });
    const user = await call(sb, "GET", `/chat-users/${m.chatUserId}`);
    expect(user.body).toMatchObject({ phone: "+14155552323", hasUnreadMessages: true, type: "phonechat" });
    const sent = await send();
    expect(sent.status).toBe(201);
    expect(sent.body.conversationId).toBe(m.conversationId);
  });

  it("sends an approved template outside the window, with named or positional parameters", async () => {
    const ben = await contactByName("Ben");
    const named = await sendTemplate(sandbox(), { contactId: ben.id }, "order_update", {
      parameters: { first_name: "Ben", order_id: "B-7" },
    });
    expect(named.status).toBe(201);
    expect(named.body.text).toBe("Hi Ben, your order B-7 is on its way.");
    const positional = await sendTemplate(sandbox(), { to: "+14155554444" }, "order_update", {
      parameters: { "1": "Zed", "2": "Z-1" },
    });
    expect(positional.status).toBe(201);
    expect(positional.body.text).toBe("Hi Zed, your order Z-1 is on its way.");
    // A new phone became a chat user with a conversation.
    const users = await call(sandbox(), "GET", "/chat-users", { query: { search: "4155554444" } });
    expect(users.body.data).toHaveLength(1);

    const missing = await sendTemplate(sandbox(), { contactId: ben.id }, "order_update");
    expect(missing.status).toBe(400);
    expect(missing.body.message).toEqual(
      expect.arrayContaining([expect.stringMatching(/^template\.parameters\.first_name is required/)]),
    );
    const pending = await sendTemplate(sandbox(), { contactId: ben.id }, "loyalty_points", {
      parameters: { points: "1" },
    });
    expect(pending.status).toBe(400);
    expect(pending.body.message[0]).toMatch(/is not an approved template.*pending/);
  });

  it("refuses opted-out contacts, unknown references and invalid bodies", async () => {
    const emma = await contactByName("Emma"); // opted out
    const opted = await sendTemplate(sandbox(), { contactId: emma.id }, "welcome_message");
    expect(opted.status).toBe(422);
    expect(opted.body.message).toMatch(/opted out/);
    const noChannel = await sendTemplate(sandbox(), { to: "+14155554444" }, "welcome_message", {
      channelId: 9,
    });
    expect(noChannel.status).toBe(400);
    const two = await call(sandbox(), "POST", "/messages", {
      body: { channelId: 1, type: "text", to: "+14155554444", contactId: 1, text: "x" },
    });
    expect(two.status).toBe(400);
    expect(two.body.message[0]).toMatch(/^to must not be combined/);
    const image = await call(sandbox(), "POST", "/messages", {
      body: { channelId: 1, type: "image", to: "+14155554444" },
    });
    expect(image.body.message).toEqual(["mediaUrl is required when type is image"]);
  });

  it("moves message statuses on ticks: queued, sent, delivered, read; unreachable phones fail", async () => {
    const sb = sandbox();
    const ok = await sendTemplate(sb, { to: "+14155556661" }, "welcome_message");
    const bad = await sendTemplate(sb, { to: "+14155556669" }, "welcome_message");
    const statuses: string[] = [];
    for (let i = 0; i < 3; i++) {
      await sb.tick();
      statuses.push((await call(sb, "GET", `/messages/${ok.body.id}`)).body.status);
    }
    // One in four delivered messages is never read (by id): both outcomes are legal final states.
    expect(statuses.slice(0, 2)).toEqual(["sent", "delivered"]);
    expect(statuses[2]).toBe(ok.body.id % 4 === 0 ? "delivered" : "read");
    const failed = await call(sb, "GET", `/messages/${bad.body.id}`);
    expect(failed.body).toMatchObject({
      status: "failed",
      error: expect.stringContaining("not on the messaging network"),
    });
    expect((await call(sb, "GET", "/messages/999999")).status).toBe(404);
  });

  it("reads conversation history newest first, paged, with before and after", async () => {
    const sb = sandbox();
    const ana = await contactByName("Ana");
    const users = await call(sb, "GET", "/chat-users", { query: { search: "Ana Lopez" } });
    const user = await call(sb, "GET", `/chat-users/${users.body.data[0].id}`);
    expect(user.body.contactId).toBe(ana.id);
    const conversationId = user.body.conversations[0].id;
    const all = await call(sb, "GET", `/conversations/${conversationId}/messages`);
    expect(all.status).toBe(200);
    const times = all.body.data.map((m: Rec) => Date.parse(m.createdAt));
    expect(times.length).toBeGreaterThanOrEqual(3);
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(all.body.meta.total).toBe(times.length);

    const page2 = await call(sb, "GET", `/conversations/${conversationId}/messages`, {
      query: { limit: 1, page: 2 },
    });
    expect(page2.body.data[0].id).toBe(all.body.data[1].id);
    const cut = new Date(clock.now().getTime() - 10 * 3_600_000).toISOString();
    const before = await call(sb, "GET", `/conversations/${conversationId}/messages`, {
      query: { before: cut },
    });
    const after = await call(sb, "GET", `/conversations/${conversationId}/messages`, {
      query: { after: cut },
    });
    expect(before.body.meta.total + after.body.meta.total).toBe(all.body.meta.total);
    expect(before.body.data.every((m: Rec) => Date.parse(m.createdAt) < Date.parse(cut))).toBe(true);
    expect(after.body.data.every((m: Rec) => Date.parse(m.createdAt) > Date.parse(cut))).toBe(true);
    expect(before.body.meta.total).toBeGreaterThan(0);
    expect(after.body.meta.total).toBeGreaterThan(0);
    const badDate = await call(sb, "GET", `/conversations/${conversationId}/messages`, {
      query: { before: "yesterday" },
    });
    expect(badDate.body.message[0]).toMatch(/^before must be an ISO 8601 date-time/);
    expect((await call(sb, "GET", "/conversations/999999/messages")).status).toBe(404);
  });
});

describe("sandbox chat users", () => {
  const list = async (query: Record<string, string | number | boolean>) => {
    const r = await call(sandbox(), "GET", "/chat-users", { query: { limit: 100, ...query } });
    expect(r.status).toBe(200);
    return r.body as { data: Rec[]; meta: Rec };
  };

  it("filters by type, needHuman and hasUnreadMessages", async () => {
    const all = await list({});
    const types = new Set(all.data.map((u) => u.type));
    expect(types.size).toBeGreaterThanOrEqual(4);
    const web = await list({ type: "chat_web" });
    expect(web.data.length).toBeGreaterThan(0);
    expect(web.data.every((u) => u.type === "chat_web")).toBe(true);
    const human = await list({ needHuman: true });
    const noHuman = await list({ needHuman: false });
    expect(human.data.length).toBeGreaterThan(0);
    expect(human.data.every((u) => u.needHuman)).toBe(true);
    expect(human.meta.total + noHuman.meta.total).toBe(all.meta.total);
    const unread = await list({ hasUnreadMessages: true });
    expect(unread.data.length).toBeGreaterThan(0);
    expect(unread.data.every((u) => u.hasUnreadMessages && u.unreadCount > 0)).toBe(true);
    expect((await list({ hasUnreadMessages: false })).data.every((u) => u.unreadCount === 0)).toBe(true);
  });

  it("searches name, email and phone", async () => {
    expect((await list({ search: "pavel" })).data.map((u) => u.name)).toEqual(["Pavel Novak"]);
    expect((await list({ search: "visitor42@" })).data.map((u) => u.type)).toEqual(["chat_web"]);
    expect((await list({ search: "+14155550203" })).data.map((u) => u.name)).toEqual(["Diego Martinez"]);
  });

  it("sorts by any sort field in either order", async () => {
    const asc = await list({ sortBy: "name", sortOrder: "ASC" });
    const names = asc.data.map((u) => (u.name as string | null)?.toLowerCase() ?? null);
    const named = names.filter((n) => n !== null);
    // Chat users without a name come last.
    expect(names).toEqual([...[...named].sort(), ...names.filter((n) => n === null)]);
    const descNames = (await list({ sortBy: "name", sortOrder: "DESC" })).data
      .map((u) => (u.name as string | null)?.toLowerCase())
      .filter(Boolean);
    expect(descNames).toEqual([...named].reverse());
    const desc = await list({ sortBy: "created_at", sortOrder: "DESC" });
    const created = desc.data.map((u) => Date.parse(u.createdAt));
    expect(created).toEqual([...created].sort((a, b) => b - a));
    const bad = await call(sandbox(), "GET", "/chat-users", { query: { sortBy: "age" } });
    expect(bad.body.message[0]).toMatch(/^sortBy must be one of name, email/);
  });

  it("filters by last activity between dateFrom and dateTo", async () => {
    const from = new Date(clock.now().getTime() - 24 * 3_600_000).toISOString();
    const recent = await list({ dateFrom: from });
    expect(recent.data.length).toBeGreaterThan(0);
    expect(recent.data.every((u) => Date.parse(u.lastActivity) >= Date.parse(from))).toBe(true);
    const older = await list({ dateTo: from });
    expect(older.data.length).toBeGreaterThan(0);
    expect(older.data.every((u) => Date.parse(u.lastActivity) <= Date.parse(from))).toBe(true);
    const day = await list({ dateFrom: "2000-01-01", dateTo: "2000-01-02" });
    expect(day.meta.total).toBe(0);
  });

  it("includes each chat user's latest messages when asked", async () => {
    const without = await list({ limit: 3 });
    expect(without.data[0]!.messages).toBeUndefined();
    const withMessages = await list({ limit: 3, includeMessages: true });
    for (const u of withMessages.data) {
      expect(u.messages.length).toBeGreaterThan(0);
      expect(u.messages.every((m: Rec) => m.chatUserId === u.id)).toBe(true);
    }
  });

  it("updates standard and custom fields", async () => {
    const sb = sandbox();
    const user = (await list({ search: "Grace" })).data[0]!;
    const r = await call(sb, "PATCH", `/chat-users/${user.id}`, {
      body: {
        standardFields: { address: "1 Main St", phone: "+1 415 555 9000" },
        customFields: { loyalty_tier: "gold" },
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      address: "1 Main St",
      phone: "+14155559000",
      customFields: { loyalty_tier: "gold" },
    });
    expect((await call(sb, "GET", `/chat-users/${user.id}`)).body.address).toBe("1 Main St");
    const unknown = await call(sb, "PATCH", `/chat-users/${user.id}`, {
      body: { customFields: { shoe: "42" } },
    });
    expect(unknown.status).toBe(400);
    const empty = await call(sb, "PATCH", `/chat-users/${user.id}`, { body: {} });
    expect(empty.status).toBe(400);
    expect(
      (await call(sb, "PATCH", "/chat-users/999999", { body: { standardFields: { name: "x" } } })).status,
    ).toBe(404);
  });
});
