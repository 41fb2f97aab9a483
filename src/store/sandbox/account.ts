// Organizations, their channels and their API keys. An organization is made
// with its keys and its seed (seed.ts); the API never writes them. Keys are
// kept as SHA-256 hashes only: the secret is handed out once, when it is made
// or given, and never stored (docs/sandbox.md, "Several organizations").
import { createHash } from "node:crypto";
import type { Queryable } from "../db.ts";
import type { ApiKeyRow, ChannelRow, OrganizationRow } from "./rows.ts";
import { OrgTable, SandboxTable } from "./sql.ts";

// Advisory lock (two keys: this namespace, then 1) held while the first organization is made.
const FIRST_ORGANIZATION_LOCK = 0x5342_4f52; // "SBOR"

/** What the database keeps of a key: its SHA-256, in hex. */
export const hashKey = (secret: string) => createHash("sha256").update(secret).digest("hex");

/** A key to keep for an organization: the secret is hashed here, never written. */
export interface NewKey {
  name: string;
  secret: string;
  scopes: string[];
}

export class AccountStore extends SandboxTable {
  async isEmpty(): Promise<boolean> {
    return (await this.countRows("select count(*)::int as n from sandbox.organizations", [])) === 0;
  }

  /** The first organization: the one of the keys given to startSandbox, and of rows older than organizations. */
  async firstOrganization(): Promise<OrganizationRow | undefined> {
    return this.one<OrganizationRow>("select * from sandbox.organizations order by id limit 1");
  }

  /**
   * Inside `tx`: waits for any other process making the first organization
   * (two starts on one empty PostgreSQL database), then answers the first
   * organization, if there is one by then.
   */
  async lockFirstOrganization(tx: Queryable): Promise<OrganizationRow | undefined> {
    await tx.query("select pg_advisory_xact_lock($1, $2)", [FIRST_ORGANIZATION_LOCK, 1]);
    return this.one<OrganizationRow>("select * from sandbox.organizations order by id limit 1", [], tx);
  }

  async organization(id: number): Promise<OrganizationRow | undefined> {
    return this.one<OrganizationRow>("select * from sandbox.organizations where id = $1", [id]);
  }

  async insertOrganization(
    tx: Queryable,
    o: { name: string; plan: Record<string, unknown>; createdAt: Date },
  ): Promise<OrganizationRow> {
    const row = await this.one<OrganizationRow>(
      "insert into sandbox.organizations (name, plan, created_at) values ($1, $2, $3) returning *",
      [o.name, JSON.stringify(o.plan), o.createdAt],
      tx,
    );
    return row!;
  }

  /** The key whose secret hashes to `keyHash`, with its organization. */
  async keyByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.one<ApiKeyRow>("select id, org_id, name, scopes from sandbox.api_keys where key_hash = $1", [
      keyHash,
    ]);
  }

  /** Keeps new keys of an organization (hashed). */
  async addKeys(tx: Queryable, org: number, keys: NewKey[]): Promise<void> {
    for (const k of keys) {
      await tx.query(
        `insert into sandbox.api_keys (org_id, name, key_hash, scopes, created_at)
         values ($1, $2, $3, $4::text[], $5)`,
        [org, k.name, hashKey(k.secret), k.scopes, this.now()],
      );
    }
  }

  /**
   * The keys given to startSandbox (SANDBOX_API_KEY, SANDBOX_READ_KEY) become
   * the first organization's: given ones are kept (hashed), those of an
   * earlier start that are no longer given stop working. The first of two
   * equal secrets wins.
   */
  async setStartKeys(org: number, keys: NewKey[]): Promise<void> {
    const kept = new Map<string, NewKey>();
    for (const k of keys) if (!kept.has(hashKey(k.secret))) kept.set(hashKey(k.secret), k);
    const hashes = [...kept.keys()];
    await this.db.transaction(async (tx) => {
      await tx.query("delete from sandbox.api_keys where from_start and key_hash <> all($1::text[])", [
        hashes,
      ]);
      for (const [keyHash, k] of kept) {
        await tx.query(
          `insert into sandbox.api_keys (org_id, name, key_hash, scopes, from_start, created_at)
           values ($1, $2, $3, $4::text[], true, $5)
           on conflict (key_hash) do update set org_id = excluded.org_id, name = excluded.name,
             scopes = excluded.scopes, from_start = true`,
          [org, k.name, keyHash, k.scopes, this.now()],
        );
      }
    });
  }
}

/** The account as one organization sees it (GET /me, and the channel of a template, message or campaign). */
export class OrgAccountStore extends OrgTable {
  async organization(): Promise<OrganizationRow | undefined> {
    return this.one<OrganizationRow>("select * from sandbox.organizations where id = $1", [this.org]);
  }

  async channels(): Promise<ChannelRow[]> {
    return (
      await this.db.query<ChannelRow>("select * from sandbox.channels where org_id = $1 order by id", [
        this.org,
      ])
    ).rows;
  }

  async channel(id: number): Promise<ChannelRow | undefined> {
    return this.one<ChannelRow>("select * from sandbox.channels where id = $1 and org_id = $2", [
      id,
      this.org,
    ]);
  }
}
