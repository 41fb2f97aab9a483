// The client against the real sandbox over HTTP: every one of the 42
// operations, every validation rule of the shared schemas (refused before any
// request), the state rules, scopes, unknown keys and ids, and rate limits.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessagingClient, type MessagingClientOptions } from "../../src/api/client.ts";
import {
  AuthenticationError,
  ConflictError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ValidationError,
} from "../../src/api/errors.ts";
import { OPERATIONS, type OperationName } from "../../src/api/operations.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import type { Contact } from "../../src/api/types.ts";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import { eventually } from "../helpers/eventually.ts";
import { rejection } from "../helpers/rejection.ts";
import { withSandbox } from "../helpers/sandbox.ts";

let sb: Sandbox;
let api: MessagingClient;
const clients: MessagingClient[] = [];
function client(extra: Partial<MessagingClientOptions> = {}): MessagingClient {
  const c = new MessagingClient({
    baseUrl: sb.url,
    apiKey: sb.apiKey,
    // A limiter of its own per client: tests do not share budgets, and counts stay readable.
    limiter: new RateLimiter({ readPerMinute: 100_000, writePerMinute: 100_000 }),
    random: () => 0,
    ...extra,
  });
  clients.push(c);
  return c;
}

const OPERATION_FNS = new Set<string>(OPERATIONS.map((op) => op.fn));

/** Wraps the client so each successful call is recorded, by function name, in `into`. */
function tracked(c: MessagingClient, into: string[]): MessagingClient {
  return new Proxy(c, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string" || !OPERATION_FNS.has(prop)) return value;
      return async (...args: unknown[]) => {
        const result = await value.apply(target, args);
        into.push(prop);
        return result;
      };
    },
  });
}

async function contactNamed(search: string): Promise<Contact> {
  const page = await api.listContacts({ search });
  expect(page.items, `seed contact ${search}`).toHaveLength(1);
  return page.items[0]!;
}

const sandbox = withSandbox({
  campaignTickMs: 0,
  templateApprovalMs: 3_600_000,
  readLimit: 100_000,
  writeLimit: 100_000,
});

beforeAll(() => {
  sb = sandbox();
  api = client();
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
});

describe("account", () => {
  it("getMe reads the organization and the key's scopes", async () => {
    const me = await api.getMe();
    expect(me.organization?.name).toBeTruthy();
    expect(me.apiKey?.scopes).toEqual(expect.arrayContaining(["read", "write"]));
    expect(JSON.stringify(me)).not.toContain(sb.apiKey);
  });
});

describe("contacts", () => {
  it("creates, reads, updates, lists and soft-deletes a contact", async () => {
    const created = await api.createContact({
      phone: "+44 20 7946 0321",
      first_name: "Test",
      last_name: "Person",
      email: "test.person@example.com",
      custom_fields: { loyalty_tier: "gold" },
    });
    expect(created.id).toBeGreaterThan(0);
    expect(created.phone).toBe("+442079460321");
    expect((await api.getContact(created.id!)).email).toBe("test.person@example.com");

    const updated = await api.updateContact(created.id!, { first_name: "Tess" });
    expect(updated.first_name).toBe("Tess");

    const found = await api.listContacts({ search: "Tess" });
    expect(found.items.map((c) => c.id)).toEqual([created.id]);
    expect(found.total).toBe(1);

    await api.deleteContact(created.id!);
    expect(await rejection(api.getContact(created.id!))).toBeInstanceOf(NotFoundError);
    expect((await api.listContacts({ search: "Tess" })).items).toEqual([]);
  });

  it("opts a contact out and back in, and the optedOut filter follows", async () => {
    const c = await api.createContact({ phone: "+14155557001", first_name: "Optie" });
    const inList = async (optedOut: boolean) =>
      (await api.listContacts({ search: "Optie", optedOut })).items.map((x) => x.id);
    expect(await inList(false)).toEqual([c.id]);
    await api.optOutContact(c.id!);
    expect(await inList(true)).toEqual([c.id]);
    expect(await inList(false)).toEqual([]);
    await api.optInContact(c.id!);
    expect(await inList(false)).toEqual([c.id]);
    expect(await inList(true)).toEqual([]);
  });

  it("pages through every contact, stopping at the total", async () => {
    const first = await api.listContacts({ limit: 7 });
    expect(first.total).toBeGreaterThan(7);
    const ids = new Set<number>();
    for await (const c of api.paginate("listContacts", { limit: 7 })) ids.add(c.id!);
    expect(ids.size).toBe(first.total);
  });

  it("imports a CSV file: created, updated, errors with row numbers, groupId", async () => {
    const group = await api.createGroup({ name: "Imported" });
    const csv = [
      "phone,first_name,last_name,email,loyalty_tier",
      "+14155558001,Imp,One,imp1@example.com,gold",
      "+14155558002,Imp,Two,,silver",
      "not a phone,Bad,Row,,",
    ].join("\n");
    const result = await api.importContacts(
      { filename: "contacts.csv", contentType: "text/csv", body: new TextEncoder().encode(csv) },
      { groupId: group.id!, updateExisting: false },
    );
    expect(result.created).toBe(2);
    expect(result.updated).toBe(0);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0]!.row).toBe(4);
    expect(result.errors[0]!.message).toMatch(/phone/);
    expect((await api.getGroup(group.id!)).memberCount).toBe(2);

    // Streamed, and this time duplicates update the existing contacts.
    async function* again() {
      yield new TextEncoder().encode("phone,first_name\n");
      yield new TextEncoder().encode("+14155558001,Renamed\n");
    }
    const second = await api.importContacts(
      { filename: "again.csv", body: again() },
      { updateExisting: true },
    );
    expect(second).toMatchObject({ created: 0, updated: 1 });
    expect((await api.listContacts({ search: "Renamed" })).items).toHaveLength(1);
  });
});

