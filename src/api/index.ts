// The messaging API client and its contracts, for the rest of the project.
export {
  type ClientLogger,
  MessagingClient,
  type MessagingClientOptions,
  type PaginateOptions,
} from "./client.ts";
export * from "./errors.ts";
export { OPERATIONS, type Operation, type OperationName, type Scope, scopeOf } from "./operations.ts";
export { iteratePages, toPage, unwrapRecord } from "./pages.ts";
export {
  type BudgetStats,
  type Clock,
  RateLimiter,
  type RateLimiterOptions,
  sharedLimiter,
} from "./rate-limit.ts";
export { Transport, type TransportOptions } from "./transport.ts";
export type * from "./types.ts";
