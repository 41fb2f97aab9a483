// HTTP under the transport: one undici Pool per API key and origin (shared by
// every transport of that key, released when the last one closes, at most
// MAX_POOLS open: the least recently used is closed first), one attempt
// per call of `send`, and the translation of whatever the service answers into
// one readable message and a typed error. Retrying is transport.ts's business.

import { createRequire } from "node:module";
import type { Dispatcher, Pool } from "undici";
import { SwitchboardError } from "../platform/errors.ts";
import {
  type ApiError,
  AuthenticationError,
  ConflictError,
  NetworkError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  ServerError,
  ValidationError,
} from "./errors.ts";
import type { FieldProblem } from "./schemas.ts";

// ---------------------------------------------------------------- pools

// undici's Pool and its request() alone, by their paths in the package: its
// index loads fetch, WebSocket, caches and mocks as well, a tenth of a second
// of every start's CPU (docs/memory.md). The index adds request() to every
// dispatcher's prototype; here it is called on the pool. test/api/undici-pool.test.ts
// checks that both paths still give what the index gives.
const requireUndici = createRequire(import.meta.url);
export const UndiciPool = requireUndici("undici/lib/dispatcher/pool.js") as typeof Pool;
export const undiciRequest = requireUndici("undici/lib/api/api-request.js") as (
  this: Dispatcher,
  opts: Dispatcher.RequestOptions,
) => Promise<Dispatcher.ResponseData>;

/**
 * Connections of one key's pool. A key's budget (300 reads and 60 writes a
 * minute) needs few; the bound is what one customer's hanging calls can hold.
 */
export const KEY_CONNECTIONS = 8;
/** Pools open at once; past it, the least recently used is closed (its calls in flight finish first). */
export const MAX_POOLS = 256;

interface PoolEntry {
  origin: string;
  pool?: Pool;
  /** Leases open on this key's pool (transports of the key). */
  users: number;
}

// One entry per (origin, key hash), never the key itself. The Map's order is
// the order of use: least recently used first.
// state: the deployment's: connection pools by origin and key hash, shared by every workspace spending that key.
const pools = new Map<string, PoolEntry>();
// state: the deployment's: the count of the pools above (MAX_POOLS is the process's bound).
let openPools = 0;

function closeQuietly(pool: Pool): void {
  pool.close().catch(() => {});
}

/** Closes the least recently used pools past MAX_POOLS; their keys open a new one at their next call. */
function evict(): void {
  for (const entry of pools.values()) {
    if (openPools <= MAX_POOLS) return;
    if (!entry.pool) continue;
    closeQuietly(entry.pool);
    entry.pool = undefined;
    openPools -= 1;
  }
}

/**
 * A transport's hold on its key's pool at an origin: every client of the same
 * key and origin shares one pool of KEY_CONNECTIONS, so one key's hanging calls
 * queue behind each other and never in front of another key's.
 */
export class PoolLease {
  private readonly id: string;
  private released = false;

  constructor(origin: string, keyHash: string) {
    this.id = `${origin}#${keyHash}`;
    let entry = pools.get(this.id);
    if (!entry) {
      entry = { origin, users: 0 };
      pools.set(this.id, entry);
    }
    entry.users += 1;
  }

  /** The key's open pool, opened (again) when needed; undefined once released. */
  pool(): Pool | undefined {
    if (this.released) return undefined;
    const entry = pools.get(this.id);
    if (!entry) return undefined;
    // Most recently used last.
    pools.delete(this.id);
    pools.set(this.id, entry);
    if (!entry.pool || entry.pool.closed || entry.pool.destroyed) {
      if (!entry.pool) openPools += 1;
      // Keep-alive shorter than common server defaults (Node: 5 s) so a write
      // is not sent on a socket the server is just closing.
      entry.pool = new UndiciPool(entry.origin, { connections: KEY_CONNECTIONS, keepAliveTimeout: 4_000 });
      evict();
    }
    return entry.pool;
  }

  /** Gives the lease back; the last one of a key closes its pool. */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    const entry = pools.get(this.id);
    if (!entry) return;
    entry.users -= 1;
    if (entry.users > 0) return;
    pools.delete(this.id);
    const pool = entry.pool;
    if (!pool) return;
    entry.pool = undefined;
    openPools -= 1;
    await pool.close();
  }
}

/** Pools open now (tests and the benchmark). */
export const openPoolCount = (): number => openPools;

// ---------------------------------------------------------------- one attempt

