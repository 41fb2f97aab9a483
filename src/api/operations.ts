// The 42 operations of the External Messaging API, each described once as
// data: method, path, scope (from the method), success status, the request
// schemas of schemas.ts, and how the answer reads. The client performs an
// operation from its row (client.ts has one line per operation), docs/api.md
// renders the table (operations-table.ts), and tests check that the client has
// every function and the sandbox every route.
import type { z } from "zod";
import {
  conversationHistoryQuerySchema,
  createCampaignSchema,
  createContactFieldSchema,
  createContactSchema,
  createGroupSchema,
  createTagSchema,
  createTemplateSchema,
  groupMembersSchema,
  importContactsFieldsSchema,
  listCampaignsQuerySchema,
  listChatUsersQuerySchema,
  listContactsQuerySchema,
  listRecipientsQuerySchema,
  listTemplatesQuerySchema,
  sendMessageSchema,
  syncTemplatesSchema,
  updateChatUserSchema,
  updateContactFieldSchema,
  updateContactSchema,
  updateGroupSchema,
  updateTagSchema,
} from "./schemas.ts";

export type Scope = "read" | "write";
export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

/**
 * One operation. A client function takes, in this order: the path id when the
 * path has `{id}`, then the body or the query when there is one, then the call
 * options (lane, signal).
 */
export interface Operation {
  /** Name of the client function (MessagingApi method). */
  fn: string;
  method: HttpMethod;
  /** Path relative to the base URL (which ends with /v1); `{id}` is a number. */
  path: string;
  /** Success status the spec gives. */
  status: 200 | 201;
  summary: string;
  /** Name of the path id in error messages, when it is not `id`. */
  idName?: string;
  /** Schema of the JSON body. */
  body?: z.ZodType;
  /** The body's one member, when the function takes that member alone: `addGroupContacts(5, [1, 2])`. */
  member?: string;
  /** Schema of the query string (the function's query argument may be left out). */
  query?: z.ZodType;
  /** Schema of the text fields of a multipart body, beside the file (a hand-written function). */
  form?: z.ZodType;
  /** How a 2xx answer reads: one record (the default) or a page of a list (src/api/pages.ts). */
  answer?: "page";
}

