// The request rules written once from the spec. The client refuses with them
// before any request and the sandbox answers 400 with them; here each rule is
// checked on its own, with the plain-words message a user will read.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import * as s from "../src/api/schemas.ts";

function problems(schema: z.ZodType, input: unknown): string[] {
  const r = schema.safeParse(input);
  if (r.success) return [];
  return s.describeIssues(r.error, input).map((p) => `${p.field} ${p.rule}`);
}
const ok = (schema: z.ZodType, input: unknown) => schema.parse(input);

describe("phones", () => {
  it("normalizes to E.164", () => {
    expect(s.toE164("+1 (415) 555-0123")).toBe("+14155550123");
    expect(s.toE164("0044 20 7946 0958")).toBe("+442079460958");
    expect(s.toE164("415 555 0123", "US")).toBe("+14155550123");
  });
  it.each(["", "hello", "+12", "12345", "+1 415 555 0123 ext 4"])("refuses %j as a phone number", (bad) => {
    expect(s.toE164(bad)).toBeUndefined();
  });
  it("says what a phone number must be", () => {
    expect(problems(s.createContactSchema, { phone: "call me" })).toEqual([
      "phone must be a phone number in E.164 format with its country code, for example +14155550123",
    ]);
  });
});

describe("messages", () => {
  const base = { channelId: 1, type: "text", text: "hi" };
  it("needs exactly one recipient", () => {
    expect(problems(s.sendMessageSchema, base)[0]).toMatch(/^to is required unless contactId or chatUserId/);
    expect(problems(s.sendMessageSchema, { ...base, to: "+14155550123", contactId: 2 })[0]).toMatch(
      /exactly one of to, contactId or chatUserId/,
    );
    expect(problems(s.sendMessageSchema, { ...base, contactId: 2, chatUserId: 3 })[0]).toMatch(
      /^contactId must not/,
    );
    expect(ok(s.sendMessageSchema, { ...base, chatUserId: 3 })).toMatchObject({ chatUserId: 3 });
  });
  it("needs a template for type template, media for image and document", () => {
    expect(problems(s.sendMessageSchema, { channelId: 1, type: "template", contactId: 1 })).toEqual([
      "template is required when type is template",
    ]);
    expect(problems(s.sendMessageSchema, { channelId: 1, type: "image", contactId: 1 })).toEqual([
      "mediaUrl is required when type is image",
    ]);
    expect(
      problems(s.sendMessageSchema, { channelId: 1, type: "document", contactId: 1, mediaUrl: "ftp://x" }),
    ).toEqual(["mediaUrl must be an http or https URL"]);
    expect(
      problems(s.sendMessageSchema, { ...base, contactId: 1, template: { name: "a", language: "en" } }),
    ).toEqual(["template is only for messages of type template"]);
  });
  it("refuses members the spec does not name, and bad enums", () => {
    expect(problems(s.sendMessageSchema, { ...base, contactId: 1, priority: "high" })).toEqual([
      "priority is not a member this operation accepts",
    ]);
    expect(problems(s.sendMessageSchema, { ...base, contactId: 1, type: "video" })).toEqual([
      "type must be one of text, template, image, document",
    ]);
  });
  it("checks history dates as ISO 8601", () => {
    expect(problems(s.conversationHistoryQuerySchema, { before: "yesterday" })[0]).toMatch(
      /^before must be an ISO 8601/,
    );
    expect(ok(s.conversationHistoryQuerySchema, { after: "2026-01-01T00:00:00Z" })).toMatchObject({
      page: 1,
      limit: 20,
    });
  });
});

describe("pages", () => {
  it("keeps page at least 1 and limit 1 to 100, with each list's own default", () => {
    expect(problems(s.listContactsQuerySchema, { page: 0 })).toEqual(["page must be at least 1"]);
    expect(problems(s.listContactsQuerySchema, { limit: 101 })).toEqual(["limit must be between 1 and 100"]);
    expect(problems(s.listContactsQuerySchema, { limit: 2.5 })).toEqual(["limit must be a whole number"]);
    expect(ok(s.listContactsQuerySchema, {})).toEqual({ page: 1, limit: 20 });
    expect(ok(s.listRecipientsQuerySchema, {})).toEqual({ page: 1, limit: 50 });
    expect(ok(s.listCampaignsQuerySchema, { page: "3" })).toEqual({ page: 3, limit: 20 });
  });
  it("reads booleans from a query string", () => {
    expect(ok(s.listContactsQuerySchema, { optedOut: "false" })).toMatchObject({ optedOut: false });
    expect(problems(s.listContactsQuerySchema, { optedOut: "maybe" })).toEqual([
      "optedOut must be true or false",
    ]);
  });
});

