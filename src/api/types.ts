// The typed surface of the messaging API client. The command core, imports and
// reports code against this interface; src/api/client.ts implements it.
//
// Response bodies are not in the spec: records are read by the names the spec
// gives (every one optional, the rest kept as is), and pages are normalized
// from whatever envelope the service uses (see src/api/pages.ts).
import type { HttpMethod, OperationName } from "./operations.ts";
import type {
  CampaignStatus,
  ConversationHistoryQuery,
  CreateCampaignInput,
  CreateContactFieldInput,
  CreateContactInput,
  CreateGroupInput,
  CreateTagInput,
  CreateTemplateInput,
  ListCampaignsQuery,
  ListChatUsersQuery,
  ListContactsQuery,
  ListRecipientsQuery,
  ListTemplatesQuery,
  RecipientStatus,
  SendMessageInput,
  TemplateStatus,
  UpdateChatUserInput,
  UpdateContactFieldInput,
  UpdateContactInput,
  UpdateGroupInput,
  UpdateTagInput,
} from "./schemas.ts";

/** Interactive work (a person waiting) is served before background work (reports, polling). */
export type Lane = "interactive" | "background";

export interface CallOptions {
  lane?: Lane;
  signal?: AbortSignal;
  /** Time allowed for one attempt of this call, in ms, instead of the client's (an import sized for its file). */
  timeoutMs?: number;
}

/** One page of a list, whatever envelope the service used. */
export interface Page<T> {
  items: T[];
  /** Total number of records, when the service says; undefined when it does not. */
  total?: number;
  page: number;
  limit: number;
}

/** A record as returned: the members the spec names are typed, everything else is kept. */
export type ApiRecord = { id?: number } & Record<string, unknown>;

export interface Me extends ApiRecord {
  organization?: ApiRecord & { name?: string };
  plan?: (ApiRecord & { name?: string }) | string;
  apiKey?: ApiRecord & { name?: string; scopes?: string[] };
}

export interface Message extends ApiRecord {
  status?: string;
  type?: string;
  text?: string;
}

export interface Contact extends ApiRecord {
  phone?: string;
  first_name?: string;
  last_name?: string;
  email?: string;
  custom_fields?: Record<string, unknown>;
  wa_identified?: boolean;
}

export interface ContactField extends ApiRecord {
  key?: string;
  label?: string;
  type?: string;
  position?: number;
}

export interface Group extends ApiRecord {
  name?: string;
  description?: string;
}

export interface Tag extends ApiRecord {
  name?: string;
  color?: string;
  description?: string;
}

export interface Template extends ApiRecord {
  name?: string;
  language?: string;
  category?: string;
  status?: TemplateStatus | string;
  bodyText?: string;
  integrationId?: number;
}

export interface Campaign extends ApiRecord {
  name?: string;
  status?: CampaignStatus | string;
  integrationId?: number;
  templateId?: number;
  conversationTagId?: number;
}

export interface Recipient extends ApiRecord {
  status?: RecipientStatus | string;
}

export interface ChatUser extends ApiRecord {
  name?: string;
  email?: string;
  phone?: string;
  type?: string;
}

/** What POST /contacts/import reports: created, updated and errors. */
export interface ImportResult {
  created: number;
  updated: number;
  errors: Array<{ row?: number; message: string } & Record<string, unknown>>;
  raw: unknown;
}

/** The file of a contact import: a name and its bytes, as a buffer or a stream. */
export interface ImportFile {
  filename: string;
  contentType?: string;
  body: Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
}

/** What a hook learns of a request. */
export interface RequestInfo {
  /** The operation, for example `createTag`. */
  operation: OperationName;
  /** GET reads; any other method writes. */
  method: HttpMethod;
  /** Path relative to the base URL, the id filled in, without the query: `/tags/5`. */
  path: string;
  /** The JSON body a write sends (the audit names its recipient from it); none for reads and uploads. */
  body?: unknown;
}

/** A 2xx answer: its status, and what the client function returns. */
export interface ApiResponse<T = unknown> {
  status: number;
  data: T;
}

/**
 * Runs around each request that passed the client's checks (input refused
 * before any request reaches no hook). `next()` waits for a token, sends,
 * retries as the rules allow and reads the answer: it resolves with the status
 * and the result, or rejects with the call's typed error. It may be called
 * once; a second call rejects, so no hook can send a write twice.
 */
