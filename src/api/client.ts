// MessagingClient: the only code that speaks HTTP to the External Messaging
// API. Each operation is one row of OPERATIONS (operations.ts) and one line
// here: its arguments are checked with the row's schemas before any request,
// then the transport (transport.ts) waits for a token of the key's read or
// write budget, sends, retries as the rules allow, and turns every failure
// into a typed error (errors.ts) with a readable message. The multipart import
// and `paginate` are written by hand.
import type { z } from "zod";
import { ServerError } from "./errors.ts";
import { OPERATION, type Operation, type OperationName, type OperationOf } from "./operations.ts";
import { type IterateOptions, iteratePages, toPage, unwrapRecord } from "./pages.ts";
import type { BudgetStats } from "./rate-limit.ts";
import {
  type ConversationHistoryQuery,
  describeIssues,
  type FieldProblem,
  idSchema,
  type ListCampaignsQuery,
  type ListChatUsersQuery,
  type ListContactsQuery,
  type ListRecipientsQuery,
} from "./schemas.ts";
import { Transport, type TransportOptions } from "./transport.ts";
import type {
  ApiRecord,
  CallOptions,
  Campaign,
  ChatUser,
  Contact,
  ImportFile,
  ImportResult,
  Message,
  MessagingApi,
  Page,
  Recipient,
  RequestHook,
} from "./types.ts";

export type { ClientLogger } from "./transport.ts";
export { API_KEY_MAX_LENGTH, apiKeyProblem } from "./transport.ts";
export type MessagingClientOptions = TransportOptions;

type Query = Record<string, unknown>;

/** Operations whose row says all: every one but the multipart import. */
type RowOperation = {
  [K in OperationName]: OperationOf<K> extends { form: unknown } ? never : K;
}[OperationName];

/** The arguments a row says its function takes (see Operation). */
type ArgsOf<O> = [
  ...(O extends { path: `${string}{id}${string}` } ? [id: number] : []),
  ...(O extends { body: infer S extends z.ZodType }
    ? [input: O extends { member: infer M extends keyof z.input<S> } ? z.input<S>[M] : z.input<S>]
    : O extends { query: infer S extends z.ZodType }
      ? [query?: z.input<S>]
      : []),
  opts?: CallOptions,
];

/** Whether MessagingApi's signature of `K` is the one its row describes. */
type Fits<K extends RowOperation> =
  Parameters<MessagingApi[K]> extends ArgsOf<OperationOf<K>>
    ? Awaited<ReturnType<MessagingApi[K]>> extends (
        OperationOf<K> extends { answer: "page" }
          ? Page<unknown>
          : ApiRecord
      )
      ? true
      : false
    : false;

/** Every operation's row agrees with MessagingApi: a type error here when one does not (look for its `false`). */
type EveryRowFits<T extends true> = T;
export type RowsFit = EveryRowFits<{ [K in RowOperation]: Fits<K> }[RowOperation]>;

/** The operations whose row says all, by name: every one but those with a form (the multipart import). */
const ROW_OPERATIONS = (Object.keys(OPERATION) as OperationName[]).filter(
  (fn): fn is RowOperation => !("form" in OPERATION[fn]),
);

