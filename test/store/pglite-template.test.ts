// The embedded database's first start from the shipped files instead of
// initdb (src/store/pglite-template.ts, issue 13).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/db.ts";
import { TEMPLATE_PATH, tarEntries } from "../../src/store/pglite-template.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "sb-template-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("the shipped empty database", () => {
  it("is a database the installed PGlite starts on (else: node src/store/pglite-template.ts --write)", async () => {
    // PostgreSQL refuses at start files of another catalog version, so opening them is the check.
    const tar = brotliDecompressSync(readFileSync(TEMPLATE_PATH));
    const entries = [...tarEntries(tar)];
    expect(entries.map((e) => e.path)).toContain("/PG_VERSION");
    const db = await openDb({ pgliteTemplate: new Blob([tar]) });
    const { rows } = await db.query<{ major: number; n: number }>(
      "select current_setting('server_version_num')::int / 10000 as major, (select count(*)::int from pg_database) as n",
    );
    const pgVersion = Buffer.from(entries.find((e) => e.path === "/PG_VERSION")!.data)
      .toString()
      .trim();
    expect(rows[0]).toEqual({ major: Number(pgVersion), n: 3 });
    await db.close();
  }, 120_000);

  it("a first start on an empty DATA_DIR opens it, keeps what is written, and opens again", async () => {
    const dataDir = tempDir();
    const first = await openDb({ dataDir });
    expect((await first.query<{ n: number }>("select count(*)::int as n from pg_database")).rows[0]?.n).toBe(
      3,
    );
    await first.exec("create table kept (v text); insert into kept values ('still here')");
    await first.close();
    const again = await openDb({ dataDir });
    expect((await again.query<{ v: string }>("select v from kept")).rows).toEqual([{ v: "still here" }]);
    await again.close();
  }, 120_000);
});
