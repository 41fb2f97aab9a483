// Request schemas of the External Messaging API, written once from the spec
// (../shared/spec/external-messaging-api.md) and shared by the client (which
// refuses bad input before any request) and the sandbox (which answers 400).
// Every object is strict: the real service whitelists its input, so an
// unknown member is an error here too, not something silently dropped.
import { parsePhoneNumberFromString } from "libphonenumber-js";
import { z } from "zod";

// ---------------------------------------------------------------- enums

export const MESSAGE_TYPES = ["text", "template", "image", "document"] as const;
export const FIELD_TYPES = ["text", "number", "date", "boolean"] as const;
export const TEMPLATE_CATEGORIES = ["UTILITY", "MARKETING", "AUTHENTICATION"] as const;
export const TEMPLATE_STATUSES = ["pending", "approved", "rejected", "paused", "disabled"] as const;
export const DELETABLE_TEMPLATE_STATUSES = ["pending", "rejected", "disabled"] as const;
export const BUTTON_TYPES = ["QUICK_REPLY", "URL"] as const;
export const CAMPAIGN_STATUSES = [
  "draft",
  "scheduled",
  "running",
  "paused",
  "completed",
  "failed",
  "cancelled",
] as const;
export const RECIPIENT_STATUSES = [
  "pending",
  "sending",
  "sent",
  "delivered",
  "read",
  "failed",
  "skipped",
] as const;
export const CHAT_USER_TYPES = ["chat_web", "phonechat", "messenger", "slack", "telegram"] as const;
export const CHAT_USER_SORT_FIELDS = [
  "name",
  "email",
  "phone",
  "last_login",
  "created_at",
  "last_activity",
] as const;
export const SORT_ORDERS = ["ASC", "DESC"] as const;

export type MessageType = (typeof MESSAGE_TYPES)[number];
export type FieldType = (typeof FIELD_TYPES)[number];
export type TemplateCategory = (typeof TEMPLATE_CATEGORIES)[number];
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export type RecipientStatus = (typeof RECIPIENT_STATUSES)[number];
export type ChatUserType = (typeof CHAT_USER_TYPES)[number];

const oneOf = (values: readonly string[]) => `must be one of ${values.join(", ")}`;
const enumOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: () => oneOf(values) });

// ---------------------------------------------------------------- scalars

const DECIMAL = /^\s*-?\d+\s*$/;

/**
 * A whole number from a number or from text of plain decimal digits. Unlike
 * z.coerce.number(), text such as `0x10`, `1e1`, `0b1`, `1.0` or `Infinity`
 * is refused, not read as 16, 10, 1 or a huge number.
 */
export const wholeNumber = () =>
  z.preprocess(
    (v) => (typeof v === "string" && DECIMAL.test(v) ? Number(v) : v),
    z
      .number({ error: "must be a number written in decimal digits (0-9), for example 12" })
      .int({ error: "must be a whole number" }),
  );

export const idSchema = wholeNumber().pipe(z.number().positive({ error: "must be a positive number" }));

/** Normalizes a phone number to E.164, or returns undefined when it cannot be one. */
export function toE164(raw: string, defaultCountry?: string): string | undefined {
  let text = raw.trim();
  if (text.startsWith("00")) text = `+${text.slice(2)}`;
  const digits = text.replace(/[\s().\-/]/g, "");
  if (!/^\+?\d+$/.test(digits)) return undefined;
  const parsed = parsePhoneNumberFromString(
    digits,
    // biome-ignore lint/suspicious/noExplicitAny: CountryCode is a string union of libphonenumber-js.
    defaultCountry && !digits.startsWith("+") ? { defaultCountry: defaultCountry as any } : undefined,
  );
  if (!parsed?.isPossible()) return undefined;
  const e164 = parsed.number;
  return /^\+[1-9]\d{6,14}$/.test(e164) ? e164 : undefined;
}