export interface HttpRequest {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** Full path, base path included, query string included. */
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array | NodeJS.ReadableStream | FormData | null;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Error codes that mean the request never left this machine. */
const NOT_SENT_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/**
 * A system error's code in words, since the message may reach a person (the
 * Home tab's "could not be read"): "its address was not found", not "ENOTFOUND".
 * The code itself stays on the error's cause, for the logs.
 */
function codeWords(code: string | undefined): string {
  switch (code) {
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "its address was not found";
    case "ECONNREFUSED":
      return "it refused the connection";
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "EADDRNOTAVAIL":
      return "the network could not reach it";
    case "UND_ERR_CONNECT_TIMEOUT":
      return "the connection did not open in time";
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
      return "the connection was cut";
    default:
      return "the connection broke";
  }
}

function errorCodes(err: unknown): string[] {
  const codes: string[] = [];
  let e: unknown = err;
  for (let depth = 0; e && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") codes.push(code);
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const inner of errors) codes.push(...errorCodes(inner));
    e = (e as { cause?: unknown }).cause;
  }
  return codes;
}

/** Thrown by `send` when no answer came; `sent` says whether the request may have reached the service. */
export class TransportFailure extends SwitchboardError {
  readonly code = "transport";
  readonly sent: boolean;
  readonly timedOut: boolean;
  /** The system's code (`ENOTFOUND`), for the logs: the message says it in words. */
  readonly systemCode: string | undefined;
  constructor(
    message: string,
    sent: boolean,
    timedOut: boolean,
    options?: { cause?: unknown; systemCode?: string },
  ) {
    super(message, options);
    this.sent = sent;
    this.timedOut = timedOut;
    this.systemCode = options?.systemCode;
  }
}

/**
 * One request. Resolves with any HTTP answer (errors included); rejects with
 * TransportFailure when there was none, or with the caller's abort reason.
 */
