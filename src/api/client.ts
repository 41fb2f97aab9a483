// MessagingClient: the only code that speaks HTTP to the External Messaging
// API. Every input is checked with the shared schemas before any request;
// then the transport (transport.ts) waits for a token of the key's read or
// write budget, sends, retries as the rules allow, and turns every failure
// into a typed error (errors.ts) with a readable message.
import type { z } from "zod";
import { ServerError } from "./errors.ts";
import { OPERATIONS, type Operation, type OperationName } from "./operations.ts";
import { type IterateOptions, iteratePages, toPage, unwrapRecord } from "./pages.ts";
import type { BudgetStats } from "./rate-limit.ts";
import {
  type ConversationHistoryQuery,
  type CreateCampaignInput,
  type CreateContactFieldInput,
  type CreateContactInput,
  type CreateGroupInput,
  type CreateTagInput,
  type CreateTemplateInput,
  conversationHistoryQuerySchema,
  createCampaignSchema,
  createContactFieldSchema,
  createContactSchema,
  createGroupSchema,
  createTagSchema,
  createTemplateSchema,
  describeIssues,
  type FieldProblem,
  groupMembersSchema,
  idSchema,
  importContactsFieldsSchema,
  type ListCampaignsQuery,
  type ListChatUsersQuery,
  type ListContactsQuery,
  type ListRecipientsQuery,
  type ListTemplatesQuery,
  listCampaignsQuerySchema,
  listChatUsersQuerySchema,
  listContactsQuerySchema,
  listRecipientsQuerySchema,
  listTemplatesQuerySchema,
  type SendMessageInput,
  sendMessageSchema,
  syncTemplatesSchema,
  type UpdateChatUserInput,
  type UpdateContactFieldInput,
  type UpdateContactInput,
  type UpdateGroupInput,
  type UpdateTagInput,
  updateChatUserSchema,
  updateContactFieldSchema,
  updateContactSchema,
  updateGroupSchema,
  updateTagSchema,
} from "./schemas.ts";
import { Transport, type TransportOptions } from "./transport.ts";
import type {
  ApiRecord,
  CallOptions,
  Campaign,
  ChatUser,
  Contact,
  ContactField,
  Group,
  ImportFile,
  ImportResult,
  Me,
  Message,
  MessagingApi,
  Page,
  Recipient,
  Tag,
  Template,
} from "./types.ts";

export type { ClientLogger } from "./transport.ts";
export type MessagingClientOptions = TransportOptions;

type Query = Record<string, unknown>;

interface RequestSpec {
  id?: number;
  query?: Query;
  json?: unknown;
  multipart?: ImportFile & { fields: Record<string, string> };
}

const OPERATION_BY_FN = new Map<string, Operation>(OPERATIONS.map((op) => [op.fn, op]));

/** Lists that take `page` and `limit`, and what `paginate` needs for each. */
interface PagedLists {
  listContacts: { query: ListContactsQuery; item: Contact };
  listCampaigns: { query: ListCampaignsQuery; item: Campaign };
  listChatUsers: { query: ListChatUsersQuery; item: ChatUser };
  listCampaignRecipients: { query: ListRecipientsQuery & { id: number }; item: Recipient };
  listConversationMessages: { query: ConversationHistoryQuery & { id: number }; item: Message };
}

export interface PaginateOptions extends CallOptions, Omit<IterateOptions, "startPage"> {}

export class MessagingClient implements MessagingApi {
  private readonly transport: Transport;

  constructor(opts: MessagingClientOptions) {
    this.transport = new Transport(opts);
  }

  /** Tokens available and requests queued per lane, for reports and health pages. */
  budget(): BudgetStats {
    return this.transport.budget();
  }

  /** Releases the connection pool (shared with other clients of the same origin until the last closes). */
  close(): Promise<void> {
    return this.transport.close();
  }

  // -------------------------------------------------------------- plumbing