describe("contact fields", () => {
  it("lists, creates, updates and soft-deletes a field definition", async () => {
    const before = await api.listContactFields();
    const field = await api.createContactField({ key: "shoe_size", label: "Shoe size", type: "number" });
    expect(field).toMatchObject({ key: "shoe_size", label: "Shoe size", type: "number", position: 0 });
    const after = await api.listContactFields();
    expect(after.items.length).toBe(before.items.length + 1);
    const updated = await api.updateContactField(field.id!, { label: "Shoe size (EU)", position: 9 });
    expect(updated).toMatchObject({ key: "shoe_size", label: "Shoe size (EU)", position: 9 });
    await api.deleteContactField(field.id!);
    expect((await api.listContactFields()).items.map((f) => f.key)).not.toContain("shoe_size");
    expect(await rejection(api.deleteContactField(field.id!))).toBeInstanceOf(NotFoundError);
  });
});

describe("groups", () => {
  it("creates, reads, updates, adds and removes members, lists and soft-deletes", async () => {
    const a = await api.createContact({ phone: "+14155557101", first_name: "Member" });
    const b = await api.createContact({ phone: "+14155557102", first_name: "Member" });
    const group = await api.createGroup({ name: "Test group", description: "for the client test" });
    expect((await api.getGroup(group.id!)).name).toBe("Test group");
    expect((await api.updateGroup(group.id!, { description: "changed" })).description).toBe("changed");

    await api.addGroupContacts(group.id!, [a.id!, b.id!]);
    expect((await api.getGroup(group.id!)).memberCount).toBe(2);
    const members = await api.listContacts({ groupId: group.id! });
    expect(members.items.map((c) => c.id).sort()).toEqual([a.id, b.id].sort());

    await api.removeGroupContacts(group.id!, [a.id!]);
    expect((await api.listContacts({ groupId: group.id! })).items.map((c) => c.id)).toEqual([b.id]);

    const listed = (await api.listGroups()).items.find((g) => g.id === group.id);
    expect(listed?.memberCount).toBe(1);

    await api.deleteGroup(group.id!);
    expect(await rejection(api.getGroup(group.id!))).toBeInstanceOf(NotFoundError);
  });

  it("a member that does not exist is refused by the service, naming the member", async () => {
    const group = await api.createGroup({ name: "Refs" });
    const err = (await rejection(api.addGroupContacts(group.id!, [999_999]))) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.status).toBe(400);
    expect(err.problems[0]!.field).toBe("contactIds.0");
    expect(err.message).toContain("999999");
  });
});

describe("tags", () => {
  it("creates, reads, updates, lists and soft-deletes a tag", async () => {
    const tag = await api.createTag({ name: "Client test", color: "#a1b2c3", description: "x" });
    expect(tag.color).toBe("#A1B2C3");
    expect((await api.getTag(tag.id!)).name).toBe("Client test");
    expect((await api.updateTag(tag.id!, { color: "#000000" })).color).toBe("#000000");
    expect((await api.listTags()).items.map((t) => t.id)).toContain(tag.id);
    await api.deleteTag(tag.id!);
    expect(await rejection(api.getTag(tag.id!))).toBeInstanceOf(NotFoundError);
    expect((await api.listTags()).items.map((t) => t.id)).not.toContain(tag.id);
  });

  it("a duplicate name is a conflict", async () => {
    await api.createTag({ name: "Twice", color: "#111111" });
    expect(await rejection(api.createTag({ name: "Twice", color: "#222222" }))).toBeInstanceOf(ConflictError);
  });
});

/** A template that passes every rule; a test overrides what it is about. */
const tpl = {
  integrationId: 1,
  name: "rule_test",
  language: "en",
  category: "UTILITY" as const,
  bodyText: "Hi {{name}}",
};

describe("templates", () => {
  it("creates a pending template, syncs it to approved, and refuses to delete it then", async () => {
    const created = await api.createTemplate({
      ...tpl,
      name: "Client Test Notice",
      bodyText: "Hi {{first_name}}, your code is {{code}}.",
      bodyExamples: { first_name: "Ana", code: "1234" },
      footerText: "Acme",
      buttons: [{ type: "URL", text: "Open", url: "https://example.com" }],
    });
    expect(created).toMatchObject({ name: "client_test_notice", status: "pending" });
    expect((await api.listTemplates({ status: "pending" })).items.map((t) => t.id)).toContain(created.id);

    await api.syncTemplates(1);
    const synced = await api.getTemplate(created.id!);
    expect(synced.status).toBe("approved");
    expect((await api.listTemplates({ channelId: 1, status: "approved" })).items.map((t) => t.id)).toContain(
      created.id,
    );

    const err = await rejection(api.deleteTemplate(created.id!));
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toContain("approved");
    expect((await api.getTemplate(created.id!)).status).toBe("approved");
  });

  it("deletes a pending template", async () => {
    const t = await api.createTemplate({
      ...tpl,
      integrationId: 2,
      name: "to_delete",
      category: "MARKETING",
      bodyText: "Bye",
    });
    await api.deleteTemplate(t.id!);
    expect(await rejection(api.getTemplate(t.id!))).toBeInstanceOf(NotFoundError);
  });
});

