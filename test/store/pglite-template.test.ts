// The embedded database's first start from the shipped files instead of
// initdb (src/store/pglite-template.ts, issue 13).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "../../src/store/db.ts";
import { makeTemplate, TEMPLATE_PATH, tarEntries } from "../../src/store/pglite-template.ts";

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "sb-template-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const files = (packed: Buffer) =>
  [...tarEntries(brotliDecompressSync(packed))].map((e) => `${e.type} ${e.path}`).sort();

describe("the shipped empty database", () => {
  it("has the files the installed PGlite's initdb writes (else: node src/store/pglite-template.ts --write)", async () => {
    const shipped = readFileSync(TEMPLATE_PATH);
    const fresh = await makeTemplate();
    expect(files(shipped)).toEqual(files(fresh));
    const version = (packed: Buffer) =>
      Buffer.from(
        [...tarEntries(brotliDecompressSync(packed))].find((e) => e.path === "/PG_VERSION")!.data,
      ).toString();
    expect(version(shipped)).toBe(version(fresh));
  }, 180_000);

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