  private check<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    throw this.transport.refuse(operation, describeIssues(result.error, input));
  }

  private checkId(operation: string, id: unknown, field = "id"): number {
    if (id === undefined || id === null || id === "")
      throw this.transport.refuse(operation, [{ field, rule: "is required" }]);
    const result = idSchema.safeParse(id);
    if (result.success) return result.data;
    const problems = describeIssues(result.error, id).map((p) => ({ ...p, field }));
    throw this.transport.refuse(operation, problems);
  }

  private request<T>(fn: OperationName, spec: RequestSpec, read: (body: unknown) => T, opts?: CallOptions) {
    const op = OPERATION_BY_FN.get(fn)!;
    return this.transport.request({ operation: fn, method: op.method, path: op.path, ...spec, read }, opts);
  }

  private async record<T>(fn: OperationName, spec: RequestSpec, opts?: CallOptions): Promise<T> {
    return this.request(fn, spec, readRecord<T>, opts);
  }

  private async page<T>(
    fn: OperationName,
    spec: RequestSpec,
    opts: CallOptions | undefined,
  ): Promise<Page<T>> {
    return this.request(fn, spec, (body) => readPage<T>(fn, body, spec.query), opts);
  }

  // -------------------------------------------------------------- pages

  /** Every item of a paged list, page after page (stops at the total, a short page, or `max`). */
  paginate<K extends keyof PagedLists>(
    list: K,
    query: PagedLists[K]["query"],
    opts?: PaginateOptions,
  ): AsyncGenerator<PagedLists[K]["item"], void, undefined>;
  paginate<K extends "listContacts" | "listCampaigns" | "listChatUsers">(
    list: K,
    query?: PagedLists[K]["query"],
    opts?: PaginateOptions,
  ): AsyncGenerator<PagedLists[K]["item"], void, undefined>;
  paginate(list: keyof PagedLists, query: Query = {}, opts: PaginateOptions = {}): AsyncGenerator<unknown> {
    const { max, ...call } = opts;
    const { id, page: startPage, ...rest } = query as Query & { id?: number; page?: number };
    const fetchPage = (page: number): Promise<Page<unknown>> => {
      const q = { ...rest, page };
      switch (list) {
        case "listContacts":
          return this.listContacts(q, call);
        case "listCampaigns":
          return this.listCampaigns(q as ListCampaignsQuery, call);
        case "listChatUsers":
          return this.listChatUsers(q as ListChatUsersQuery, call);
        case "listCampaignRecipients":
          return this.listCampaignRecipients(id as number, q as ListRecipientsQuery, call);
        case "listConversationMessages":
          return this.listConversationMessages(id as number, q as ConversationHistoryQuery, call);
      }
    };
    return iteratePages(fetchPage, { max, startPage: typeof startPage === "number" ? startPage : 1 });
  }

  // -------------------------------------------------------------- account

  async getMe(opts?: CallOptions): Promise<Me> {
    return this.record("getMe", {}, opts);
  }

  // -------------------------------------------------------------- messages

  async sendMessage(input: SendMessageInput, opts?: CallOptions): Promise<Message> {
    return this.record("sendMessage", { json: this.check("sendMessage", sendMessageSchema, input) }, opts);
  }

  async getMessage(id: number, opts?: CallOptions): Promise<Message> {
    return this.record("getMessage", { id: this.checkId("getMessage", id) }, opts);
  }

  async listConversationMessages(
    conversationId: number,
    query: ConversationHistoryQuery = {},
    opts?: CallOptions,
  ): Promise<Page<Message>> {
    const fn = "listConversationMessages";
    const id = this.checkId(fn, conversationId, "conversationId");
    return this.page(fn, { id, query: this.check(fn, conversationHistoryQuerySchema, query) }, opts);
  }

  // -------------------------------------------------------------- contacts

  async listContacts(query: ListContactsQuery = {}, opts?: CallOptions): Promise<Page<Contact>> {
    return this.page(
      "listContacts",
      { query: this.check("listContacts", listContactsQuerySchema, query) },
      opts,
    );
  }

  async createContact(input: CreateContactInput, opts?: CallOptions): Promise<Contact> {
    return this.record(
      "createContact",
      { json: this.check("createContact", createContactSchema, input) },
      opts,
    );
  }

  async getContact(id: number, opts?: CallOptions): Promise<Contact> {
    return this.record("getContact", { id: this.checkId("getContact", id) }, opts);
  }

  async updateContact(id: number, input: UpdateContactInput, opts?: CallOptions): Promise<Contact> {
    const fn = "updateContact";
    return this.record(
      fn,
      { id: this.checkId(fn, id), json: this.check(fn, updateContactSchema, input) },
      opts,
    );
  }

  async deleteContact(id: number, opts?: CallOptions): Promise<ApiRecord> {
    return this.record("deleteContact", { id: this.checkId("deleteContact", id) }, opts);
  }

  async optOutContact(id: number, opts?: CallOptions): Promise<Contact> {
    return this.record("optOutContact", { id: this.checkId("optOutContact", id) }, opts);
  }

  async optInContact(id: number, opts?: CallOptions): Promise<Contact> {
    return this.record("optInContact", { id: this.checkId("optInContact", id) }, opts);
  }

  async importContacts(
    file: ImportFile,
    fields: { groupId?: number; updateExisting: boolean },
    opts?: CallOptions,
  ): Promise<ImportResult> {
    const fn = "importContacts";
    const problems: FieldProblem[] = [];
    if (typeof file?.filename !== "string" || !file.filename.trim()) {
      problems.push({ field: "file.filename", rule: "is required: the name of the CSV or xlsx file" });
    }
    const body = file?.body as unknown;
    const isStream =
      body !== null &&
      typeof body === "object" &&
      (Symbol.asyncIterator in body || typeof (body as ReadableStream).getReader === "function");
    if (!(body instanceof Uint8Array) && !isStream) {
      problems.push({ field: "file.body", rule: "must be the file's bytes: a Uint8Array or a stream" });
    }
    const parsed = importContactsFieldsSchema.safeParse(fields ?? {});
    if (!parsed.success) problems.push(...describeIssues(parsed.error, fields ?? {}));
    if (problems.length > 0 || !parsed.success) throw this.transport.refuse(fn, problems);
    const form: Record<string, string> = { updateExisting: String(parsed.data.updateExisting) };
    if (parsed.data.groupId !== undefined) form.groupId = String(parsed.data.groupId);
    const multipart = { ...file, fields: form };
    return this.request(fn, { multipart }, (raw) => readImportResult(unwrapRecord(raw)), opts);
  }

  // -------------------------------------------------------------- contact fields

  async listContactFields(opts?: CallOptions): Promise<Page<ContactField>> {
    return this.page("listContactFields", {}, opts);
  }

  async createContactField(input: CreateContactFieldInput, opts?: CallOptions): Promise<ContactField> {
    const fn = "createContactField";
    return this.record(fn, { json: this.check(fn, createContactFieldSchema, input) }, opts);
  }

  async updateContactField(
    id: number,
    input: UpdateContactFieldInput,
    opts?: CallOptions,
  ): Promise<ContactField> {
    const fn = "updateContactField";
    const json = this.check(fn, updateContactFieldSchema, input);
    return this.record(fn, { id: this.checkId(fn, id), json }, opts);
  }

  async deleteContactField(id: number, opts?: CallOptions): Promise<ApiRecord> {
    return this.record("deleteContactField", { id: this.checkId("deleteContactField", id) }, opts);
  }

  // -------------------------------------------------------------- groups

  async listGroups(opts?: CallOptions): Promise<Page<Group>> {
    return this.page("listGroups", {}, opts);
  }

  async createGroup(input: CreateGroupInput, opts?: CallOptions): Promise<Group> {
    return this.record("createGroup", { json: this.check("createGroup", createGroupSchema, input) }, opts);
  }

  async getGroup(id: number, opts?: CallOptions): Promise<Group> {
    return this.record("getGroup", { id: this.checkId("getGroup", id) }, opts);
  }

  async updateGroup(id: number, input: UpdateGroupInput, opts?: CallOptions): Promise<Group> {
    const fn = "updateGroup";
    return this.record(
      fn,
      { id: this.checkId(fn, id), json: this.check(fn, updateGroupSchema, input) },
      opts,
    );
  }

  async deleteGroup(id: number, opts?: CallOptions): Promise<ApiRecord> {
    return this.record("deleteGroup", { id: this.checkId("deleteGroup", id) }, opts);
  }

  async addGroupContacts(id: number, contactIds: number[], opts?: CallOptions): Promise<ApiRecord> {
    const fn = "addGroupContacts";
    const json = this.check(fn, groupMembersSchema, { contactIds });
    return this.record(fn, { id: this.checkId(fn, id), json }, opts);
  }

  async removeGroupContacts(id: number, contactIds: number[], opts?: CallOptions): Promise<ApiRecord> {
    const fn = "removeGroupContacts";
    const json = this.check(fn, groupMembersSchema, { contactIds });
    return this.record(fn, { id: this.checkId(fn, id), json }, opts);
  }

  // -------------------------------------------------------------- tags

  async listTags(opts?: CallOptions): Promise<Page<Tag>> {
    return this.page("listTags", {}, opts);
  }

  async createTag(input: CreateTagInput, opts?: CallOptions): Promise<Tag> {
    return this.record("createTag", { json: this.check("createTag", createTagSchema, input) }, opts);
  }

  async getTag(id: number, opts?: CallOptions): Promise<Tag> {
    return this.record("getTag", { id: this.checkId("getTag", id) }, opts);
  }

  async updateTag(id: number, input: UpdateTagInput, opts?: CallOptions): Promise<Tag> {
    const fn = "updateTag";
    return this.record(fn, { id: this.checkId(fn, id), json: this.check(fn, updateTagSchema, input) }, opts);
  }

  async deleteTag(id: number, opts?: CallOptions): Promise<ApiRecord> {
    return this.record("deleteTag", { id: this.checkId("deleteTag", id) }, opts);
  }

  // -------------------------------------------------------------- templates

  async listTemplates(query: ListTemplatesQuery = {}, opts?: CallOptions): Promise<Page<Template>> {
    return this.page(
      "listTemplates",
      { query: this.check("listTemplates", listTemplatesQuerySchema, query) },
      opts,
    );
  }

  async createTemplate(input: CreateTemplateInput, opts?: CallOptions): Promise<Template> {
    return this.record(
      "createTemplate",
      { json: this.check("createTemplate", createTemplateSchema, input) },
      opts,
    );
  }

  async syncTemplates(channelId: number, opts?: CallOptions): Promise<ApiRecord> {
    const json = this.check("syncTemplates", syncTemplatesSchema, { channelId });
    return this.record("syncTemplates", { json }, opts);
  }

  async getTemplate(id: number, opts?: CallOptions): Promise<Template> {
    return this.record("getTemplate", { id: this.checkId("getTemplate", id) }, opts);
  }

  async deleteTemplate(id: number, opts?: CallOptions): Promise<ApiRecord> {
    return this.record("deleteTemplate", { id: this.checkId("deleteTemplate", id) }, opts);
  }

  // -------------------------------------------------------------- campaigns

  async listCampaigns(query: ListCampaignsQuery = {}, opts?: CallOptions): Promise<Page<Campaign>> {
    return this.page(
      "listCampaigns",
      { query: this.check("listCampaigns", listCampaignsQuerySchema, query) },
      opts,
    );
  }

  async createCampaign(input: CreateCampaignInput, opts?: CallOptions): Promise<Campaign> {
    return this.record(
      "createCampaign",
      { json: this.check("createCampaign", createCampaignSchema, input) },
      opts,
    );
  }

  async getCampaign(id: number, opts?: CallOptions): Promise<Campaign> {
    return this.record("getCampaign", { id: this.checkId("getCampaign", id) }, opts);
  }

  async listCampaignRecipients(
    id: number,
    query: ListRecipientsQuery = {},
    opts?: CallOptions,
  ): Promise<Page<Recipient>> {
    const fn = "listCampaignRecipients";
    const checkedId = this.checkId(fn, id);
    return this.page(fn, { id: checkedId, query: this.check(fn, listRecipientsQuerySchema, query) }, opts);
  }

  async sendCampaign(id: number, opts?: CallOptions): Promise<Campaign> {
    return this.record("sendCampaign", { id: this.checkId("sendCampaign", id) }, opts);
  }

  async cancelCampaign(id: number, opts?: CallOptions): Promise<Campaign> {
    return this.record("cancelCampaign", { id: this.checkId("cancelCampaign", id) }, opts);
  }

  // -------------------------------------------------------------- chat users

  async listChatUsers(query: ListChatUsersQuery = {}, opts?: CallOptions): Promise<Page<ChatUser>> {
    return this.page(
      "listChatUsers",
      { query: this.check("listChatUsers", listChatUsersQuerySchema, query) },
      opts,
    );
  }

  async getChatUser(id: number, opts?: CallOptions): Promise<ChatUser> {
    return this.record("getChatUser", { id: this.checkId("getChatUser", id) }, opts);
  }

  async updateChatUser(id: number, input: UpdateChatUserInput, opts?: CallOptions): Promise<ChatUser> {
    const fn = "updateChatUser";
    const json = this.check(fn, updateChatUserSchema, input);
    return this.record(fn, { id: this.checkId(fn, id), json }, opts);
  }
}

