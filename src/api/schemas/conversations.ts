// Messages, conversation history and chat users.
import { z } from "zod";
import { CHAT_USER_SORT_FIELDS, CHAT_USER_TYPES, MESSAGE_TYPES, SORT_ORDERS } from "./enums.ts";
import { atLeastOne, enumOf, nonEmpty, nothingToUpdate } from "./rules.ts";
import {
  emailSchema,
  idSchema,
  isoDateOrDateTimeSchema,
  isoDateTimeSchema,
  pagingShape,
  phoneSchema,
  queryBooleanSchema,
  urlSchema,
} from "./scalars.ts";

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

export type SendMessageInput = z.input<typeof sendMessageSchema>;
export type ConversationHistoryQuery = z.input<typeof conversationHistoryQuerySchema>;
export type ListChatUsersQuery = z.input<typeof listChatUsersQuerySchema>;
export type UpdateChatUserInput = z.input<typeof updateChatUserSchema>;
