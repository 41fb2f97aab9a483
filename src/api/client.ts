// MessagingClient: the only code that speaks HTTP to the External Messaging
// API. Every input is checked with the shared schemas before any request,
// every call waits for a token of the key's read or write budget, and every
// failure becomes a typed error (src/api/errors.ts) with a readable message.
import type { Pool } from "undici";
import type { z } from "zod";
import { maskSecret } from "../log.ts";
import { type RateLimitError, ServerError, ValidationError } from "./errors.ts";
import {
  acquirePool,
  errorFor,
  type HttpRequest,
  networkError,
  parseBody,
  releasePool,
  retryAfterMs,
  send,
  TransportFailure,
} from "./http.ts";
import { multipartBody } from "./multipart.ts";
import { OPERATIONS, type Operation, type OperationName } from "./operations.ts";
import { type IterateOptions, iteratePages, toPage, unwrapRecord } from "./pages.ts";
import { type BudgetStats, type Clock, type RateLimiter, sharedLimiter } from "./rate-limit.ts";
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
  formatProblems,
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

/** The part of a pino logger the client uses. */
export interface ClientLogger {
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

export interface MessagingClientOptions {
  /** Base address of the API, ending with the version segment, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Time allowed for one attempt (headers and body), in ms. */
  timeoutMs?: number;
  readPerMinute?: number;
  writePerMinute?: number;
  /** Share (0..1) of the read budget background work may use. */
  backgroundReadShare?: number;
  /** Retries after the first attempt (429, and for reads network errors and 5xx). */
  maxRetries?: number;
  /** Longest 429 wait the client sits out itself; a longer one throws RateLimitError at once. */
  maxRateLimitWaitMs?: number;
  /** First step of the exponential backoff, in ms (the wait is random in [0, base * 2^attempt]). */
  backoffBaseMs?: number;
  logger?: ClientLogger;
  /** Random source in [0, 1) for the backoff jitter (tests pass a fixed one). */
  random?: () => number;
  /** Limiter to use instead of the process-wide one of this key (tests with a hand-moved clock). */
  limiter?: RateLimiter;
  /** Clock of the process-wide limiter when it is created by this client. */
  clock?: Clock;
}

type Query = Record<string, unknown>;

interface RequestSpec {
  id?: number;
  query?: Query;
  json?: unknown;
  multipart?: ImportFile & { fields: Record<string, string> };
}

const OPERATION_BY_FN = new Map<string, Operation>(OPERATIONS.map((op) => [op.fn, op]));

/** Query values as the service reads them: strings, booleans as "true"/"false", undefined left out. */
export function queryString(query: Query | undefined): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    params.append(key, typeof value === "boolean" ? (value ? "true" : "false") : String(value));
  }
  const s = params.toString();
  return s ? `?${s}` : "";
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  signal?.throwIfAborted();
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

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
  private readonly origin: string;
  private readonly basePath: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly backoffBaseMs: number;
  private readonly random: () => number;
  private readonly logger?: ClientLogger;
  private readonly limiter: RateLimiter;
  private pool?: Pool;

  constructor(opts: MessagingClientOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new Error(`baseUrl must be an http or https URL such as http://127.0.0.1:4010/v1`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new Error("baseUrl must be an http or https URL such as http://127.0.0.1:4010/v1");
    }
    if (!opts.apiKey?.trim()) throw new Error("apiKey must not be empty");
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.maxRetries = opts.maxRetries ?? 4;
    this.maxRateLimitWaitMs = opts.maxRateLimitWaitMs ?? 60_000;
    this.backoffBaseMs = opts.backoffBaseMs ?? 300;
    this.random = opts.random ?? Math.random;
    this.logger = opts.logger;
    this.limiter =
      opts.limiter ??
      sharedLimiter(`${this.origin}${this.basePath}`, opts.apiKey, {
        readPerMinute: opts.readPerMinute,
        writePerMinute: opts.writePerMinute,
        backgroundReadShare: opts.backgroundReadShare,
        clock: opts.clock,
      });
    this.pool = acquirePool(this.origin);
  }

  /** Tokens available and requests queued per lane, for reports and health pages. */
  budget(): BudgetStats {
    return this.limiter.stats();
  }

  /** Releases the connection pool (shared with other clients of the same origin until the last closes). */
  async close(): Promise<void> {
    const pool = this.pool;
    this.pool = undefined;
    if (pool) await releasePool(this.origin, pool);
  }

  // -------------------------------------------------------------- plumbing

  /** Removes the API key from any text bound for a message or a log line. */
  private scrub = (text: string): string =>
    this.apiKey.length >= 4 ? text.split(this.apiKey).join(maskSecret(this.apiKey)) : text;

  private invalid(operation: string, problems: FieldProblem[]): ValidationError {
    return new ValidationError(this.scrub(formatProblems(problems)), problems, { operation });
  }

  private check<S extends z.ZodType>(operation: string, schema: S, input: unknown): z.output<S> {
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    throw this.invalid(operation, describeIssues(result.error, input));
  }

  private checkId(operation: string, id: unknown, field = "id"): number {
    if (id === undefined || id === null || id === "")
      throw this.invalid(operation, [{ field, rule: "is required" }]);
    const result = idSchema.safeParse(id);
    if (result.success) return result.data;
    const problems = describeIssues(result.error, id).map((p) => ({ ...p, field }));
    throw this.invalid(operation, problems);
  }

  private backoff(attempt: number): number {
    return Math.round(this.random() * Math.min(15_000, this.backoffBaseMs * 2 ** attempt));
  }

  private async request(fn: OperationName, spec: RequestSpec, opts: CallOptions = {}): Promise<unknown> {
    const op = OPERATION_BY_FN.get(fn)!;
    if (!this.pool) throw new Error("the messaging client is closed");
    const isRead = op.method === "GET";
    const kind = isRead ? "read" : "write";
    const lane = opts.lane ?? "interactive";
    const path = `${this.basePath}${op.path.replace("{id}", String(spec.id))}${queryString(spec.query)}`;
    const headers: Record<string, string> = {
      "x-api-key": this.apiKey,
      accept: "application/json",
      "user-agent": "switchboard",
    };
    let body: HttpRequest["body"];
    let replayable = true;
    if (spec.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(spec.json);
    }

    for (let attempt = 0; ; attempt++) {
      if (spec.multipart) {
        // A buffered file is encoded again per attempt; a streamed one is sent once only.
        const mp = multipartBody(spec.multipart, spec.multipart.fields);
        body = mp.body as HttpRequest["body"];
        replayable = mp.replayable;
        if (mp.contentType) headers["content-type"] = mp.contentType;
      }
      await this.limiter.acquire(kind, lane, opts.signal);
      if (!this.pool) throw new Error("the messaging client is closed");
      const log = { operation: fn, method: op.method, path: op.path, id: spec.id, attempt };
      let res: Awaited<ReturnType<typeof send>>;
      try {
        res = await send(this.pool, {
          method: op.method,
          path,
          headers,
          body,
          timeoutMs: this.timeoutMs,
          signal: opts.signal,
        });
      } catch (err) {
        if (!(err instanceof TransportFailure)) throw err;
        // A write that may have reached the service is never sent twice: it could be performed twice.
        const retry = attempt < this.maxRetries && replayable && (isRead || !err.sent);
        this.logger?.warn({ ...log, error: err.message, retry }, "messaging API request failed");
        if (!retry) throw networkError(err, fn);
        await sleep(this.backoff(attempt), opts.signal);
        continue;
      }
      this.logger?.debug({ ...log, status: res.status }, "messaging API answered");
      if (res.status >= 200 && res.status < 300) return parseBody(res);

      if (res.status === 429) {
        // A 429 means nothing was done, so a write may be retried too.
        const wait = retryAfterMs(res.headers) ?? this.backoff(attempt);
        const retry = attempt < this.maxRetries && replayable && wait <= this.maxRateLimitWaitMs;
        this.logger?.warn({ ...log, status: 429, waitMs: wait, retry }, "messaging API rate limit hit");
        if (!retry) throw errorFor(res, fn, this.scrub, wait) as RateLimitError;
        // Every caller of the key waits, not only this one.
        this.limiter.penalize(kind, wait);
        continue;
      }
      if (res.status >= 500 && isRead && attempt < this.maxRetries) {
        this.logger?.warn({ ...log, status: res.status, retry: true }, "messaging API server error");
        await sleep(this.backoff(attempt), opts.signal);
        continue;
      }
      throw errorFor(res, fn, this.scrub);
    }
  }

  private async record<T>(fn: OperationName, spec: RequestSpec, opts?: CallOptions): Promise<T> {
    const body = await this.request(fn, spec, opts);
    const record = unwrapRecord<unknown>(body);
    // Some services answer a delete or a state change with an empty body.
    if (record === undefined || record === null || typeof record !== "object") return {} as T;
    return record as T;
  }

  private async page<T>(
    fn: OperationName,
    spec: RequestSpec,
    opts: CallOptions | undefined,
  ): Promise<Page<T>> {
    const body = await this.request(fn, spec, opts);
    const requested = spec.query as { page?: number; limit?: number } | undefined;
    const page = toPage<T>(body, { page: requested?.page, limit: requested?.limit });
    if (!page) {
      throw new ServerError(`${fn}: the service answered with something that is not a list`, {
        operation: fn,
      });
    }
    return page;
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
    if (problems.length > 0 || !parsed.success) throw this.invalid(fn, problems);
    const form: Record<string, string> = { updateExisting: String(parsed.data.updateExisting) };
    if (parsed.data.groupId !== undefined) form.groupId = String(parsed.data.groupId);
    const raw = await this.request(fn, { multipart: { ...file, fields: form } }, opts);
    return readImportResult(unwrapRecord(raw));
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

// ---------------------------------------------------------------- import result

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