export const phoneSchema = z.string({ error: "must be a phone number" }).transform((value, ctx) => {
  const e164 = toE164(value);
  if (!e164) {
    ctx.addIssue({
      code: "custom",
      message: "must be a phone number in E.164 format with its country code, for example +14155550123",
    });
    return z.NEVER;
  }
  return e164;
});

export const colorSchema = z
  .string({ error: "must be a colour" })
  .regex(/^#[0-9A-Fa-f]{6}$/, { error: "must be a hexadecimal colour written #RRGGBB, for example #1D9BD1" })
  .transform((c) => c.toUpperCase());

export const fieldKeySchema = z.string({ error: "must be a text" }).regex(/^[a-z0-9_]+$/, {
  error: "must be a lower-case slug of a-z, 0-9 and underscore, for example loyalty_tier",
});

export const isoDateTimeSchema = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time, for example 2026-05-01T09:30:00Z",
});

/** ISO 8601 date or date-time (the chat-user date range says only "ISO 8601"). */
export const isoDateOrDateTimeSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: "must be an ISO 8601 date or date-time, for example 2026-05-01 or 2026-05-01T09:30:00Z",
});

const nonEmpty = (what = "text") =>
  z
    .string({ error: `must be a ${what}` })
    .trim()
    .min(1, { error: "must not be empty" });

export const emailSchema = z.email({ error: "must be an e-mail address, for example ana@example.com" });
export const urlSchema = z.url({ protocol: /^https?$/, error: "must be an http or https URL" });

/** Booleans arrive as JSON booleans from the client and as "true"/"false" in a query string. */
export const queryBooleanSchema = z.preprocess(
  (v) => (v === "true" ? true : v === "false" ? false : v),
  z.boolean({ error: "must be true or false" }),
);

export const pageSchema = wholeNumber().pipe(z.number().min(1, { error: "must be at least 1" }));

export const limitSchema = wholeNumber().pipe(
  z.number().min(1, { error: "must be between 1 and 100" }).max(100, { error: "must be between 1 and 100" }),
);

export const pagingShape = (defaultLimit = 20) => ({
  page: pageSchema.default(1),
  limit: limitSchema.default(defaultLimit),
});

