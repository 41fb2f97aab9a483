// Typed errors of the messaging API client, one class per way a call can fail,
// so callers (the command core) can translate each into plain words.
import { SwitchboardError } from "../platform/errors.ts";
import type { FieldProblem } from "./schemas.ts";

export abstract class ApiError extends SwitchboardError {
  abstract readonly kind: string;
  /** `api_` and the kind: `api_validation`, `api_rate_limit`… */
  get code(): string {
    return `api_${this.kind}`;
  }
  /** HTTP status when the service answered, undefined when it did not. */
  readonly status?: number;
  /** Operation that failed, for example `createTag`. */
  readonly operation?: string;

  constructor(message: string, init: { status?: number; operation?: string; cause?: unknown } = {}) {
    super(message, { cause: init.cause });
    this.status = init.status;
    this.operation = init.operation;
  }
}

/** The input was refused, by the client before any request or by the service with 400/422. */
export class ValidationError extends ApiError {
  readonly kind = "validation";
  readonly problems: FieldProblem[];
  constructor(message: string, problems: FieldProblem[], init: { status?: number; operation?: string } = {}) {
    super(message, init);
    this.problems = problems;
  }
}

/** 401: the API key is missing or not valid. */
export class AuthenticationError extends ApiError {
  readonly kind = "auth";
}

/** 403: the key lacks the scope (read or write) the operation needs. */
export class PermissionError extends ApiError {
  readonly kind = "scope";
}

/** 404: no such record (or it was deleted). */
export class NotFoundError extends ApiError {
  readonly kind = "not_found";
}

/** 409 (or another refusal of a state rule): for example deleting an approved template. */
export class ConflictError extends ApiError {
  readonly kind = "conflict";
}

/** 429 that outlasted the client's own waiting, or a wait the caller would not accept. */
export class RateLimitError extends ApiError {
  readonly kind = "rate_limited";
  /** Expected wait before the call can go through, in milliseconds. */
  readonly retryAfterMs: number;
  constructor(message: string, retryAfterMs: number, init: { status?: number; operation?: string } = {}) {
    super(message, init);
    this.retryAfterMs = retryAfterMs;
  }
}

/** 5xx from the service. */
export class ServerError extends ApiError {
  readonly kind = "server";
}

/** No answer: connection refused or reset, DNS, or a timeout. */
export class NetworkError extends ApiError {
  readonly kind: "network" | "timeout" = "network";
  /** True when the last attempt got no answer in time (rather than a refused or broken connection). */
  readonly timedOut: boolean;
  /** True when a write may have reached the service before the failure (so it is not retried blindly). */
  readonly mayHaveReachedServer: boolean;
  constructor(
    message: string,
    mayHaveReachedServer: boolean,
    init: { operation?: string; cause?: unknown; timedOut?: boolean } = {},
  ) {
    super(message, init);
    this.mayHaveReachedServer = mayHaveReachedServer;
    this.timedOut = init.timedOut ?? false;
  }
}

/**
 * An interactive call ran out of its one deadline (API_DEADLINE_MS): the wait
 * for a token, every attempt and every backoff together. A person gets an
 * answer in words instead of waiting on.
 */
export class TimeoutError extends NetworkError {
  override readonly kind = "timeout";
  /** The deadline that passed, in ms. */
  readonly deadlineMs: number;
  /** Attempts sent before it passed. */
  readonly attempts: number;
  constructor(
    message: string,
    mayHaveReachedServer: boolean,
    deadlineMs: number,
    attempts: number,
    init: { operation?: string; cause?: unknown } = {},
  ) {
    super(message, mayHaveReachedServer, { ...init, timedOut: true });
    this.deadlineMs = deadlineMs;
    this.attempts = attempts;
  }
}

/**
 * An interactive call's deadline passed while it waited for a token of the
 * key's own budget (rate-limit.ts), before any attempt: nothing was sent, and
 * the service was never asked. Not a NetworkError: there is no doubt to settle.
 */
export class BudgetError extends ApiError {
  readonly kind = "budget";
  /** The budget it waited on. */
  readonly budget: "read" | "write";
  /** That budget: requests a minute for this key. */
  readonly perMinute: number;
  /** About how long until a call of this kind would get a token now, in ms. */
  readonly retryAfterMs: number;
  /** The deadline that passed, in ms. */
  readonly deadlineMs: number;
  constructor(
    message: string,
    init: {
      operation?: string;
      budget: "read" | "write";
      perMinute: number;
      retryAfterMs: number;
      deadlineMs: number;
    },
  ) {
    super(message, { operation: init.operation });
    this.budget = init.budget;
    this.perMinute = init.perMinute;
    this.retryAfterMs = init.retryAfterMs;
    this.deadlineMs = init.deadlineMs;
  }
}

export type AnyApiError =
  | ValidationError
  | AuthenticationError
  | PermissionError
  | NotFoundError
  | ConflictError
  | RateLimitError
  | ServerError
  | NetworkError
  | TimeoutError
  | BudgetError;

export const isApiError = (e: unknown): e is AnyApiError => e instanceof ApiError;