export const OPERATIONS = [
  {
    fn: "getMe",
    method: "GET",
    path: "/me",
    status: 200,
    summary: "Organization, plan and API key of the caller",
  },

  {
    fn: "sendMessage",
    method: "POST",
    path: "/messages",
    status: 201,
    summary: "Send a text, template, image or document",
    body: sendMessageSchema,
  },
  { fn: "getMessage", method: "GET", path: "/messages/{id}", status: 200, summary: "Status of one message" },
  {
    fn: "listConversationMessages",
    method: "GET",
    path: "/conversations/{id}/messages",
    status: 200,
    summary: "Messages of a conversation, newest first",
    idName: "conversationId",
    query: conversationHistoryQuerySchema,
    answer: "page",
  },

  {
    fn: "listContacts",
    method: "GET",
    path: "/contacts",
    status: 200,
    summary: "List and search contacts",
    query: listContactsQuerySchema,
    answer: "page",
  },
  {
    fn: "createContact",
    method: "POST",
    path: "/contacts",
    status: 201,
    summary: "Create a contact",
    body: createContactSchema,
  },
  { fn: "getContact", method: "GET", path: "/contacts/{id}", status: 200, summary: "Read a contact" },
  {
    fn: "updateContact",
    method: "PATCH",
    path: "/contacts/{id}",
    status: 200,
    summary: "Update a contact",
    body: updateContactSchema,
  },
  {
    fn: "deleteContact",
    method: "DELETE",
    path: "/contacts/{id}",
    status: 200,
    summary: "Soft-delete a contact",
  },
  {
    fn: "optOutContact",
    method: "POST",
    path: "/contacts/{id}/opt-out",
    status: 201,
    summary: "Mark a contact opted out",
  },
  {
    fn: "optInContact",
    method: "POST",
    path: "/contacts/{id}/opt-in",
    status: 201,
    summary: "Revert an opt-out",
  },
  {
    fn: "importContacts",
    method: "POST",
    path: "/contacts/import",
    status: 201,
    summary: "Import contacts from a CSV or xlsx file (multipart)",
    form: importContactsFieldsSchema,
  },

  {
    fn: "listContactFields",
    method: "GET",
    path: "/contact-fields",
    status: 200,
    summary: "List custom field definitions",
    answer: "page",
  },
  {
    fn: "createContactField",
    method: "POST",
    path: "/contact-fields",
    status: 201,
    summary: "Create a custom field",
    body: createContactFieldSchema,
  },
  {
    fn: "updateContactField",
    method: "PATCH",
    path: "/contact-fields/{id}",
    status: 200,
    summary: "Update a custom field",
    body: updateContactFieldSchema,
  },
  {
    fn: "deleteContactField",
    method: "DELETE",
    path: "/contact-fields/{id}",
    status: 200,
    summary: "Soft-delete a custom field",
  },

  {
    fn: "listGroups",
    method: "GET",
    path: "/contact-groups",
    status: 200,
    summary: "Groups with member counts",
    answer: "page",
  },
  {
    fn: "createGroup",
    method: "POST",
    path: "/contact-groups",
    status: 201,
    summary: "Create a group",
    body: createGroupSchema,
  },
  { fn: "getGroup", method: "GET", path: "/contact-groups/{id}", status: 200, summary: "Read a group" },
  {
    fn: "updateGroup",
    method: "PATCH",
    path: "/contact-groups/{id}",
    status: 200,
    summary: "Update a group",
    body: updateGroupSchema,
  },
  {
    fn: "deleteGroup",
    method: "DELETE",
    path: "/contact-groups/{id}",
    status: 200,
    summary: "Soft-delete a group",
  },
  {
    fn: "addGroupContacts",
    method: "POST",
    path: "/contact-groups/{id}/contacts",
    status: 201,
    summary: "Add contacts to a group",
    body: groupMembersSchema,
    member: "contactIds",
  },
  {
    fn: "removeGroupContacts",
    method: "DELETE",
    path: "/contact-groups/{id}/contacts",
    status: 200,
    summary: "Remove contacts from a group",
    body: groupMembersSchema,
    member: "contactIds",
  },

  {
    fn: "listTags",
    method: "GET",
    path: "/tags",
    status: 200,
    summary: "List conversation tags",
    answer: "page",
  },
  {
    fn: "createTag",
    method: "POST",
    path: "/tags",
    status: 201,
    summary: "Create a tag",
    body: createTagSchema,
  },
  { fn: "getTag", method: "GET", path: "/tags/{id}", status: 200, summary: "Read a tag" },
  {
    fn: "updateTag",
    method: "PATCH",
    path: "/tags/{id}",
    status: 200,
    summary: "Update a tag",
    body: updateTagSchema,
  },
  { fn: "deleteTag", method: "DELETE", path: "/tags/{id}", status: 200, summary: "Soft-delete a tag" },

  {
    fn: "listTemplates",
    method: "GET",
    path: "/templates",
    status: 200,
    summary: "List templates",
    query: listTemplatesQuerySchema,
    answer: "page",
  },
  {
    fn: "createTemplate",
    method: "POST",
    path: "/templates",
    status: 201,
    summary: "Create a template (submitted for approval)",
    body: createTemplateSchema,
  },
  {
    fn: "syncTemplates",
    method: "POST",
    path: "/templates/sync",
    status: 201,
    summary: "Synchronize a channel's templates",
    body: syncTemplatesSchema,
    member: "channelId",
  },
  { fn: "getTemplate", method: "GET", path: "/templates/{id}", status: 200, summary: "Read a template" },
  {
    fn: "deleteTemplate",
    method: "DELETE",
    path: "/templates/{id}",
    status: 200,
    summary: "Delete a pending, rejected or disabled template",
  },

  {
    fn: "listCampaigns",
    method: "GET",
    path: "/campaigns",
    status: 200,
    summary: "List campaigns",
    query: listCampaignsQuerySchema,
    answer: "page",
  },
  {
    fn: "createCampaign",
    method: "POST",
    path: "/campaigns",
    status: 201,
    summary: "Create a campaign",
    body: createCampaignSchema,
  },
  { fn: "getCampaign", method: "GET", path: "/campaigns/{id}", status: 200, summary: "Read a campaign" },
  {
    fn: "listCampaignRecipients",
    method: "GET",
    path: "/campaigns/{id}/recipients",
    status: 200,
    summary: "Recipients of a campaign",
    query: listRecipientsQuerySchema,
    answer: "page",
  },
  {
    fn: "sendCampaign",
    method: "POST",
    path: "/campaigns/{id}/send",
    status: 201,
    summary: "Start sending a campaign",
  },
  {
    fn: "cancelCampaign",
    method: "POST",
    path: "/campaigns/{id}/cancel",
    status: 201,
    summary: "Cancel a campaign",
  },

  {
    fn: "listChatUsers",
    method: "GET",
    path: "/chat-users",
    status: 200,
    summary: "List chat users",
    query: listChatUsersQuerySchema,
    answer: "page",
  },
  { fn: "getChatUser", method: "GET", path: "/chat-users/{id}", status: 200, summary: "Read a chat user" },
  {
    fn: "updateChatUser",
    method: "PATCH",
    path: "/chat-users/{id}",
    status: 200,
    summary: "Update a chat user",
    body: updateChatUserSchema,
  },
] as const satisfies readonly Operation[];

type Row = (typeof OPERATIONS)[number];
export type OperationName = Row["fn"];
/** The row of one operation, with its literal path and its schemas' types. */
export type OperationOf<K extends OperationName> = Extract<Row, { fn: K }>;

export const OPERATION: { readonly [K in OperationName]: OperationOf<K> } = Object.fromEntries(
  OPERATIONS.map((op) => [op.fn, op]),
) as never;

/** What an operation does, in people's words (`create a tag`), for audit lines: never its function name. */
export function operationWords(name: string): string {
  const row = (OPERATION as Record<string, { summary: string } | undefined>)[name];
  return row ? row.summary.charAt(0).toLowerCase() + row.summary.slice(1) : "a change";
}

/** An audit entry's outcome in words: done, failed (the API refused) or no answer (unknown). */
export const auditOutcome = (e: { ok: boolean; status?: number | null }) =>
  e.ok ? "done" : e.status ? "failed" : "no answer";

export const scopeOf = (method: HttpMethod): Scope => (method === "GET" ? "read" : "write");