/** Template names are normalized by the service to lower case with underscores. */
export function normalizeTemplateName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** Named placeholders of a template body, in order of first appearance. */
export function placeholdersOf(body: string): string[] {
  const names: string[] = [];
  for (const m of body.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

const atLeastOne = (obj: Record<string, unknown>) => Object.values(obj).some((v) => v !== undefined);
// Only worth saying when nothing else is wrong (an unknown member is the better message).
const nothingToUpdate = {
  error: "give at least one member to change",
  when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0,
};

// ---------------------------------------------------------------- messages

export const templatePayloadSchema = z.strictObject({
  name: nonEmpty(),
  language: nonEmpty(),
  parameters: z.record(z.string(), z.string({ error: "parameter values must be texts" })).optional(),
});

export const sendMessageSchema = z
  .strictObject({
    channelId: idSchema,
    type: enumOf(MESSAGE_TYPES),
    to: phoneSchema.optional(),
    contactId: idSchema.optional(),
    chatUserId: idSchema.optional(),
    text: z.string({ error: "must be a text" }).optional(),
    template: templatePayloadSchema.optional(),
    mediaUrl: urlSchema.optional(),
    assignToHuman: z.boolean({ error: "must be true or false" }).optional(),
    metadata: z.record(z.string(), z.unknown(), { error: "must be an object" }).optional(),
  })
  .superRefine((m, ctx) => {
    const recipients = [m.to, m.contactId, m.chatUserId].filter((v) => v !== undefined).length;
    if (recipients !== 1) {
      ctx.addIssue({
        code: "custom",
        path: [m.to !== undefined || recipients === 0 ? "to" : "contactId"],
        message:
          recipients === 0
            ? "is required unless contactId or chatUserId is given: a message needs exactly one recipient"
            : "must not be combined with another recipient: give exactly one of to, contactId or chatUserId",
      });
    }
    if (m.type === "template" && !m.template) {
      ctx.addIssue({ code: "custom", path: ["template"], message: "is required when type is template" });
    }
    if (m.type !== "template" && m.template) {
      ctx.addIssue({ code: "custom", path: ["template"], message: "is only for messages of type template" });
    }
    if ((m.type === "image" || m.type === "document") && !m.mediaUrl) {
      ctx.addIssue({ code: "custom", path: ["mediaUrl"], message: `is required when type is ${m.type}` });
    }
    if ((m.type === "text" || m.type === "template") && m.mediaUrl) {
      ctx.addIssue({
        code: "custom",
        path: ["mediaUrl"],
        message: "is only for image and document messages",
      });
    }
    if (m.type === "text" && !m.text?.trim()) {
      ctx.addIssue({ code: "custom", path: ["text"], message: "is required when type is text" });
    }
  });

export const conversationHistoryQuerySchema = z.strictObject({
  ...pagingShape(20),
  before: isoDateTimeSchema.optional(),
  after: isoDateTimeSchema.optional(),
});

// ---------------------------------------------------------------- contacts

export const customFieldValuesSchema = z.record(
  fieldKeySchema,
  z.union([z.string(), z.number(), z.boolean(), z.null()], {
    error: "values must be text, number or boolean",
  }),
);

export const createContactSchema = z.strictObject({
  phone: phoneSchema,
  first_name: z.string({ error: "must be a text" }).optional(),
  last_name: z.string({ error: "must be a text" }).optional(),
  email: emailSchema.optional(),
  custom_fields: customFieldValuesSchema.optional(),
});

export const updateContactSchema = createContactSchema.partial().refine(atLeastOne, nothingToUpdate);

export const listContactsQuerySchema = z.strictObject({
  ...pagingShape(20),
  search: z.string().trim().min(1, { error: "must not be empty" }).optional(),
  groupId: idSchema.optional(),
  optedOut: queryBooleanSchema.optional(),
});

/** Multipart text fields of POST /contacts/import (the file travels beside them). */
export const importContactsFieldsSchema = z.strictObject({
  groupId: idSchema.optional(),
  updateExisting: queryBooleanSchema,
});

// ---------------------------------------------------------------- contact fields

export const createContactFieldSchema = z.strictObject({
  key: fieldKeySchema,
  label: nonEmpty(),
  type: enumOf(FIELD_TYPES).optional(),
  position: z.number({ error: "must be a number" }).int({ error: "must be a whole number" }).optional(),
});

export const updateContactFieldSchema = z
  .strictObject({
    key: z.never({ error: "cannot be changed: a field's key is immutable" }).optional(),
    label: nonEmpty().optional(),
    type: enumOf(FIELD_TYPES).optional(),
    position: z.number({ error: "must be a number" }).int({ error: "must be a whole number" }).optional(),
  })
  .refine(atLeastOne, nothingToUpdate);

// ---------------------------------------------------------------- groups

export const createGroupSchema = z.strictObject({
  name: nonEmpty(),
  description: z.string({ error: "must be a text" }).optional(),
});

export const updateGroupSchema = createGroupSchema.partial().refine(atLeastOne, nothingToUpdate);

export const groupMembersSchema = z.strictObject({
  contactIds: z
    .array(idSchema, { error: "must be a list of contact ids" })
    .min(1, { error: "must name at least one contact" })
    .refine((ids) => new Set(ids).size === ids.length, { error: "must not repeat a contact id" }),
});

// ---------------------------------------------------------------- tags

export const createTagSchema = z.strictObject({
  name: nonEmpty(),
  color: colorSchema,
  description: z.string({ error: "must be a text" }).optional(),
});

export const updateTagSchema = createTagSchema.partial().refine(atLeastOne, nothingToUpdate);

// ---------------------------------------------------------------- templates

export const templateButtonSchema = z
  .strictObject({
    type: enumOf(BUTTON_TYPES),
    text: nonEmpty().max(25, { error: "must be at most 25 characters" }),
    url: urlSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.type === "URL" && !b.url)
      ctx.addIssue({ code: "custom", path: ["url"], message: "is required on a URL button" });
    if (b.type !== "URL" && b.url !== undefined) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "is only allowed on URL buttons" });
    }
  });

