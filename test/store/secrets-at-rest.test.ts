// No key or token in the clear at rest (issue 19 §2, §6): after a workspace is
// installed (bot token, refresh token, installer's token) and connected (API
// key), no table of the database holds one of them as text, on PGlite and on
// PostgreSQL, and no file of an embedded database's folder holds their bytes
// (its tables, its write-ahead log).
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Keyring } from "../../src/platform/secrets.ts";
import { openDb, type Queryable } from "../../src/store/db.ts";
import { type Installation, Installations } from "../../src/store/installations.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { openTestDb, storeBackends } from "../helpers/db.ts";

const secrets = {
  bot: `xoxe.xoxb-TSEC-${randomBytes(12).toString("hex")}`,
  refresh: `xoxe-1-TSEC-${randomBytes(12).toString("hex")}`,
  user: `xoxp-TSEC-${randomBytes(12).toString("hex")}`,
  apiKey: `live_${randomBytes(16).toString("hex")}`,
};

const installation: Installation = {
  isEnterpriseInstall: false,
  teamId: "TSEC",
  teamName: "Secret Co",
  installerUserId: "UINSTALLER",
  bot: {
    token: secrets.bot,
    refreshToken: secrets.refresh,
    expiresAt: new Date(Date.now() + 12 * 3600_000),
    id: "BSEC",
    userId: "USECBOT",
    scopes: ["commands"],
  },
  user: { token: secrets.user, scopes: ["identify"] },
};

async function keep(db: Queryable & Parameters<typeof migrateStore>[0]): Promise<Installations> {
  await migrateStore(db);
  const store = await Installations.open(db, new Keyring(randomBytes(32)));
  await store.save(installation);
  await store.connect({
    teamId: "TSEC",
    apiKey: secrets.apiKey,
    organizationName: "Secret Co",
    connectedBy: "UINSTALLER",
  });
  return store;
}

/** Every row of every table outside PostgreSQL's own schemas, as text. */
async function everyRow(db: Queryable): Promise<{ tables: number; text: string }> {
  const { rows } = await db.query<{ s: string; t: string }>(
    `select table_schema as s, table_name as t from information_schema.tables
      where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema')`,
  );
  const out: string[] = [];
  for (const { s, t } of rows) {
    const r = await db.query<{ row: string }>(`select x::text as row from "${s}"."${t}" x`);
    out.push(...r.rows.map((x) => x.row));
  }
  return { tables: rows.length, text: out.join("\n") };
}

describe.each(storeBackends())("secrets at rest on %s", (backend) => {
  it("no table holds a token or an API key in the clear", async () => {
    const db = await openTestDb(backend);
    try {
      const store = await keep(db);
      // The store gives them back: they are there, sealed.
      expect((await store.connection("TSEC"))?.apiKey).toBe(secrets.apiKey);
      const { tables, text } = await everyRow(db);
      expect(tables).toBeGreaterThan(10);
      expect(text).toContain("TSEC");
      for (const secret of Object.values(secrets)) expect(text).not.toContain(secret);
    } finally {
      await db.close();
    }
  });
});

describe("secrets at rest in the embedded database's files", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  async function filesOf(dir: string): Promise<Buffer[]> {
    const out: Buffer[] = [];
    for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }))
      if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name)));
    return out;
  }

  it("no file of DATA_DIR holds the bytes of a token or an API key", async () => {
    const dir = await mkdtemp(join(tmpdir(), "sb-secrets-"));
    dirs.push(dir);
    const db = await openDb({ dataDir: dir });
    await keep(db);
    await db.close();
    const files = await filesOf(dir);
    expect(files.length).toBeGreaterThan(10);
    // The scan can see what is written: the team's name is in the files.
    expect(files.some((f) => f.includes("Secret Co"))).toBe(true);
    for (const secret of Object.values(secrets))
      expect(files.filter((f) => f.includes(secret)).length, `files holding a secret`).toBe(0);
  });
});
