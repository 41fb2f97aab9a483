// What the sandbox's handlers share: the store, the clock and the limits, and
// the caller's API key on every request, which names its organization. A
// leaf: the app (app.ts) and the handlers (routes/) both import it, never
// each other.
import type { FastifyRequest } from "fastify";
import type { Scope } from "../api/operations.ts";
import type { OrgStore, SandboxStore } from "../store/sandbox/store.ts";

export interface ApiKey {
  /** The key's row (sandbox.api_keys) and its organization. */
  id: number;
  orgId: number;
  name: string;
  /** The secret as the request sent it (X-API-Key): only in memory, never stored. */
  secret: string;
  scopes: Scope[];
}

export interface SandboxContext {
  /** The whole sandbox; a request sees only its key's organization (`orgStore`). */
  store: SandboxStore;
  /** The first organization: its read-write key may create organizations (POST /_sandbox/organizations). */
  firstOrgId: number;
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

/** The data of the organization of the request's key: every handler reads and writes through it. */
export const orgStore = (ctx: SandboxContext, req: FastifyRequest): OrgStore =>
  ctx.store.forOrg(req.apiKey!.orgId);