export const templateNameSchema = nonEmpty()
  .transform(normalizeTemplateName)
  .refine((n) => n.length > 0, { error: "must contain letters or digits" });

export const createTemplateSchema = z
  .strictObject({
    integrationId: idSchema,
    name: templateNameSchema,
    language: z
      .string({ error: "must be a language code" })
      .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { error: "must be a language code such as en or pt_BR" }),
    category: enumOf(TEMPLATE_CATEGORIES),
    bodyText: nonEmpty(),
    bodyExamples: z.record(z.string(), z.string({ error: "examples must be texts" })).optional(),
    footerText: z
      .string({ error: "must be a text" })
      .max(60, { error: "must be at most 60 characters" })
      .refine((f) => !/\{\{.*?\}\}/.test(f), { error: "must not contain placeholders" })
      .optional(),
    buttons: z
      .array(templateButtonSchema, { error: "must be a list of buttons" })
      .max(10, { error: "must have at most 10 buttons" })
      .optional(),
  })
  .superRefine((t, ctx) => {
    if (!t.bodyExamples) return;
    const names = placeholdersOf(t.bodyText);
    for (const key of Object.keys(t.bodyExamples)) {
      if (!names.includes(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["bodyExamples", key],
          message: `is not a placeholder of the body (placeholders: ${names.join(", ") || "none"})`,
        });
      }
    }
    for (const name of names) {
      if (!(name in t.bodyExamples)) {
        ctx.addIssue({ code: "custom", path: ["bodyExamples", name], message: "needs an example value" });
      }
    }
  });

export const listTemplatesQuerySchema = z.strictObject({
  channelId: idSchema.optional(),
  status: enumOf(TEMPLATE_STATUSES).optional(),
});

export const syncTemplatesSchema = z.strictObject({ channelId: idSchema });

// ---------------------------------------------------------------- campaigns

/**
 * Members of a campaign create body that the spec does not name. The spec shows
 * name, integrationId, templateId and conversationTagId and says the rest is
 * "not shown"; these members are a guess at how the real API takes a
 * campaign's audience, the values of its template's placeholders and a start
 * time (docs/sandbox.md, "Campaign"). They are offered, never required: the
 * spec's documented body alone is a valid campaign. This is the one place that
 * names them.
 */
export const CAMPAIGN_EXTRA_MEMBERS = [
  "groupIds",
  "contactIds",
  "templateParameters",
  "scheduledAt",
] as const;

export const createCampaignSchema = z.strictObject({
  name: nonEmpty(),
  integrationId: idSchema,
  templateId: idSchema,
  conversationTagId: idSchema.optional(),
  groupIds: z.array(idSchema, { error: "must be a list of group ids" }).optional(),
  contactIds: z.array(idSchema, { error: "must be a list of contact ids" }).optional(),
  templateParameters: z.record(z.string(), z.string({ error: "parameter values must be texts" })).optional(),
  scheduledAt: isoDateTimeSchema.optional(),
});

export const listCampaignsQuerySchema = z.strictObject({
  ...pagingShape(20),
  status: enumOf(CAMPAIGN_STATUSES).optional(),
});

export const listRecipientsQuerySchema = z.strictObject({
  ...pagingShape(50),
  status: enumOf(RECIPIENT_STATUSES).optional(),
});

// ---------------------------------------------------------------- chat users