export async function send(pool: Pool, req: HttpRequest): Promise<HttpResponse> {
  const timeout = AbortSignal.timeout(req.timeoutMs);
  const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
  let onAbort: (() => void) | undefined;
  try {
    const request = undiciRequest.call(pool, {
      method: req.method,
      path: req.path,
      headers: req.headers,
      // biome-ignore lint/suspicious/noExplicitAny: undici accepts Readable and FormData bodies.
      body: (req.body ?? null) as any,
      signal,
      headersTimeout: req.timeoutMs,
      bodyTimeout: req.timeoutMs,
      idempotent: req.method === "GET",
    });
    // undici cannot abort a request still queued for one of the pool's connections
    // (it aborts it once dispatched, before sending): the timeout and the caller's
    // signal end the wait here, so a call queued behind hanging ones keeps its deadline.
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(signal.reason);
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    // An answer that comes after the wait ended is read by no one: its body is dropped, freeing the socket.
    request.then(
      (res) => {
        if (signal.aborted) res.body.dump().catch(() => {});
      },
      () => {},
    );
    const res = await Promise.race([request, aborted]);
    const text = await res.body.text();
    return { status: res.statusCode, headers: res.headers, text };
  } catch (err) {
    if (req.signal?.aborted) throw req.signal.reason;
    const codes = errorCodes(err);
    const timedOut =
      timeout.aborted || codes.some((c) => c === "UND_ERR_HEADERS_TIMEOUT" || c === "UND_ERR_BODY_TIMEOUT");
    const sent = !codes.some((c) => NOT_SENT_CODES.has(c));
    const what = timedOut
      ? `no answer within ${req.timeoutMs} ms`
      : sent
        ? `the connection failed (${codeWords(codes[0])})`
        : `the service could not be reached (${codeWords(codes[0])})`;
    throw new TransportFailure(what, sent, timedOut, {
      cause: err,
      ...(codes[0] ? { systemCode: codes[0] } : {}),
    });
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

// ---------------------------------------------------------------- bodies

export function parseBody(res: HttpResponse): unknown {
  const text = res.text.trim();
  if (!text) return undefined;
  const type = String(res.headers["content-type"] ?? "");
  if (type.includes("json") || text.startsWith("{") || text.startsWith("[")) {
    try {
      return JSON.parse(text);
    } catch {
      // Not JSON after all: keep the text.
    }
  }
  return text;
}

/** `Retry-After` as milliseconds from now: delay-seconds or an HTTP date. */
export function retryAfterMs(headers: HttpResponse["headers"], now: number = Date.now()): number | undefined {
  const raw = headers["retry-after"];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

// ---------------------------------------------------------------- error bodies

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

const STATUS_TEXT: Record<number, string> = {
  400: "the service refused the input",
  401: "the API key was refused",
  403: "the API key lacks the scope this operation needs",
  404: "not found",
  409: "the service refused the change in the current state",
  422: "the service refused the input",
  429: "too many requests",
};

function textOf(v: unknown): string | undefined {
  if (typeof v === "string" && v.trim()) return v.trim();
  if (Array.isArray(v)) {
    const parts = v.map(textOf).filter((s): s is string => !!s);
    return parts.length ? parts.join("; ") : undefined;
  }
  if (isObject(v)) {
    return (
      textOf(v.message) ??
      textOf(v.detail) ??
      textOf(v.error_description) ??
      textOf(v.title) ??
      textOf(v.error)
    );
  }
  return undefined;
}

/** The one readable message of an error body, whatever its shape. */
export function messageOf(body: unknown, status: number): string {
  let text: string | undefined;
  if (typeof body === "string") {
    // Plain text, or an HTML error page: keep the words, drop the tags.
    text = body
      .replace(/<[^>]*>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  } else if (isObject(body)) {
    // NestJS puts the reason phrase in `error` and the detail in `message`: prefer the detail.
    text = textOf(body.message) ?? textOf(body.error) ?? textOf(body.errors) ?? textOf(body.detail);
  } else if (Array.isArray(body)) {
    text = textOf(body);
  }
  if (!text) text = STATUS_TEXT[status] ?? (status >= 500 ? "the service failed" : `HTTP ${status}`);
  return text.length > 500 ? `${text.slice(0, 497)}...` : text;
}

const FIELD = /^[A-Za-z_$][\w$]*(?:\.[\w$]+|\[\d+\])*$/;

/** One "field rule" message of a validation error, as NestJS's class-validator writes them. */
function problemOf(message: string): FieldProblem {
  if (message.startsWith("(body) ")) return { field: "(body)", rule: message.slice(7) };
  const each = /^each value in (\S+) (.+)$/.exec(message);
  if (each) return { field: each[1]!, rule: `each value ${each[2]}` };
  const extra = /^property (\S+) should not exist$/.exec(message);
  if (extra) return { field: extra[1]!, rule: "is not a member this operation accepts" };
  const space = message.indexOf(" ");
  const first = space > 0 ? message.slice(0, space) : "";
  if (first && FIELD.test(first)) {
    return { field: first.replace(/\[(\d+)\]/g, ".$1"), rule: message.slice(space + 1) };
  }
  return { field: "(body)", rule: message };
}

/** Field problems of a 400/422 body: NestJS string arrays, or `errors: [{field, message}]`. */
export function problemsOf(body: unknown): FieldProblem[] {
  if (!isObject(body)) return [];
  const inner = isObject(body.error) ? body.error : undefined;
  const messages = body.message ?? inner?.message;
  if (Array.isArray(messages)) {
    return messages.filter((m): m is string => typeof m === "string").map(problemOf);
  }
  const errors = body.errors ?? inner?.errors ?? inner?.details;
  if (Array.isArray(errors)) {
    const out: FieldProblem[] = [];
    for (const e of errors) {
      if (typeof e === "string") out.push(problemOf(e));
      else if (isObject(e)) {
        const field = e.field ?? e.property ?? e.path ?? e.param;
        const rule = textOf(e.message) ?? textOf(e.constraints) ?? textOf(e.msg);
        if (rule) {
          out.push({
            field: Array.isArray(field) ? field.join(".") : typeof field === "string" ? field : "(body)",
            rule,
          });
        }
      }
    }
    return out;
  }
  // A single text is a sentence about the request, not a "field rule" pair.
  if (typeof messages === "string") return [{ field: "(body)", rule: messages }];
  return [];
}

/** The typed error of an HTTP error answer. `scrub` removes secrets from the message. */
export function errorFor(
  res: HttpResponse,
  operation: string,
  scrub: (text: string) => string,
  retryAfter?: number,
): ApiError {
  const body = parseBody(res);
  const message = scrub(messageOf(body, res.status));
  const init = { status: res.status, operation };
  const s = res.status;
  if (s === 401) return new AuthenticationError(message, init);
  if (s === 403) return new PermissionError(message, init);
  if (s === 404) return new NotFoundError(message, init);
  if (s === 409) return new ConflictError(message, init);
  if (s === 429) return new RateLimitError(message, retryAfter ?? 0, init);
  if (s >= 500) return new ServerError(message, init);
  const problems = problemsOf(body).map((p) => ({ field: scrub(p.field), rule: scrub(p.rule) }));
  return new ValidationError(message, problems, init);
}

export function networkError(failure: TransportFailure, operation: string): NetworkError {
  return new NetworkError(`${operation}: ${failure.message}`, failure.sent, {
    operation,
    cause: failure.cause,
    timedOut: failure.timedOut,
  });
}