describe("messages and conversations", () => {
  it("sends a template message and a text inside the window, and reads the history", async () => {
    const ana = await contactNamed("Ana Lopez");
    const sent = await api.sendMessage({
      channelId: 1,
      type: "template",
      contactId: ana.id!,
      template: { name: "order_update", language: "en", parameters: { first_name: "Ana", order_id: "A-7" } },
    });
    expect(sent.id).toBeGreaterThan(0);
    expect(sent.text).toContain("A-7");
    expect((await api.getMessage(sent.id!)).status).toBeTruthy();

    const text = await api.sendMessage({
      channelId: 1,
      type: "text",
      contactId: ana.id!,
      text: "Sure, reply with it",
    });
    const conversationId = Number(text.conversationId);
    const history = await api.listConversationMessages(conversationId, { limit: 2 });
    // Newest first.
    expect(history.items.map((m) => m.id)).toEqual([text.id, sent.id]);
    const older = await api.listConversationMessages(conversationId, {
      before: String(history.items[1]!.createdAt),
    });
    expect(older.items.map((m) => m.id)).not.toContain(sent.id);
    const all: number[] = [];
    for await (const m of api.paginate("listConversationMessages", { id: conversationId, limit: 1 })) {
      all.push(m.id!);
    }
    expect(all.slice(0, 2)).toEqual([text.id, sent.id]);
  });

  it("refuses a free text outside the 24-hour window with 422 (ValidationError)", async () => {
    const ben = await contactNamed("Ben Carter");
    const err = await rejection(
      api.sendMessage({ channelId: 1, type: "text", contactId: ben.id!, text: "Hi" }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).status).toBe(422);
    expect(err.message).toContain("24-hour");
  });

  it("refuses a message to an opted-out contact", async () => {
    const emma = await contactNamed("Emma Schmidt");
    const err = await rejection(
      api.sendMessage({
        channelId: 1,
        type: "template",
        contactId: emma.id!,
        template: { name: "welcome_message", language: "en" },
      }),
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain("opted out");
  });
});

describe("campaigns", () => {
  it("creates a campaign, sends it, follows its recipients, and cannot send it twice", async () => {
    const vip = (await api.listGroups()).items.find((g) => g.name === "VIP customers")!;
    const campaign = await api.createCampaign({
      name: "Client test campaign",
      integrationId: 1,
      templateId: 2,
      groupIds: [vip.id!],
    });
    expect(campaign.status).toBe("draft");
    expect((await api.getCampaign(campaign.id!)).name).toBe("Client test campaign");
    expect((await api.listCampaigns({ status: "draft" })).items.map((c) => c.id)).toContain(campaign.id);

    const running = await api.sendCampaign(campaign.id!);
    expect(running.status).toBe("running");
    const recipients = await api.listCampaignRecipients(campaign.id!);
    expect(recipients.limit).toBe(50);
    expect(recipients.total).toBe(vip.memberCount);
    await sb.tick();
    await sb.tick();
    const moved = await api.listCampaignRecipients(campaign.id!, { status: "pending" });
    expect(moved.total).toBe(0);

    const again = await rejection(api.sendCampaign(campaign.id!));
    expect(again).toBeInstanceOf(ConflictError);
    const ids: number[] = [];
    for await (const r of api.paginate("listCampaignRecipients", { id: campaign.id!, limit: 2 }))
      ids.push(r.id!);
    expect(ids).toHaveLength(recipients.total!);
  });

  it("cancels a draft campaign; a cancelled one cannot be sent", async () => {
    const c = await api.createCampaign({
      name: "To cancel",
      integrationId: 1,
      templateId: 2,
      contactIds: [1, 2],
    });
    expect((await api.cancelCampaign(c.id!)).status).toBe("cancelled");
    expect(await rejection(api.sendCampaign(c.id!))).toBeInstanceOf(ConflictError);
    expect(await rejection(api.cancelCampaign(c.id!))).toBeInstanceOf(ConflictError);
  });

  it("a template that is not approved is refused by the service", async () => {
    const pending = await api.createTemplate({
      integrationId: 1,
      name: "not_yet_approved",
      language: "en",
      category: "MARKETING",
      bodyText: "Soon",
    });
    expect(pending.status).toBe("pending");
    const err = (await rejection(
      api.createCampaign({ name: "x", integrationId: 1, templateId: pending.id!, contactIds: [1] }),
    )) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.problems.map((p) => p.field)).toContain("templateId");
  });
});