export const listChatUsersQuerySchema = z.strictObject({
  ...pagingShape(20),
  search: z.string().trim().min(1, { error: "must not be empty" }).optional(),
  type: enumOf(CHAT_USER_TYPES).optional(),
  sortBy: enumOf(CHAT_USER_SORT_FIELDS).optional(),
  sortOrder: enumOf(SORT_ORDERS).optional(),
  needHuman: queryBooleanSchema.optional(),
  hasUnreadMessages: queryBooleanSchema.optional(),
  dateFrom: isoDateOrDateTimeSchema.optional(),
  dateTo: isoDateOrDateTimeSchema.optional(),
  includeMessages: queryBooleanSchema.optional(),
});

export const updateChatUserSchema = z
  .strictObject({
    standardFields: z
      .strictObject({
        name: z.string({ error: "must be a text" }).optional(),
        email: emailSchema.optional(),
        phone: phoneSchema.optional(),
        address: z.string({ error: "must be a text" }).optional(),
        avatar: urlSchema.optional(),
      })
      .optional(),
    customFields: z.record(z.string(), z.string({ error: "custom field values must be texts" })).optional(),
  })
  .refine((u) => atLeastOne({ ...u.standardFields, ...u.customFields }), nothingToUpdate);

// ---------------------------------------------------------------- inferred types

export type SendMessageInput = z.input<typeof sendMessageSchema>;
export type ConversationHistoryQuery = z.input<typeof conversationHistoryQuerySchema>;
export type CreateContactInput = z.input<typeof createContactSchema>;
export type UpdateContactInput = z.input<typeof updateContactSchema>;
export type ListContactsQuery = z.input<typeof listContactsQuerySchema>;
export type ImportContactsFields = z.input<typeof importContactsFieldsSchema>;
export type CreateContactFieldInput = z.input<typeof createContactFieldSchema>;
export type UpdateContactFieldInput = Omit<z.input<typeof updateContactFieldSchema>, "key">;
export type CreateGroupInput = z.input<typeof createGroupSchema>;
export type UpdateGroupInput = z.input<typeof updateGroupSchema>;
export type GroupMembersInput = z.input<typeof groupMembersSchema>;
export type CreateTagInput = z.input<typeof createTagSchema>;
export type UpdateTagInput = z.input<typeof updateTagSchema>;
export type CreateTemplateInput = z.input<typeof createTemplateSchema>;
export type ListTemplatesQuery = z.input<typeof listTemplatesQuerySchema>;
export type SyncTemplatesInput = z.input<typeof syncTemplatesSchema>;
export type CreateCampaignInput = z.input<typeof createCampaignSchema>;
export type ListCampaignsQuery = z.input<typeof listCampaignsQuerySchema>;
export type ListRecipientsQuery = z.input<typeof listRecipientsQuerySchema>;
export type ListChatUsersQuery = z.input<typeof listChatUsersQuerySchema>;
export type UpdateChatUserInput = z.input<typeof updateChatUserSchema>;

// ---------------------------------------------------------------- plain-words errors

export interface FieldProblem {
  /** Dotted path of the member, for example `template.name` or `buttons.2.text`. */
  field: string;
  /** The rule, in plain words. */
  rule: string;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Turns a zod error into one problem per field, each naming the field and the
 * rule. Pass the input that was parsed so a missing member reads "is required".
 */
export function describeIssues(error: z.ZodError, input?: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const base = issue.path.join(".");
      for (const key of issue.keys) {
        problems.push({
          field: base ? `${base}.${key}` : key,
          rule: "is not a member this operation accepts",
        });
      }
      continue;
    }
    if (issue.code === "invalid_key") {
      problems.push({
        field: issue.path.join("."),
        rule: `is not a valid key: ${issue.issues[0]?.message ?? issue.message}`,
      });
      continue;
    }
    let rule = issue.message;
    if (issue.code === "invalid_type" && input !== undefined && valueAt(input, issue.path) === undefined) {
      rule = "is required";
    }
    problems.push({ field: issue.path.join(".") || "(body)", rule });
  }
  return problems;
}

export function formatProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field} ${p.rule}`).join("; ");
}
