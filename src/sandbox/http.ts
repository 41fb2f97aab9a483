// Errors the sandbox answers, NestJS style: `{statusCode, message, error}`,
// with `message` a list of "field rule" texts for invalid input (400) and one
// text otherwise. This file is the one place that decides error bodies.

import type { z } from "zod";
import { describeIssues, type FieldProblem, formatProblems } from "../api/schemas.ts";
import { SwitchboardError } from "../platform/errors.ts";

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
};

export const reasonOf = (status: number) => REASONS[status] ?? "Error";

export interface ErrorBody {
  statusCode: number;
  message: string | string[];
  error: string;
}

export class HttpError extends SwitchboardError {
  readonly code = "sandbox_http";
  readonly statusCode: number;
  readonly messages: string | string[];
  readonly headers: Record<string, string>;
  constructor(statusCode: number, messages: string | string[], headers: Record<string, string> = {}) {
    super(Array.isArray(messages) ? messages.join("; ") : messages);
    this.statusCode = statusCode;
    this.messages = messages;
    this.headers = headers;
  }

  get body(): ErrorBody {
    return { statusCode: this.statusCode, message: this.messages, error: reasonOf(this.statusCode) };
  }
}

export const badRequest = (messages: string[]) => new HttpError(400, messages);
export const problemsError = (problems: FieldProblem[]) =>
  badRequest(problems.map((p) => formatProblems([p])));
export const notFound = (what: string, id: number | string) =>
  new HttpError(404, `${what} ${id} was not found`);
/** The row asked for, or the 404 that names it. */
export const found = <R>(row: R | null | undefined, what: string, id: number | string): R => {
  if (!row) throw notFound(what, id);
  return row;
};
export const conflict = (message: string) => new HttpError(409, message);
export const unprocessable = (message: string) => new HttpError(422, message);

/** Parses with a shared schema; invalid input becomes 400 with one "field rule" per problem. */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (!r.success) throw problemsError(describeIssues(r.error, input));
  return r.data;
}

/** Path ids: anything but a positive whole number names nothing, so it is 404 like an unknown id. */
export function pathId(raw: string | undefined, what: string): number {
  if (!raw || !/^\d{1,9}$/.test(raw) || Number(raw) === 0) throw notFound(what, raw ?? "");
  return Number(raw);
}