describe("chat users", () => {
  it("lists with filters, reads and updates a chat user", async () => {
    const needHuman = await api.listChatUsers({ needHuman: true, sortBy: "name", sortOrder: "ASC" });
    expect(needHuman.items.length).toBeGreaterThan(0);
    expect(needHuman.items.every((u) => u.needHuman === true)).toBe(true);
    const web = await api.listChatUsers({ type: "chat_web", includeMessages: true });
    expect(web.items.every((u) => u.type === "chat_web")).toBe(true);
    expect(Array.isArray(web.items[0]!.messages)).toBe(true);

    const user = await api.getChatUser(web.items[0]!.id!);
    expect(user.id).toBe(web.items[0]!.id);
    const updated = await api.updateChatUser(user.id!, {
      standardFields: { name: "Renamed visitor", email: "renamed@example.com" },
      customFields: { loyalty_tier: "silver" },
    });
    expect(updated.name).toBe("Renamed visitor");
    expect((await api.listChatUsers({ search: "Renamed visitor" })).items.map((u) => u.id)).toEqual([
      user.id,
    ]);
  });
});

describe("keys and ids", () => {
  it("a read-only key reads but may not write: PermissionError, and nothing changes", async () => {
    const reader = client({ apiKey: sb.readKey });
    expect((await reader.listTags()).items.length).toBeGreaterThan(0);
    const before = (await api.listTags()).total;
    const err = await rejection(reader.createTag({ name: "Nope", color: "#123456" }));
    expect(err).toBeInstanceOf(PermissionError);
    expect((err as PermissionError).status).toBe(403);
    expect(err.message).toContain("write");
    expect((await api.listTags()).total).toBe(before);
  });

  it("an unknown key is an AuthenticationError that does not repeat the key", async () => {
    const stranger = client({ apiKey: "sb_unknown_key_0000abcd" });
    const err = await rejection(stranger.getMe());
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err.message).not.toContain("sb_unknown_key_0000abcd");
  });

  it.each([
    ["getContact", (c: MessagingClient) => c.getContact(987_654)],
    ["getMessage", (c: MessagingClient) => c.getMessage(987_654)],
    ["listConversationMessages", (c: MessagingClient) => c.listConversationMessages(987_654)],
    ["updateContactField", (c: MessagingClient) => c.updateContactField(987_654, { label: "x" })],
    ["getGroup", (c: MessagingClient) => c.getGroup(987_654)],
    ["removeGroupContacts", (c: MessagingClient) => c.removeGroupContacts(987_654, [1])],
    ["getTag", (c: MessagingClient) => c.getTag(987_654)],
    ["getTemplate", (c: MessagingClient) => c.getTemplate(987_654)],
    ["getCampaign", (c: MessagingClient) => c.getCampaign(987_654)],
    ["listCampaignRecipients", (c: MessagingClient) => c.listCampaignRecipients(987_654)],
    ["optOutContact", (c: MessagingClient) => c.optOutContact(987_654)],
    ["getChatUser", (c: MessagingClient) => c.getChatUser(987_654)],
  ])("%s of a missing id is NotFoundError", async (_name, call) => {
    const err = await rejection(call(api));
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).status).toBe(404);
  });
});

// Sandboxes with tiny limits, on the same database (opening one costs seconds).
describe("rate limits against the sandbox", () => {
  it("a client that trusts a bigger budget than the service's gets 429 -> RateLimitError", async () => {
    const tight = await startSandbox({ db: sb.db, campaignTickMs: 0, readLimit: 2, writeLimit: 1 });
    try {
      const c = new MessagingClient({
        baseUrl: tight.url,
        apiKey: tight.apiKey,
        readPerMinute: 1_000,
        maxRateLimitWaitMs: 0,
      });
      clients.push(c);
      await c.listTags();
      await c.listTags();
      const err = (await rejection(c.listTags())) as RateLimitError;
      expect(err).toBeInstanceOf(RateLimitError);
      expect(err.retryAfterMs).toBeGreaterThan(0);
      expect(err.message).toContain("rate limit");
      // Writes are counted apart.
      await c.createTag({ name: "one write", color: "#010101" });
      expect(await rejection(c.createTag({ name: "two", color: "#020202" }))).toBeInstanceOf(RateLimitError);
    } finally {
      await tight.close();
    }
  });

  it("waits out the service's Retry-After and then succeeds", async () => {
    let offset = 0;
    const tight = await startSandbox({
      db: sb.db,
      campaignTickMs: 0,
      readLimit: 1,
      now: () => new Date(Date.now() + offset),
    });
    try {
      const c = new MessagingClient({ baseUrl: tight.url, apiKey: tight.apiKey, readPerMinute: 1_000 });
      clients.push(c);
      await c.getMe();
      // Move the sandbox's clock to a second before its window ends: Retry-After is then 1 s.
      offset = 59_200;
      const me = await c.getMe();
      expect(me.organization).toBeDefined();
    } finally {
      await tight.close();
    }
  });

  it("a client with the service's own budget queues instead of earning a 429", async () => {
    const tight = await startSandbox({ db: sb.db, campaignTickMs: 0, readLimit: 2 });
    try {
      const c = new MessagingClient({ baseUrl: tight.url, apiKey: tight.apiKey, readPerMinute: 2 });
      clients.push(c);
      await c.listTags();
      const ctl = new AbortController();
      const waiting = c.listTags({ signal: ctl.signal });
      await eventually(() => c.budget().read.queued.interactive === 1, "the second read to queue");
      ctl.abort(new Error("enough"));
      await expect(waiting).rejects.toThrow("enough");
      // The service never refused anything: the second request was never sent.
      expect(c.budget().read.granted.interactive).toBe(1);
    } finally {
      await tight.close();
    }
  });
});

