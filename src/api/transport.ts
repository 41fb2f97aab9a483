// The transport: the one road every request of the client takes. It builds
// the request (path, query, headers, body), waits for a token of the key's
// read or write budget (interactive before background), sends one attempt at
// a time (http.ts), retries GETs after network errors and 5xx, waits out 429s
// (Retry-After, else backoff with full jitter), and turns every failure into a
// typed error (errors.ts) with the API key scrubbed. A write that may have
// reached the service is never sent twice. An interactive call (a person
// waits) has one deadline for all of it: token, attempts and backoffs; then it
// fails with TimeoutError. Background calls keep their own patience. Hooks (MessagingApi.withHook) run
// around each request; the command core audits writes with one.

import { ConfigError } from "../platform/errors.ts";
import { type LogsAt, maskSecret } from "../platform/log.ts";
import { metrics } from "../platform/metrics.ts";
import { BudgetError, type RateLimitError, TimeoutError, ValidationError } from "./errors.ts";
import {
  errorFor,
  type HttpRequest,
  networkError,
  PoolLease,
  parseBody,
  retryAfterMs,
  send,
  TransportFailure,
} from "./http.ts";
import { multipartBody } from "./multipart.ts";
import type { HttpMethod, OperationName } from "./operations.ts";
import { type BudgetStats, type Clock, keyHash, type RateLimiter, sharedLimiter } from "./rate-limit.ts";
import { type FieldProblem, formatProblems } from "./schemas.ts";
import type { ApiResponse, CallOptions, ImportFile, RequestHook, RequestInfo } from "./types.ts";

/** The part of a pino logger the client uses. */
export type ClientLogger = LogsAt<"warn" | "debug">;

