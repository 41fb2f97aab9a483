// What the sandbox's handlers share: the store, the clock and the limits, and
// the caller's API key on every request. A leaf: the app (app.ts) and the
// handlers (routes/) both import it, never each other.
import type { Scope } from "../api/operations.ts";
import type { SandboxStore } from "../store/sandbox/store.ts";

export interface ApiKey {
  name: string;
  secret: string;
  scopes: Scope[];
}

export interface SandboxContext {
  store: SandboxStore;
  now: () => Date;
  templateApprovalMs: number;
  importMaxBytes: number;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The caller's key: a request decoration (app.ts), set by the key check before any route runs. */
    apiKey: ApiKey | null;
  }
}