// Every rule of src/api/schemas.ts, each refused by the client before any request.
type Call = (c: MessagingClient) => Promise<unknown>;
const url = "https://example.com/a.png";
/** A campaign that passes every rule; a rule's case overrides one member. */
const campaign = { name: "x", integrationId: 1, templateId: 1, contactIds: [1] };
const RULES: Array<[string, Call, string]> = [
  // ids in paths
  ["path id not a number", (c) => c.getContact(Number.NaN), "id must be a number"],
  ["path id zero", (c) => c.getTag(0), "id must be a positive number"],
  ["path id fraction", (c) => c.getGroup(2.5), "id must be a whole number"],
  // messages
  [
    "message channelId",
    (c) => c.sendMessage({ channelId: -1, type: "text", to: "+14155550123", text: "x" }),
    "channelId must be a positive number",
  ],
  [
    "message type",
    (c) => c.sendMessage({ channelId: 1, type: "video" as never, to: "+14155550123" }),
    "type must be one of text, template, image, document",
  ],
  [
    "message phone",
    (c) => c.sendMessage({ channelId: 1, type: "text", to: "555", text: "x" }),
    "to must be a phone number in E.164",
  ],
  [
    "message without recipient",
    (c) => c.sendMessage({ channelId: 1, type: "text", text: "x" }),
    "to is required unless contactId or chatUserId",
  ],
  [
    "message with two recipients",
    (c) => c.sendMessage({ channelId: 1, type: "text", to: "+14155550123", contactId: 1, text: "x" }),
    "give exactly one of to, contactId or chatUserId",
  ],
  [
    "template required",
    (c) => c.sendMessage({ channelId: 1, type: "template", contactId: 1 }),
    "template is required when type is template",
  ],
  [
    "template only for templates",
    (c) =>
      c.sendMessage({
        channelId: 1,
        type: "text",
        contactId: 1,
        text: "x",
        template: { name: "a", language: "en" },
      }),
    "template is only for messages of type template",
  ],
  [
    "template name",
    (c) =>
      c.sendMessage({
        channelId: 1,
        type: "template",
        contactId: 1,
        template: { name: " ", language: "en" },
      }),
    "template.name must not be empty",
  ],
  [
    "template parameters",
    (c) =>
      c.sendMessage({
        channelId: 1,
        type: "template",
        contactId: 1,
        template: { name: "a", language: "en", parameters: { a: 1 as never } },
      }),
    "template.parameters.a parameter values must be texts",
  ],
  [
    "mediaUrl required",
    (c) => c.sendMessage({ channelId: 1, type: "image", contactId: 1 }),
    "mediaUrl is required when type is image",
  ],
  [
    "mediaUrl only for media",
    (c) => c.sendMessage({ channelId: 1, type: "text", contactId: 1, text: "x", mediaUrl: url }),
    "mediaUrl is only for image and document messages",
  ],
  [
    "mediaUrl format",
    (c) => c.sendMessage({ channelId: 1, type: "document", contactId: 1, mediaUrl: "ftp://x" }),
    "mediaUrl must be an http or https URL",
  ],
  [
    "text required",
    (c) => c.sendMessage({ channelId: 1, type: "text", contactId: 1 }),
    "text is required when type is text",
  ],
  [
    "assignToHuman",
    (c) =>
      c.sendMessage({ channelId: 1, type: "text", contactId: 1, text: "x", assignToHuman: "yes" as never }),
    "assignToHuman must be true or false",
  ],
  [
    "metadata",
    (c) => c.sendMessage({ channelId: 1, type: "text", contactId: 1, text: "x", metadata: "x" as never }),
    "metadata must be an object",
  ],
  [
    "message unknown member",
    (c) => c.sendMessage({ channelId: 1, type: "text", contactId: 1, text: "x", priority: 1 } as never),
    "priority is not a member this operation accepts",
  ],
  // history
  ["history page", (c) => c.listConversationMessages(1, { page: 0 }), "page must be at least 1"],
  ["history limit", (c) => c.listConversationMessages(1, { limit: 500 }), "limit must be between 1 and 100"],
  [
    "history before",
    (c) => c.listConversationMessages(1, { before: "yesterday" }),
    "before must be an ISO 8601 date-time",
  ],
  [
    "history after",
    (c) => c.listConversationMessages(1, { after: "2026-13-01" }),
    "after must be an ISO 8601 date-time",
  ],
  // contacts
  ["contact phone required", (c) => c.createContact({} as never), "phone is required"],
  ["contact phone", (c) => c.createContact({ phone: "call me" }), "phone must be a phone number in E.164"],
  [
    "contact email",
    (c) => c.createContact({ phone: "+14155550123", email: "nope" }),
    "email must be an e-mail address",
  ],
  [
    "contact custom field key",
    (c) => c.createContact({ phone: "+14155550123", custom_fields: { "Bad Key": "x" } }),
    "must be a lower-case slug",
  ],
  [
    "contact custom field value",
    (c) => c.createContact({ phone: "+14155550123", custom_fields: { tier: { a: 1 } as never } }),
    "custom_fields.tier values must be text, number or boolean",
  ],
  [
    "contact wa_identified",
    (c) => c.createContact({ phone: "+14155550123", wa_identified: true } as never),
    "wa_identified is not a member",
  ],
  ["contact update empty", (c) => c.updateContact(1, {}), "give at least one member to change"],
  ["contacts page", (c) => c.listContacts({ page: -2 }), "page must be at least 1"],
  ["contacts limit", (c) => c.listContacts({ limit: 0 }), "limit must be between 1 and 100"],
  ["contacts search", (c) => c.listContacts({ search: "  " }), "search must not be empty"],
  ["contacts groupId", (c) => c.listContacts({ groupId: -3 }), "groupId must be a positive number"],
  [
    "contacts optedOut",
    (c) => c.listContacts({ optedOut: "maybe" as never }),
    "optedOut must be true or false",
  ],
  ["contacts unknown parameter", (c) => c.listContacts({ sort: "name" } as never), "sort is not a member"],
  [
    "import updateExisting",
    (c) => c.importContacts({ filename: "a.csv", body: new Uint8Array(1) }, {} as never),
    "updateExisting is required",
  ],
  [
    "import groupId",
    (c) =>
      c.importContacts({ filename: "a.csv", body: new Uint8Array(1) }, { groupId: 0, updateExisting: true }),
    "groupId must be a positive number",
  ],
  // contact fields
  [
    "field key slug",
    (c) => c.createContactField({ key: "Loyalty Tier", label: "x" }),
    "key must be a lower-case slug",
  ],
  ["field label", (c) => c.createContactField({ key: "tier", label: "" }), "label must not be empty"],
  [
    "field type",
    (c) => c.createContactField({ key: "tier", label: "x", type: "list" as never }),
    "type must be one of text, number, date, boolean",
  ],
  [
    "field position",
    (c) => c.createContactField({ key: "tier", label: "x", position: 1.5 }),
    "position must be a whole number",
  ],
  ["field key immutable", (c) => c.updateContactField(1, { key: "other" } as never), "key cannot be changed"],
  ["field update empty", (c) => c.updateContactField(1, {}), "give at least one member to change"],
  // groups
  ["group name", (c) => c.createGroup({ name: "" }), "name must not be empty"],
  ["group update empty", (c) => c.updateGroup(1, {}), "give at least one member to change"],
  ["members list", (c) => c.addGroupContacts(1, "1" as never), "contactIds must be a list of contact ids"],
  ["members empty", (c) => c.addGroupContacts(1, []), "contactIds must name at least one contact"],
  ["members repeated", (c) => c.removeGroupContacts(1, [3, 3]), "contactIds must not repeat a contact id"],
  ["members ids", (c) => c.addGroupContacts(1, [0]), "contactIds.0 must be a positive number"],
  // tags
  [
    "tag colour",
    (c) => c.createTag({ name: "x", color: "#12345" }),
    "color must be a hexadecimal colour written #RRGGBB",
  ],
  ["tag name", (c) => c.createTag({ color: "#123456" } as never), "name is required"],
  ["tag update empty", (c) => c.updateTag(1, {}), "give at least one member to change"],
  // templates
  [
    "template integrationId",
    (c) => c.createTemplate({ ...tpl, integrationId: 0 }),
    "integrationId must be a positive number",
  ],
  [
    "template create name",
    (c) => c.createTemplate({ ...tpl, name: "!!!" }),
    "name must contain letters or digits",
  ],
  [
    "template language",
    (c) => c.createTemplate({ ...tpl, language: "english" }),
    "language must be a language code",
  ],
  [
    "template category",
    (c) => c.createTemplate({ ...tpl, category: "PROMO" as never }),
    "category must be one of UTILITY, MARKETING, AUTHENTICATION",
  ],
  ["template body", (c) => c.createTemplate({ ...tpl, bodyText: "" }), "bodyText must not be empty"],
  [
    "footer length",
    (c) => c.createTemplate({ ...tpl, footerText: "x".repeat(61) }),
    "footerText must be at most 60 characters",
  ],
  [
    "footer placeholders",
    (c) => c.createTemplate({ ...tpl, footerText: "Bye {{name}}" }),
    "footerText must not contain placeholders",
  ],
  [
    "button count",
    (c) =>
      c.createTemplate({
        ...tpl,
        buttons: Array.from({ length: 11 }, () => ({ type: "QUICK_REPLY" as const, text: "Ok" })),
      }),
    "buttons must have at most 10 buttons",
  ],
  [
    "button type",
    (c) => c.createTemplate({ ...tpl, buttons: [{ type: "CALL" as never, text: "Ok" }] }),
    "buttons.0.type must be one of QUICK_REPLY, URL",
  ],
  [
    "button text",
    (c) => c.createTemplate({ ...tpl, buttons: [{ type: "QUICK_REPLY", text: "x".repeat(26) }] }),
    "buttons.0.text must be at most 25 characters",
  ],
  [
    "url button needs url",
    (c) => c.createTemplate({ ...tpl, buttons: [{ type: "URL", text: "Go" }] }),
    "buttons.0.url is required on a URL button",
  ],
  [
    "url only on URL buttons",
    (c) => c.createTemplate({ ...tpl, buttons: [{ type: "QUICK_REPLY", text: "Go", url }] }),
    "buttons.0.url is only allowed on URL buttons",
  ],
  [
    "examples of unknown placeholders",
    (c) => c.createTemplate({ ...tpl, bodyExamples: { name: "Ana", other: "x" } }),
    "bodyExamples.other is not a placeholder of the body",
  ],
  [
    "examples missing",
    (c) => c.createTemplate({ ...tpl, bodyText: "Hi {{name}} {{code}}", bodyExamples: { name: "Ana" } }),
    "bodyExamples.code needs an example value",
  ],
  [
    "templates status",
    (c) => c.listTemplates({ status: "live" as never }),
    "status must be one of pending, approved, rejected, paused, disabled",
  ],
  ["templates channelId", (c) => c.listTemplates({ channelId: 0 }), "channelId must be a positive number"],
  ["sync channelId", (c) => c.syncTemplates(undefined as never), "channelId is required"],
  // campaigns
  ["campaign name", (c) => c.createCampaign({ ...campaign, name: "" }), "name must not be empty"],
  [
    "campaign integrationId",
    (c) => c.createCampaign({ name: "x", templateId: 1, contactIds: [1] } as never),
    "integrationId is required",
  ],
  [
    "campaign templateId",
    (c) => c.createCampaign({ ...campaign, templateId: -1 }),
    "templateId must be a positive number",
  ],
  [
    "campaign tag",
    (c) => c.createCampaign({ ...campaign, conversationTagId: 0 }),
    "conversationTagId must be a positive number",
  ],
  [
    "campaign groupIds",
    (c) => c.createCampaign({ name: "x", integrationId: 1, templateId: 1, groupIds: 3 as never }),
    "groupIds must be a list of group ids",
  ],
  [
    "campaign scheduledAt",
    (c) => c.createCampaign({ ...campaign, scheduledAt: "tomorrow" }),
    "scheduledAt must be an ISO 8601 date-time",
  ],
  [
    "campaign parameters",
    (c) => c.createCampaign({ ...campaign, templateParameters: { a: 2 as never } }),
    "parameter values must be texts",
  ],
  [
    "campaigns status",
    (c) => c.listCampaigns({ status: "done" as never }),
    "status must be one of draft, scheduled, running",
  ],
  ["campaigns limit", (c) => c.listCampaigns({ limit: 101 }), "limit must be between 1 and 100"],
  [
    "recipients status",
    (c) => c.listCampaignRecipients(1, { status: "bounced" as never }),
    "status must be one of pending, sending, sent",
  ],
  ["recipients page", (c) => c.listCampaignRecipients(1, { page: 0 }), "page must be at least 1"],
  // chat users: each list filter given a value it refuses
  ...(
    [
      ["type", "sms", "type must be one of chat_web, phonechat, messenger, slack, telegram"],
      ["sortBy", "age", "sortBy must be one of name, email, phone"],
      ["sortOrder", "asc", "sortOrder must be one of ASC, DESC"],
      ["needHuman", 1, "needHuman must be true or false"],
      ["hasUnreadMessages", "no", "hasUnreadMessages must be true or false"],
      ["includeMessages", "all", "includeMessages must be true or false"],
      ["dateFrom", "01/05/2026", "dateFrom must be an ISO 8601 date or date-time"],
      ["dateTo", "soon", "dateTo must be an ISO 8601 date or date-time"],
    ] as const
  ).map(([filter, value, expected]): [string, Call, string] => [
    `chat users ${filter}`,
    (c) => c.listChatUsers({ [filter]: value } as never),
    expected,
  ]),
  ["chat users limit", (c) => c.listChatUsers({ limit: 1000 }), "limit must be between 1 and 100"],
  [
    "chat user email",
    (c) => c.updateChatUser(1, { standardFields: { email: "x@" } }),
    "standardFields.email must be an e-mail address",
  ],
  [
    "chat user phone",
    (c) => c.updateChatUser(1, { standardFields: { phone: "12" } }),
    "standardFields.phone must be a phone number",
  ],
  [
    "chat user avatar",
    (c) => c.updateChatUser(1, { standardFields: { avatar: "not a url" } }),
    "standardFields.avatar must be an http or https URL",
  ],
  [
    "chat user unknown standard field",
    (c) => c.updateChatUser(1, { standardFields: { nickname: "x" } as never }),
    "standardFields.nickname is not a member",
  ],
  [
    "chat user custom values",
    (c) => c.updateChatUser(1, { customFields: { tier: 3 as never } }),
    "custom field values must be texts",
  ],
  [
    "chat user update empty",
    (c) => c.updateChatUser(1, { standardFields: {} }),
    "give at least one member to change",
  ],
];

