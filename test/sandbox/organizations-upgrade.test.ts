// A sandbox database from before organizations (migrations up to 003, rows
// without org_id) upgrades in place: its rows belong to the first
// organization, which keeps the start keys; new organizations start beside it.
// And on disk, no key is ever written in the clear.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startSandbox } from "../../src/sandbox/index.ts";
import { type Db, openDb } from "../../src/store/db.ts";
import { migrate } from "../../src/store/migrate.ts";
import { SANDBOX_MIGRATIONS } from "../../src/store/sandbox/migrations.ts";
import { call, onSandbox, onSandboxInDir, type Rec, tempDir } from "../helpers/sandbox.ts";

const before = { ...SANDBOX_MIGRATIONS, migrations: SANDBOX_MIGRATIONS.migrations.slice(0, 3) };

/** Paths of the files under `dir` whose bytes hold one of `needles`. */
async function filesHolding(dir: string, needles: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const bytes = await readFile(path);
    for (const n of needles) if (bytes.includes(Buffer.from(n))) found.push(`${path} holds a key`);
  }
  return found;
}

/** Opens an in-memory database, runs `body` on it and closes it, whatever happens. */
async function onFreshDb(body: (db: Db) => Promise<void>): Promise<void> {
  const db = await openDb({});
  try {
    await body(db);
  } finally {
    await db.close();
  }
}

describe("sandbox organizations: upgrade and storage", () => {
  it("upgrades a one-organization database: its rows are the first organization's, beside a new one", async () => {
    await onFreshDb(async (db) => {
      expect(await migrate(db, before)).toEqual([
        "001_init",
        "002_campaign_messages",
        "003_message_file_name",
      ]);
      const at = new Date("2026-01-01T00:00:00Z");
      await db.query(
        `insert into sandbox.organizations (name, plan, created_at) values ('Old Org', '{"name":"Business"}', $1)`,
        [at],
      );
      await db.query(
        `insert into sandbox.channels (id, type, name, phone, created_at) values
         (1, 'phonechat', 'Old Store', '+10000000001', $1), (2, 'phonechat', 'Old Support', null, $1)`,
        [at],
      );
      await db.query(
        `insert into sandbox.contacts (phone, first_name, created_at, updated_at) values
         ('+14155550300', 'Olga', $1, $1), ('+14155550301', 'Omar', $1, $1)`,
        [at],
      );
      await db.query(
        "insert into sandbox.tags (name, color, created_at, updated_at) values ('Old', '#000000', $1, $1)",
        [at],
      );

      await onSandbox(
        { db, campaignTickMs: 0, apiKey: "old_rw_key_1", readKey: "old_ro_key_1" },
        async (sb) => {
          const me = await call(sb, "GET", "/me");
          expect(me.body.organization).toMatchObject({ id: 1, name: "Old Org" });
          expect(me.body.channels.map((c: Rec) => c.name)).toEqual(["Old Store", "Old Support"]);
          expect((await call(sb, "GET", "/contacts")).body.data.map((c: Rec) => c.first_name)).toEqual([
            "Omar",
            "Olga",
          ]);
          expect(
            (await call(sb, "GET", "/tags", { key: "old_ro_key_1" })).body.data.map((t: Rec) => t.name),
          ).toEqual(["Old"]);

          const b = await sb.createOrganization({ name: "New Org", seed: "empty" });
          expect((await sb.channels({ orgId: b.id })).map((c) => c.id)).toEqual([3, 4]);
          expect((await call(sb, "GET", "/contacts", { key: b.apiKey })).body.meta.total).toBe(0);
          // The old unique phone is now unique per organization.
          const same = await call(sb, "POST", "/contacts", {
            key: b.apiKey,
            body: { phone: "+14155550300" },
          });
          expect(same.status).toBe(201);
          expect((await call(sb, "POST", "/contacts", { body: { phone: "+14155550300" } })).status).toBe(409);
          const tagged = await call(sb, "POST", "/tags", {
            key: b.apiKey,
            body: { name: "old", color: "#000000" },
          });
          expect(tagged.status).toBe(201);
        },
      );
    });
  }, 60_000);

  it("gives rows of a database without any organization to a first one made for them", async () => {
    await onFreshDb(async (db) => {
      await migrate(db, before);
      const at = new Date("2026-01-01T00:00:00Z");
      await db.query(
        "insert into sandbox.contacts (phone, first_name, created_at, updated_at) values ('+14155550400', 'Orphan', $1, $1)",
        [at],
      );
      await onSandbox({ db, campaignTickMs: 0, seed: false }, async (sb) => {
        expect((await call(sb, "GET", "/contacts")).body.data.map((c: Rec) => c.first_name)).toEqual([
          "Orphan",
        ]);
        expect((await call(sb, "GET", "/me")).body.organization.id).toBe(sb.orgId);
      });
    });
  }, 60_000);

  it("makes one first organization when two sandboxes start together on one empty database", async () => {
    await onFreshDb(async (db) => {
      const [one, two] = await Promise.all([
        startSandbox({ db, campaignTickMs: 0 }),
        startSandbox({ db, campaignTickMs: 0 }),
      ]);
      try {
        expect(one.orgId).toBe(two.orgId);
        const orgs = await db.query<{ n: number }>("select count(*)::int as n from sandbox.organizations");
        expect(orgs.rows[0]!.n).toBe(1);
        expect((await call(two, "GET", "/contacts")).body.meta.total).toBe(30);
      } finally {
        await one.close();
        await two.close();
      }
    });
  }, 60_000);

  it("writes no key in the clear in the database files; changed start keys replace the old ones", async () => {
    const dir = await tempDir("sandbox-keys-");
    const apiKey = "sb_file_scan_rw_4c1d9e";
    const readKey = "sb_file_scan_ro_8a2f7b";
    const b = await onSandboxInDir(dir, { campaignTickMs: 0, apiKey, readKey }, async (first) => {
      const b = await first.createOrganization({ name: "On disk", seed: "empty" });
      expect((await call(first, "GET", "/me", { key: b.apiKey })).status).toBe(200);
      return b;
    });
    expect(await filesHolding(dir, [apiKey, readKey, b.apiKey, b.readKey])).toEqual([]);

    // A restart with another read-write key: the old one stops working, B's still work.
    await onSandboxInDir(
      dir,
      { campaignTickMs: 0, apiKey: "sb_file_scan_rw_new", readKey },
      async (second) => {
        expect((await call(second, "GET", "/me", { key: apiKey })).status).toBe(401);
        expect((await call(second, "GET", "/me")).body.organization.id).toBe(second.orgId);
        expect((await call(second, "GET", "/me", { key: readKey })).status).toBe(200);
        expect((await call(second, "GET", "/me", { key: b.readKey })).body.organization.id).toBe(b.id);
      },
    );
    // Two on-disk PGlite starts: slow on a busy machine; a timeout, not a timed assertion.
  }, 120_000);
});
