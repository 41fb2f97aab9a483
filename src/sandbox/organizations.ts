// Organizations of the sandbox: the first one, made at the first start with
// the keys given to startSandbox, and more made on demand (Sandbox.createOrganization,
// POST /_sandbox/organizations), each with two fresh keys handed out once and
// kept only as hashes, and its own seed (docs/sandbox.md, "Several organizations").
import { randomBytes } from "node:crypto";
import type { Scope } from "../api/operations.ts";
import type { NewKey } from "../store/sandbox/account.ts";
import type { OrganizationRow } from "../store/sandbox/rows.ts";
import { organizationCreatedAt, type SeedKind, seedOrganization } from "../store/sandbox/seed.ts";
import { DEMO_ORGANIZATION_NAME, DEMO_PLAN } from "../store/sandbox/seed-data.ts";
import type { SandboxStore } from "../store/sandbox/store.ts";

/** What a new organization hands out, once: its keys are never shown again. */
export interface NewOrganization {
  id: number;
  name: string;
  /** Read and write. */
  apiKey: string;
  /** Read only. */
  readKey: string;
}

export interface OrganizationOptions {
  /** Default "Acme Retail (sandbox)". */
  name?: string;
  /** "demo" (default): the same demo data as the first organization, its own rows; "empty": its channels only. */
  seed?: SeedKind;
}

const READ_WRITE: Scope[] = ["read", "write"];
const READ_ONLY: Scope[] = ["read"];

/** The two keys of an organization, named as GET /me shows them. */
export const keysOf = (apiKey: string, readKey: string): NewKey[] => [
  { name: "Sandbox key (read, write)", secret: apiKey, scopes: READ_WRITE },
  { name: "Sandbox key (read only)", secret: readKey, scopes: READ_ONLY },
];

/** A fresh key: `sbx_` and 32 random characters. */
const freshKey = () => `sbx_${randomBytes(24).toString("base64url")}`;

/**
 * Makes an organization with its seed (and `keys`, hashed) in one
 * transaction. `first`: only when there is none yet (else answers the first).
 */
export async function makeOrganization(
  store: SandboxStore,
  now: Date,
  opts: OrganizationOptions & { keys?: NewKey[]; first?: boolean },
): Promise<OrganizationRow> {
  return store.db.transaction(async (tx) => {
    const existing = opts.first ? await store.account.lockFirstOrganization(tx) : undefined;
    if (existing) return existing;
    const org = await store.account.insertOrganization(tx, {
      name: opts.name ?? DEMO_ORGANIZATION_NAME,
      plan: DEMO_PLAN,
      createdAt: organizationCreatedAt(now),
    });
    if (opts.keys) await store.account.addKeys(tx, org.id, opts.keys);
    await seedOrganization(tx, org.id, now, opts.seed ?? "demo");
    return org;
  });
}

/** A new organization with two fresh keys, returned once. */
export async function createOrganization(
  store: SandboxStore,
  now: Date,
  opts: OrganizationOptions = {},
): Promise<NewOrganization> {
  const apiKey = freshKey();
  const readKey = freshKey();
  const org = await makeOrganization(store, now, { ...opts, keys: keysOf(apiKey, readKey) });
  return { id: org.id, name: org.name, apiKey, readKey };
}