describe("every validation rule is refused before any request", () => {
  let guarded: MessagingClient;
  beforeAll(() => {
    guarded = client();
  });

  it.each(RULES)("%s", async (_name, call, expected) => {
    const err = (await rejection(call(guarded))) as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toContain(expected);
    expect(err.problems.length).toBeGreaterThan(0);
    expect(err.status).toBeUndefined();
    // Every request takes a token first: none was taken, so none was sent.
    const budget = guarded.budget();
    expect(budget.read.granted).toEqual({ interactive: 0, background: 0 });
    expect(budget.write.granted).toEqual({ interactive: 0, background: 0 });
  });
});

// Each operation once on its own, what it needs made first with the untracked client.
let nth = 0;
/** A phone number and a name no other test uses. */
const fresh = () => ({ phone: `+1415555${9100 + nth}`, name: `Each op ${nth++}` });
const newContact = () => api.createContact({ phone: fresh().phone, first_name: "Each" });
const newGroup = () => api.createGroup({ name: fresh().name });
const newTag = () => api.createTag({ name: fresh().name, color: "#0a0b0c" });
const newField = () => api.createContactField({ key: `each_op_${nth++}`, label: "Each", type: "text" });
const newTemplate = () =>
  api.createTemplate({ ...tpl, name: `each_op_${nth++}`, category: "MARKETING", bodyText: "Each" });