const hasId = (op: Operation) => op.path.includes("{id}");

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
  private readonly hooks: readonly RequestHook[];

  /** A client of its own transport, or one more client of an existing transport (its pool and rate limits). */
  constructor(opts: MessagingClientOptions | Transport, hooks: readonly RequestHook[] = []) {
    this.transport = opts instanceof Transport ? opts : new Transport(opts);
    this.hooks = hooks;
  }

  withHook(hook: RequestHook): MessagingClient {
    return new MessagingClient(this.transport, [...this.hooks, hook]);
  }

  /** Tokens available and requests queued per lane, for reports and health pages. */
  budget(): BudgetStats {
    return this.transport.budget();
  }

  /**
   * Releases the transport's connection pool (shared with other clients of the same key and origin until
   * the last closes). Clients made by `withHook` share this client's transport: close this one.
   */
  close(): Promise<void> {
    return this.transport.close();
  }

  // -------------------------------------------------------------- the operations, one row each
  // Each made at its first read, once for this client (op): 41 closures made with every client were ~3 KiB of
  // each workspace's runtime (docs/benchmarks.md, issue 38 §7), most never called.

  declare readonly getMe: MessagingApi["getMe"];

  declare readonly sendMessage: MessagingApi["sendMessage"];
  declare readonly getMessage: MessagingApi["getMessage"];
  declare readonly listConversationMessages: MessagingApi["listConversationMessages"];

  declare readonly listContacts: MessagingApi["listContacts"];
  declare readonly createContact: MessagingApi["createContact"];
  declare readonly getContact: MessagingApi["getContact"];
  declare readonly updateContact: MessagingApi["updateContact"];
  declare readonly deleteContact: MessagingApi["deleteContact"];
  declare readonly optOutContact: MessagingApi["optOutContact"];
  declare readonly optInContact: MessagingApi["optInContact"];

  declare readonly listContactFields: MessagingApi["listContactFields"];
  declare readonly createContactField: MessagingApi["createContactField"];
  declare readonly updateContactField: MessagingApi["updateContactField"];
  declare readonly deleteContactField: MessagingApi["deleteContactField"];

  declare readonly listGroups: MessagingApi["listGroups"];
  declare readonly createGroup: MessagingApi["createGroup"];
  declare readonly getGroup: MessagingApi["getGroup"];
  declare readonly updateGroup: MessagingApi["updateGroup"];
  declare readonly deleteGroup: MessagingApi["deleteGroup"];
  declare readonly addGroupContacts: MessagingApi["addGroupContacts"];
  declare readonly removeGroupContacts: MessagingApi["removeGroupContacts"];

  declare readonly listTags: MessagingApi["listTags"];
  declare readonly createTag: MessagingApi["createTag"];
  declare readonly getTag: MessagingApi["getTag"];
  declare readonly updateTag: MessagingApi["updateTag"];
  declare readonly deleteTag: MessagingApi["deleteTag"];

  declare readonly listTemplates: MessagingApi["listTemplates"];
  declare readonly createTemplate: MessagingApi["createTemplate"];
  declare readonly syncTemplates: MessagingApi["syncTemplates"];
  declare readonly getTemplate: MessagingApi["getTemplate"];
  declare readonly deleteTemplate: MessagingApi["deleteTemplate"];

  declare readonly listCampaigns: MessagingApi["listCampaigns"];
  declare readonly createCampaign: MessagingApi["createCampaign"];
  declare readonly getCampaign: MessagingApi["getCampaign"];
  declare readonly listCampaignRecipients: MessagingApi["listCampaignRecipients"];
  declare readonly sendCampaign: MessagingApi["sendCampaign"];
  declare readonly cancelCampaign: MessagingApi["cancelCampaign"];

  declare readonly listChatUsers: MessagingApi["listChatUsers"];
  declare readonly getChatUser: MessagingApi["getChatUser"];
  declare readonly updateChatUser: MessagingApi["updateChatUser"];

  /** Multipart: the checked fields and the file, buffered (FormData) or streamed (sent once only). */
  async importContacts(
    file: ImportFile,
    fields: { groupId?: number; updateExisting: boolean },
    opts?: CallOptions,
  ): Promise<ImportResult> {
    const { fn, method, path, form: fieldsSchema } = OPERATION.importContacts;
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
    const parsed = fieldsSchema.safeParse(fields ?? {});
    if (!parsed.success) problems.push(...describeIssues(parsed.error, fields ?? {}));
    if (problems.length > 0 || !parsed.success) throw this.transport.refuse(fn, problems);
    const form: Record<string, string> = { updateExisting: String(parsed.data.updateExisting) };
    if (parsed.data.groupId !== undefined) form.groupId = String(parsed.data.groupId);
    const multipart = { ...file, fields: form };
    const read = (raw: unknown) => readImportResult(unwrapRecord(raw));
    return this.transport.request({ operation: fn, method, path, multipart, read }, opts, this.hooks);
  }

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
    const op = OPERATION[list];
    const fetchPage = (page: number) => {
      const q = { ...rest, page };
      return this.call(op, hasId(op) ? [id, q, call] : [q, call]) as Promise<Page<unknown>>;
    };
    return iteratePages(fetchPage, { max, startPage: typeof startPage === "number" ? startPage : 1 });
  }

  // -------------------------------------------------------------- from a row to a request

  static {
    for (const fn of ROW_OPERATIONS)
      Object.defineProperty(MessagingClient.prototype, fn, {
        get(this: MessagingClient) {
          return this.op(fn);
        },
        configurable: true,
      });
  }

  /** The operations read so far, each bound to this client. */
  private readonly ops = new Map<RowOperation, unknown>();

  /** The function of an operation, from its row, made at its first read (then kept: the same at each read). */
  private op<K extends RowOperation>(fn: K): MessagingApi[K] {
    let made = this.ops.get(fn) as MessagingApi[K] | undefined;
    if (!made) {
      const op = OPERATION[fn];
      made = ((...args: unknown[]) => this.call(op, args)) as MessagingApi[K];
      this.ops.set(fn, made);
    }
    return made;
  }

  /** Checks the arguments with the row's schemas (bad input rejects, no request), then sends. */
  private async call(op: Operation, args: unknown[]): Promise<unknown> {
    const fn = op.fn as OperationName;
    let i = 0;
    const id = hasId(op) ? this.checkId(fn, args[i++], op.idName) : undefined;
    const input = op.body || op.query ? args[i++] : undefined;
    const json = op.body && this.check(fn, op.body, op.member ? { [op.member]: input } : input);
    const query = op.query && (this.check(fn, op.query, input ?? {}) as Query);
    const read: (body: unknown) => unknown =
      op.answer === "page" ? (body) => readPage(fn, body, query) : readRecord;
    const opts = args[i] as CallOptions | undefined;
    const req = { operation: fn, method: op.method, path: op.path, id, json, query, read };
    return this.transport.request(req, opts, this.hooks);
  }

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
}

// ---------------------------------------------------------------- answers

/** A record, bare or as `{data: {...}}`; an empty or non-object answer (a delete, a state change) reads as `{}`. */
function readRecord(body: unknown): ApiRecord {
  const record = unwrapRecord<unknown>(body);
  if (record === undefined || record === null || typeof record !== "object") return {};
  return record as ApiRecord;
}

/** A page in whatever envelope; 2xx without a list is a ServerError. */
function readPage(fn: OperationName, body: unknown, query: Query | undefined): Page<unknown> {
  const requested = query as { page?: number; limit?: number } | undefined;
  const page = toPage(body, { page: requested?.page, limit: requested?.limit });
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