describe("contacts, fields, groups, tags", () => {
  it("checks e-mail and custom field keys", () => {
    expect(problems(s.createContactSchema, { phone: "+14155550123", email: "nope" })[0]).toMatch(
      /^email must be an e-mail/,
    );
    expect(
      problems(s.createContactSchema, { phone: "+14155550123", custom_fields: { "Tier!": "a" } })[0],
    ).toMatch(/lower-case slug/);
  });
  it("needs something to update", () => {
    expect(problems(s.updateContactSchema, {})).toEqual(["(body) give at least one member to change"]);
    expect(problems(s.updateTagSchema, {})).toEqual(["(body) give at least one member to change"]);
  });
  it("keeps field keys as lower-case slugs, immutable", () => {
    expect(problems(s.createContactFieldSchema, { key: "Loyalty Tier", label: "Tier" })[0]).toMatch(
      /^key must be a lower-case slug/,
    );
    expect(problems(s.createContactFieldSchema, { key: "tier", label: "Tier", type: "money" })).toEqual([
      "type must be one of text, number, date, boolean",
    ]);
    expect(problems(s.updateContactFieldSchema, { key: "other", label: "x" })).toEqual([
      "key cannot be changed: a field's key is immutable",
    ]);
  });
  it("checks group members", () => {
    expect(problems(s.groupMembersSchema, { contactIds: [] })).toEqual([
      "contactIds must name at least one contact",
    ]);
    expect(problems(s.groupMembersSchema, { contactIds: [1, 1] })).toEqual([
      "contactIds must not repeat a contact id",
    ]);
    expect(problems(s.groupMembersSchema, { contactIds: [1, -2] })).toEqual([
      "contactIds.1 must be a positive number",
    ]);
  });
  it("checks tag colours as #RRGGBB", () => {
    expect(problems(s.createTagSchema, { name: "VIP", color: "#12345" })[0]).toMatch(
      /^color must be a hexadecimal colour/,
    );
    expect(problems(s.createTagSchema, { name: "VIP" })).toEqual(["color is required"]);
    expect(ok(s.createTagSchema, { name: "VIP", color: "#a1b2c3" })).toMatchObject({ color: "#A1B2C3" });
  });
});

describe("templates", () => {
  const base = {
    integrationId: 1,
    name: "Order Update",
    language: "en",
    category: "UTILITY",
    bodyText: "Hi {{name}}",
  };
  it("normalizes the name to lower case with underscores", () => {
    expect(s.normalizeTemplateName("  Order Update - v2! ")).toBe("order_update_v2");
    expect(ok(s.createTemplateSchema, base)).toMatchObject({ name: "order_update" });
    expect(problems(s.createTemplateSchema, { ...base, name: "!!!" })).toEqual([
      "name must contain letters or digits",
    ]);
  });
  it("limits the footer to 60 characters without placeholders", () => {
    expect(problems(s.createTemplateSchema, { ...base, footerText: "x".repeat(61) })).toEqual([
      "footerText must be at most 60 characters",
    ]);
    expect(problems(s.createTemplateSchema, { ...base, footerText: "Hi {{name}}" })).toEqual([
      "footerText must not contain placeholders",
    ]);
  });
  it("allows at most 10 buttons of at most 25 characters, url only on URL buttons", () => {
    const qr = { type: "QUICK_REPLY", text: "Yes" };
    expect(problems(s.createTemplateSchema, { ...base, buttons: Array(11).fill(qr) })).toEqual([
      "buttons must have at most 10 buttons",
    ]);
    expect(problems(s.createTemplateSchema, { ...base, buttons: [{ ...qr, text: "y".repeat(26) }] })).toEqual(
      ["buttons.0.text must be at most 25 characters"],
    );
    expect(
      problems(s.createTemplateSchema, { ...base, buttons: [{ ...qr, url: "https://x.test" }] }),
    ).toEqual(["buttons.0.url is only allowed on URL buttons"]);
    expect(problems(s.createTemplateSchema, { ...base, buttons: [{ type: "URL", text: "Open" }] })).toEqual([
      "buttons.0.url is required on a URL button",
    ]);
  });
  it("matches body examples to placeholders", () => {
    expect(s.placeholdersOf("Hi {{name}}, order {{ order_id }} for {{name}}")).toEqual(["name", "order_id"]);
    expect(problems(s.createTemplateSchema, { ...base, bodyExamples: { nme: "Ana" } })).toEqual([
      "bodyExamples.nme is not a placeholder of the body (placeholders: name)",
      "bodyExamples.name needs an example value",
    ]);
  });
  it("checks the category and status enums", () => {
    expect(problems(s.createTemplateSchema, { ...base, category: "PROMO" })).toEqual([
      "category must be one of UTILITY, MARKETING, AUTHENTICATION",
    ]);
    expect(problems(s.listTemplatesQuerySchema, { status: "live" })).toEqual([
      "status must be one of pending, approved, rejected, paused, disabled",
    ]);
  });
});

describe("campaigns and chat users", () => {
  it("takes the spec's documented campaign body alone (the audience is offered), and checks status enums", () => {
    expect(problems(s.createCampaignSchema, { name: "Spring", integrationId: 1, templateId: 2 })).toEqual([]);
    expect(
      problems(s.createCampaignSchema, {
        name: "Spring",
        integrationId: 1,
        templateId: 2,
        conversationTagId: 3,
      }),
    ).toEqual([]);
    expect(problems(s.listRecipientsQuerySchema, { status: "bounced" })[0]).toMatch(
      /^status must be one of pending, sending/,
    );
    expect(problems(s.listCampaignsQuerySchema, { status: "done" })[0]).toMatch(
      /^status must be one of draft, scheduled/,
    );
  });
  it("checks chat-user filters and updates", () => {
    expect(problems(s.listChatUsersQuerySchema, { sortOrder: "up" })).toEqual([
      "sortOrder must be one of ASC, DESC",
    ]);
    expect(problems(s.listChatUsersQuerySchema, { type: "sms" })[0]).toMatch(/^type must be one of chat_web/);
    expect(ok(s.listChatUsersQuerySchema, { dateFrom: "2026-01-01", needHuman: "true" })).toMatchObject({
      needHuman: true,
    });
    expect(problems(s.updateChatUserSchema, { standardFields: {} })).toEqual([
      "(body) give at least one member to change",
    ]);
    expect(problems(s.updateChatUserSchema, { standardFields: { nickname: "x" } })).toEqual([
      "standardFields.nickname is not a member this operation accepts",
    ]);
  });
});