export type RequestHook = <T>(
  request: RequestInfo,
  next: () => Promise<ApiResponse<T>>,
) => Promise<ApiResponse<T>>;

export interface MessagingApi {
  /**
   * This client with `hook` run around each request, inside the hooks it
   * already has. It shares the transport: the same connection pool and rate limits.
   */
  withHook(hook: RequestHook): MessagingApi;

  getMe(opts?: CallOptions): Promise<Me>;

  sendMessage(input: SendMessageInput, opts?: CallOptions): Promise<Message>;
  getMessage(id: number, opts?: CallOptions): Promise<Message>;
  listConversationMessages(
    conversationId: number,
    query?: ConversationHistoryQuery,
    opts?: CallOptions,
  ): Promise<Page<Message>>;

  listContacts(query?: ListContactsQuery, opts?: CallOptions): Promise<Page<Contact>>;
  createContact(input: CreateContactInput, opts?: CallOptions): Promise<Contact>;
  getContact(id: number, opts?: CallOptions): Promise<Contact>;
  updateContact(id: number, input: UpdateContactInput, opts?: CallOptions): Promise<Contact>;
  deleteContact(id: number, opts?: CallOptions): Promise<ApiRecord>;
  optOutContact(id: number, opts?: CallOptions): Promise<Contact>;
  optInContact(id: number, opts?: CallOptions): Promise<Contact>;
  importContacts(
    file: ImportFile,
    fields: { groupId?: number; updateExisting: boolean },
    opts?: CallOptions,
  ): Promise<ImportResult>;

  listContactFields(opts?: CallOptions): Promise<Page<ContactField>>;
  createContactField(input: CreateContactFieldInput, opts?: CallOptions): Promise<ContactField>;
  updateContactField(id: number, input: UpdateContactFieldInput, opts?: CallOptions): Promise<ContactField>;
  deleteContactField(id: number, opts?: CallOptions): Promise<ApiRecord>;

  listGroups(opts?: CallOptions): Promise<Page<Group>>;
  createGroup(input: CreateGroupInput, opts?: CallOptions): Promise<Group>;
  getGroup(id: number, opts?: CallOptions): Promise<Group>;
  updateGroup(id: number, input: UpdateGroupInput, opts?: CallOptions): Promise<Group>;
  deleteGroup(id: number, opts?: CallOptions): Promise<ApiRecord>;
  addGroupContacts(id: number, contactIds: number[], opts?: CallOptions): Promise<ApiRecord>;
  removeGroupContacts(id: number, contactIds: number[], opts?: CallOptions): Promise<ApiRecord>;

  listTags(opts?: CallOptions): Promise<Page<Tag>>;
  createTag(input: CreateTagInput, opts?: CallOptions): Promise<Tag>;
  getTag(id: number, opts?: CallOptions): Promise<Tag>;
  updateTag(id: number, input: UpdateTagInput, opts?: CallOptions): Promise<Tag>;
  deleteTag(id: number, opts?: CallOptions): Promise<ApiRecord>;

  listTemplates(query?: ListTemplatesQuery, opts?: CallOptions): Promise<Page<Template>>;
  createTemplate(input: CreateTemplateInput, opts?: CallOptions): Promise<Template>;
  syncTemplates(channelId: number, opts?: CallOptions): Promise<ApiRecord>;
  getTemplate(id: number, opts?: CallOptions): Promise<Template>;
  deleteTemplate(id: number, opts?: CallOptions): Promise<ApiRecord>;

  listCampaigns(query?: ListCampaignsQuery, opts?: CallOptions): Promise<Page<Campaign>>;
  createCampaign(input: CreateCampaignInput, opts?: CallOptions): Promise<Campaign>;
  getCampaign(id: number, opts?: CallOptions): Promise<Campaign>;
  listCampaignRecipients(
    id: number,
    query?: ListRecipientsQuery,
    opts?: CallOptions,
  ): Promise<Page<Recipient>>;
  sendCampaign(id: number, opts?: CallOptions): Promise<Campaign>;
  cancelCampaign(id: number, opts?: CallOptions): Promise<Campaign>;

  listChatUsers(query?: ListChatUsersQuery, opts?: CallOptions): Promise<Page<ChatUser>>;
  getChatUser(id: number, opts?: CallOptions): Promise<ChatUser>;
  updateChatUser(id: number, input: UpdateChatUserInput, opts?: CallOptions): Promise<ChatUser>;
}