// ---------------------------------------------------------------- answers

/** A record, bare or as `{data: {...}}`; an empty or non-object answer (a delete, a state change) reads as `{}`. */
function readRecord<T>(body: unknown): T {
  const record = unwrapRecord<unknown>(body);
  if (record === undefined || record === null || typeof record !== "object") return {} as T;
  return record as T;
}

/** A page in whatever envelope; 2xx without a list is a ServerError. */
function readPage<T>(fn: OperationName, body: unknown, query: Query | undefined): Page<T> {
  const requested = query as { page?: number; limit?: number } | undefined;
  const page = toPage<T>(body, { page: requested?.page, limit: requested?.limit });
  if (!page) {
    throw new ServerError(`${fn}: the service answered with something that is not a list`, { operation: fn });
  }
  return page;
}

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A count that may come as a number, a numeric string or the list of what it counts. */
function countOf(v: unknown): number {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  if (Array.isArray(v)) return v.length;
  return 0;
}

/** Reads an import answer leniently: created/updated as counts or lists, errors as a list or a count. */
export function readImportResult(raw: unknown): ImportResult {
  const body = isObject(raw) ? raw : {};
  const summary = isObject(body.summary) ? body.summary : isObject(body.result) ? body.result : body;
  const pick = (...names: string[]) => names.map((n) => summary[n] ?? body[n]).find((v) => v !== undefined);
  const rawErrors = pick("errors", "failed", "errorRows");
  let errors: ImportResult["errors"] = [];
  if (Array.isArray(rawErrors)) {
    errors = rawErrors.map((e) => {
      if (typeof e === "string") return { message: e };
      if (!isObject(e)) return { message: String(e) };
      const row = countOf(e.row ?? e.line ?? e.rowNumber);
      const message =
        typeof e.message === "string"
          ? e.message
          : typeof e.error === "string"
            ? e.error
            : Array.isArray(e.errors)
              ? e.errors.map(String).join("; ")
              : JSON.stringify(e);
      return { ...e, ...(row ? { row } : {}), message };
    });
  } else if (countOf(rawErrors) > 0) {
    // Only a count: one entry per error, without detail, so `errors.length` stays right.
    errors = Array.from({ length: countOf(rawErrors) }, () => ({ message: "row refused (no detail given)" }));
  }
  return {
    created: countOf(pick("created", "createdCount", "inserted", "imported")),
    updated: countOf(pick("updated", "updatedCount")),
    errors,
    raw,
  };
}