const newCampaign = () =>
  api.createCampaign({ name: fresh().name, integrationId: 1, templateId: 2, contactIds: [1] });
const toAna = async () =>
  api.sendMessage({
    channelId: 1,
    type: "template",
    contactId: (await contactNamed("Ana Lopez")).id!,
    template: { name: "order_update", language: "en", parameters: { first_name: "Ana", order_id: "E-1" } },
  });
const aChatUser = async () => (await api.listChatUsers({ limit: 1 })).items[0]!;

const SUCCEEDS: { [K in OperationName]: (c: MessagingClient) => Promise<unknown> } = {
  getMe: (c) => c.getMe(),
  sendMessage: async (c) =>
    c.sendMessage({
      channelId: 1,
      type: "template",
      contactId: (await contactNamed("Ana Lopez")).id!,
      template: { name: "order_update", language: "en", parameters: { first_name: "Ana", order_id: "E-2" } },
    }),
  getMessage: async (c) => c.getMessage((await toAna()).id!),
  listConversationMessages: async (c) => c.listConversationMessages(Number((await toAna()).conversationId)),
  listContacts: (c) => c.listContacts({ limit: 1 }),
  createContact: (c) => c.createContact({ phone: fresh().phone, first_name: "Each" }),
  getContact: async (c) => c.getContact((await newContact()).id!),
  updateContact: async (c) => c.updateContact((await newContact()).id!, { last_name: "Op" }),
  deleteContact: async (c) => c.deleteContact((await newContact()).id!),
  optOutContact: async (c) => c.optOutContact((await newContact()).id!),
  optInContact: async (c) => c.optInContact((await newContact()).id!),
  importContacts: (c) =>
    c.importContacts(
      { filename: "each.csv", body: new TextEncoder().encode(`phone,first_name\n${fresh().phone},Each\n`) },
      { updateExisting: false },
    ),
  listContactFields: (c) => c.listContactFields(),
  createContactField: (c) => c.createContactField({ key: `each_op_${nth++}`, label: "Each", type: "text" }),
  updateContactField: async (c) => c.updateContactField((await newField()).id!, { label: "Each op" }),
  deleteContactField: async (c) => c.deleteContactField((await newField()).id!),
  listGroups: (c) => c.listGroups(),
  createGroup: (c) => c.createGroup({ name: fresh().name }),
  getGroup: async (c) => c.getGroup((await newGroup()).id!),
  updateGroup: async (c) => c.updateGroup((await newGroup()).id!, { description: "each" }),
  deleteGroup: async (c) => c.deleteGroup((await newGroup()).id!),
  addGroupContacts: async (c) => c.addGroupContacts((await newGroup()).id!, [(await newContact()).id!]),
  removeGroupContacts: async (c) => {
    const [group, contact] = [await newGroup(), await newContact()];
    await api.addGroupContacts(group.id!, [contact.id!]);
    return c.removeGroupContacts(group.id!, [contact.id!]);
  },
  listTags: (c) => c.listTags(),
  createTag: (c) => c.createTag({ name: fresh().name, color: "#0a0b0c" }),
  getTag: async (c) => c.getTag((await newTag()).id!),
  updateTag: async (c) => c.updateTag((await newTag()).id!, { color: "#0c0b0a" }),
  deleteTag: async (c) => c.deleteTag((await newTag()).id!),
  listTemplates: (c) => c.listTemplates(),
  createTemplate: (c) => c.createTemplate({ ...tpl, name: `each_op_${nth++}`, category: "MARKETING" }),
  syncTemplates: (c) => c.syncTemplates(1),
  getTemplate: async (c) => c.getTemplate((await newTemplate()).id!),
  deleteTemplate: async (c) => c.deleteTemplate((await newTemplate()).id!),
  listCampaigns: (c) => c.listCampaigns(),
  createCampaign: (c) =>
    c.createCampaign({ name: fresh().name, integrationId: 1, templateId: 2, contactIds: [1] }),
  getCampaign: async (c) => c.getCampaign((await newCampaign()).id!),
  listCampaignRecipients: async (c) => c.listCampaignRecipients((await newCampaign()).id!),
  sendCampaign: async (c) => c.sendCampaign((await newCampaign()).id!),
  cancelCampaign: async (c) => c.cancelCampaign((await newCampaign()).id!),
  listChatUsers: (c) => c.listChatUsers(),
  getChatUser: async (c) => c.getChatUser((await aChatUser()).id!),
  updateChatUser: async (c) =>
    c.updateChatUser((await aChatUser()).id!, { standardFields: { email: "each.op@example.com" } }),
};

describe("every operation", () => {
  it.each(OPERATIONS.map((op) => op.fn))("%s succeeds against the sandbox", async (fn) => {
    const succeeded: string[] = [];
    await SUCCEEDS[fn](tracked(api, succeeded));
    expect(succeeded).toEqual([fn]);
  });
});
