// The 42 operations of the External Messaging API: method, path, scope and
// the client function that performs each. docs/api.md is this table in prose;
// a test checks that the client has every function and the sandbox every route.

export type Scope = "read" | "write";
export type HttpMethod = "GET" | "POST" | "PATCH" | "DELETE";

export interface Operation {
  /** Name of the client function (MessagingApi method). */
  fn: string;
  method: HttpMethod;
  /** Path relative to the base URL (which ends with /v1); `{id}` is a number. */
  path: string;
  /** Success status the spec gives. */
  status: 200 | 201;
  summary: string;
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
  },
  { fn: "getMessage", method: "GET", path: "/messages/{id}", status: 200, summary: "Status of one message" },
  {
    fn: "listConversationMessages",
    method: "GET",
    path: "/conversations/{id}/messages",
    status: 200,
    summary: "Messages of a conversation, newest first",
  },

  { fn: "listContacts", method: "GET", path: "/contacts", status: 200, summary: "List and search contacts" },
  { fn: "createContact", method: "POST", path: "/contacts", status: 201, summary: "Create a contact" },
  { fn: "getContact", method: "GET", path: "/contacts/{id}", status: 200, summary: "Read a contact" },
  { fn: "updateContact", method: "PATCH", path: "/contacts/{id}", status: 200, summary: "Update a contact" },
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
  },

  {
    fn: "listContactFields",
    method: "GET",
    path: "/contact-fields",
    status: 200,
    summary: "List custom field definitions",
  },
  {
    fn: "createContactField",
    method: "POST",
    path: "/contact-fields",
    status: 201,
    summary: "Create a custom field",
  },
  {
    fn: "updateContactField",
    method: "PATCH",
    path: "/contact-fields/{id}",
    status: 200,
    summary: "Update a custom field",
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
  },
  { fn: "createGroup", method: "POST", path: "/contact-groups", status: 201, summary: "Create a group" },
  { fn: "getGroup", method: "GET", path: "/contact-groups/{id}", status: 200, summary: "Read a group" },
  {
    fn: "updateGroup",
    method: "PATCH",
    path: "/contact-groups/{id}",
    status: 200,
    summary: "Update a group",
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
  },
  {
    fn: "removeGroupContacts",
    method: "DELETE",
    path: "/contact-groups/{id}/contacts",
    status: 200,
    summary: "Remove contacts from a group",
  },

  { fn: "listTags", method: "GET", path: "/tags", status: 200, summary: "List conversation tags" },
  { fn: "createTag", method: "POST", path: "/tags", status: 201, summary: "Create a tag" },
  { fn: "getTag", method: "GET", path: "/tags/{id}", status: 200, summary: "Read a tag" },
  { fn: "updateTag", method: "PATCH", path: "/tags/{id}", status: 200, summary: "Update a tag" },
  { fn: "deleteTag", method: "DELETE", path: "/tags/{id}", status: 200, summary: "Soft-delete a tag" },

  { fn: "listTemplates", method: "GET", path: "/templates", status: 200, summary: "List templates" },
  {
    fn: "createTemplate",
    method: "POST",
    path: "/templates",
    status: 201,
    summary: "Create a template (submitted for approval)",
  },
  {
    fn: "syncTemplates",
    method: "POST",
    path: "/templates/sync",
    status: 201,
    summary: "Synchronize a channel's templates",
  },
  { fn: "getTemplate", method: "GET", path: "/templates/{id}", status: 200, summary: "Read a template" },
  {
    fn: "deleteTemplate",
    method: "DELETE",
    path: "/templates/{id}",
    status: 200,
    summary: "Delete a pending, rejected or disabled template",
  },

  { fn: "listCampaigns", method: "GET", path: "/campaigns", status: 200, summary: "List campaigns" },
  { fn: "createCampaign", method: "POST", path: "/campaigns", status: 201, summary: "Create a campaign" },
  { fn: "getCampaign", method: "GET", path: "/campaigns/{id}", status: 200, summary: "Read a campaign" },
  {
    fn: "listCampaignRecipients",
    method: "GET",
    path: "/campaigns/{id}/recipients",
    status: 200,
    summary: "Recipients of a campaign",
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

  { fn: "listChatUsers", method: "GET", path: "/chat-users", status: 200, summary: "List chat users" },
  { fn: "getChatUser", method: "GET", path: "/chat-users/{id}", status: 200, summary: "Read a chat user" },
  {
    fn: "updateChatUser",
    method: "PATCH",
    path: "/chat-users/{id}",
    status: 200,
    summary: "Update a chat user",
  },
] as const satisfies readonly Operation[];

export type OperationName = (typeof OPERATIONS)[number]["fn"];

export const scopeOf = (method: HttpMethod): Scope => (method === "GET" ? "read" : "write");