export interface TransportOptions {
  /** Base address of the API, ending with the version segment, e.g. `http://127.0.0.1:4010/v1`. */
  baseUrl: string;
  apiKey: string;
  /** Time allowed for one attempt (headers and body), in ms. */
  timeoutMs?: number;
  /**
   * One deadline for a whole interactive call, in ms: the wait for a token, every
   * attempt and every backoff. Background calls have none. 0: no deadline.
   */
  deadlineMs?: number;
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

/** One call of an operation, its input already checked. */
export interface TransportRequest<T> {
  operation: OperationName;
  method: HttpMethod;
  /** Path relative to the base URL, as the table writes it: `/tags/{id}`. */
  path: string;
  id?: number;
  query?: Record<string, unknown>;
  json?: unknown;
  multipart?: ImportFile & { fields: Record<string, string> };
  /** Turns the parsed body of a 2xx answer into what the caller gets. */
  read(body: unknown): T;
}

/** Query values as the service reads them: strings, booleans as "true"/"false", undefined left out. */
export function queryString(query: Record<string, unknown> | undefined): string {
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

/** A hook's `next`: it may be called once, so that no hook sends a request twice. */
function once<T>(next: () => Promise<T>, operation: string): () => Promise<T> {
  let called = false;
  return () => {
    if (called) return Promise.reject(new Error(`${operation}: a hook called next() twice`));
    called = true;
    return next();
  };
}

/** A retry is started only when at least this long is left before the deadline (or half the attempt timeout when that is shorter). */
const MIN_ATTEMPT_MS = 1_000;

/** The longest API key the client sends: a key is a short token, never a document. */
export const API_KEY_MAX_LENGTH = 512;

/**
 * Why `key` cannot be an API key, in words a person reads (the key itself never
 * in them), or undefined when it can be: a key is printable ASCII, at most
 * API_KEY_MAX_LENGTH characters. Anything else would fail as a header (NUL,
 * letters outside Latin-1: "could not be reached") or be sent whole (a pasted file).
 */
export function apiKeyProblem(key: string): string | undefined {
  if (key.length > API_KEY_MAX_LENGTH)
    return `This is too long to be an API key: a key has at most ${API_KEY_MAX_LENGTH} characters.`;
  if (!/^[\x20-\x7e]*$/.test(key))
    return "This is not an API key: it has characters a key never has (a key is plain letters, digits and punctuation).";
  return undefined;
}

const BASE_URL_RULE = "baseUrl must be an http or https URL such as http://127.0.0.1:4010/v1";

export class Transport {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly deadlineMs: number;
  private readonly minAttemptMs: number;
  private readonly maxRetries: number;
  private readonly maxRateLimitWaitMs: number;
  private readonly backoffBaseMs: number;
  private readonly random: () => number;
  private readonly logger?: ClientLogger;
  private readonly limiter: RateLimiter;
  private lease?: PoolLease;

  constructor(opts: TransportOptions) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw new ConfigError(BASE_URL_RULE);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(BASE_URL_RULE);
    if (!opts.apiKey?.trim()) throw new ConfigError("apiKey must not be empty");
    const keyProblem = apiKeyProblem(opts.apiKey);
    if (keyProblem) throw new ConfigError(`apiKey: ${keyProblem}`);
    this.origin = url.origin;
    this.basePath = url.pathname.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.timeoutMs = opts.timeoutMs ?? 15_000;
    this.deadlineMs = opts.deadlineMs ?? 20_000;
    this.minAttemptMs = Math.min(MIN_ATTEMPT_MS, this.timeoutMs / 2);
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
    this.lease = new PoolLease(this.origin, keyHash(opts.apiKey));
  }

  /** Tokens available and requests queued per lane. */
  budget(): BudgetStats {
    return this.limiter.stats();
  }

  /** Releases the key's connection pool (shared with other transports of the same key and origin until the last closes). */
  async close(): Promise<void> {
    const lease = this.lease;
    this.lease = undefined;
    await lease?.release();
  }

  /** Removes the API key from any text bound for a message or a log line. */
  readonly scrub = (text: string): string =>
    this.apiKey.length >= 4 ? text.split(this.apiKey).join(maskSecret(this.apiKey)) : text;

  /** The error of input refused before any request. */
  refuse(operation: string, problems: FieldProblem[]): ValidationError {
    return new ValidationError(this.scrub(formatProblems(problems)), problems, { operation });
  }

  /** The deadline passed before any attempt, waiting on the key's own budget: nothing was sent. */
  private unsent(fn: string, kind: "read" | "write", deadlineMs: number): BudgetError {
    const perMinute = this.limiter.stats()[kind].perMinute;
    const retryAfterMs = Math.ceil(this.limiter.waitEstimateMs(kind));
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    return new BudgetError(
      `${fn}: not sent: this key's budget of ${perMinute} ${kind}s a minute is used; try again in ${seconds} s`,
      { operation: fn, budget: kind, perMinute, retryAfterMs, deadlineMs },
    );
  }

  private backoff(attempt: number): number {
    return Math.round(this.random() * Math.min(15_000, this.backoffBaseMs * 2 ** attempt));
  }

  /** Whether a wait of `wait` ms and then one more attempt fit in the time `left`. */
  private fits(wait: number, left: number): boolean {
    return wait + this.minAttemptMs <= left;
  }

  /** Runs `req` through `hooks` (the first one outermost), then sends it. */
  async request<T>(
    req: TransportRequest<T>,
    opts: CallOptions = {},
    hooks: readonly RequestHook[] = [],
  ): Promise<T> {
    const path = req.path.replace("{id}", String(req.id));
    let next = () => this.attempts(req, path, opts);
    if (hooks.length > 0) {
      const info: RequestInfo = { operation: req.operation, method: req.method, path, body: req.json };
      for (const hook of hooks.toReversed()) {
        const inner = once(next, req.operation);
        next = () => hook(info, inner);
      }
    }
    return (await next()).data;
  }

  /** Sends `req` to `relativePath` (id filled in), retrying as the rules allow, and reads the answer. */
  private async attempts<T>(
    req: TransportRequest<T>,
    relativePath: string,
    opts: CallOptions,
  ): Promise<ApiResponse<T>> {
    const fn = req.operation;
    if (!this.lease) throw new Error("the messaging client is closed");
    const isRead = req.method === "GET";
    const kind = isRead ? "read" : "write";
    const lane = opts.lane ?? "interactive";
    const path = `${this.basePath}${relativePath}${queryString(req.query)}`;
    const headers: Record<string, string> = {
      "x-api-key": this.apiKey,
      accept: "application/json",
      "user-agent": "switchboard",
    };
    let body: HttpRequest["body"];
    let replayable = true;
    if (req.json !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(req.json);
    }

    // One deadline for the whole call when a person waits; background work has none.
    const deadlineMs = lane === "interactive" ? this.deadlineMs : 0;
    const deadlineAt = deadlineMs > 0 ? Date.now() + deadlineMs : Number.POSITIVE_INFINITY;
    const left = () => deadlineAt - Date.now();
    const deadline = deadlineMs > 0 ? AbortSignal.timeout(deadlineMs) : undefined;
    const waitSignal =
      deadline && opts.signal ? AbortSignal.any([opts.signal, deadline]) : (deadline ?? opts.signal);
    let sent = 0;
    let mayHaveReached = false;
    const expired = (cause?: unknown) =>
      new TimeoutError(
        `${fn}: the messaging API did not answer within ${deadlineMs} ms (${sent} attempt${sent === 1 ? "" : "s"})`,
        mayHaveReached,
        deadlineMs,
        sent,
        { operation: fn, cause },
      );

    for (let attempt = 0; ; attempt++) {
      if (req.multipart) {
        // A buffered file is encoded again per attempt; a streamed one is sent once only.
        const mp = await multipartBody(req.multipart, req.multipart.fields);
        body = mp.body as HttpRequest["body"];
        replayable = mp.replayable;
        if (mp.contentType) headers["content-type"] = mp.contentType;
      }
      try {
        const waitedFrom = performance.now();
        await this.limiter.acquire(kind, lane, waitSignal);
        if (performance.now() - waitedFrom > 5) metrics.rateLimitWaits.inc({ kind, lane });
      } catch (err) {
        if (deadline?.aborted && !opts.signal?.aborted)
          throw sent === 0 ? this.unsent(fn, kind, deadlineMs) : expired();
        throw err;
      }
      const pool = this.lease?.pool();
      if (!pool) throw new Error("the messaging client is closed");
      const attemptMs = opts.timeoutMs ?? this.timeoutMs;
      const timeoutMs = Math.min(attemptMs, Math.floor(left()));
      if (timeoutMs <= 0) throw expired();
      const log = { operation: fn, method: req.method, path: req.path, id: req.id, attempt };
      let res: Awaited<ReturnType<typeof send>>;
      sent += 1;
      const attemptStarted = performance.now();
      const observe = (status: string) => {
        metrics.apiRequests.inc({ operation: fn, lane, status });
        metrics.apiLatency.observe({ operation: fn, lane }, (performance.now() - attemptStarted) / 1000);
      };
      try {
        res = await send(pool, {
          method: req.method,
          path,
          headers,
          body,
          timeoutMs,
          signal: opts.signal,
        });
      } catch (err) {
        if (!(err instanceof TransportFailure)) throw err;
        observe(err.timedOut ? "timeout" : "network");
        if (err.sent) mayHaveReached = true;
        // The deadline, not the attempt's own timeout, cut this attempt short.
        const cut = err.timedOut && timeoutMs < attemptMs;
        const wait = this.backoff(attempt);
        // A write that may have reached the service is never sent twice: it could be performed twice.
        const retry =
          attempt < this.maxRetries && replayable && (isRead || !err.sent) && !cut && this.fits(wait, left());
        this.logger?.warn(
          { ...log, error: err.message, ...(err.systemCode ? { code: err.systemCode } : {}), retry },
          "messaging API request failed",
        );
        if (!retry) {
          const failure = networkError(err, fn);
          // Out of time rather than out of retries: the person is told the deadline passed.
          const outOfTime = cut || (attempt < this.maxRetries && replayable && (isRead || !err.sent));
          throw outOfTime ? expired(failure) : failure;
        }
        await sleep(wait, opts.signal);
        continue;
      }
      observe(String(res.status));
      this.logger?.debug({ ...log, status: res.status }, "messaging API answered");
      if (res.status >= 200 && res.status < 300)
        return { status: res.status, data: req.read(parseBody(res)) };

      if (res.status === 429) {
        // A 429 means nothing was done, so a write may be retried too.
        const wait = retryAfterMs(res.headers) ?? this.backoff(attempt);
        const retry =
          attempt < this.maxRetries &&
          replayable &&
          wait <= this.maxRateLimitWaitMs &&
          this.fits(wait, left());
        this.logger?.warn({ ...log, status: 429, waitMs: wait, retry }, "messaging API rate limit hit");
        if (!retry) throw errorFor(res, fn, this.scrub, wait) as RateLimitError;
        // Every caller of the key waits, not only this one.
        this.limiter.penalize(kind, wait);
        continue;
      }
      if (res.status >= 500 && isRead && attempt < this.maxRetries) {
        const wait = this.backoff(attempt);
        if (this.fits(wait, left())) {
          this.logger?.warn({ ...log, status: res.status, retry: true }, "messaging API server error");
          await sleep(wait, opts.signal);
          continue;
        }
      }
      throw errorFor(res, fn, this.scrub);
    }
  }
}
