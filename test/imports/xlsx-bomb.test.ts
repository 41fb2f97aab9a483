// Issue 10 §1: one upload must never take the bot down. Hostile xlsx files,
// built here as real zips (a few MB of repeated text deflates to KBs), are
// refused in words; the parse runs in a worker whose running out of memory
// is a refusal too; the parse's scratch files and those a crash left behind
// are removed.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ImportFileError,
  normalizedCsv,
  previewImport,
  removeStaleUploads,
  type XlsxOptions,
} from "../../src/imports/index.ts";
import { workbook } from "../helpers/xlsx-zip.ts";

const MB = 1024 * 1024;
let dir: string;
let temp: string;
const preview = (source: string | Buffer, xlsx: XlsxOptions = {}) =>
  previewImport(source, { defaultCountry: "US", xlsx: { tempRoot: temp, ...xlsx } });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "xlsx-bomb-"));
  temp = join(dir, "uploads");
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("what an xlsx may unzip to", () => {
  it("reads the hand-built workbook (the test's zip is a real xlsx)", async () => {
    const p = await preview(workbook({ rows: 3 }));
    expect(p.rows).toBe(3);
    expect(p.shape.sheet).toBe("Contacts");
    expect(p.headers).toEqual(["Phone", "Name"]);
    expect({ valid: p.valid, failures: p.failures }).toEqual({ valid: 3, failures: [] });
  });

  it("refuses a small file whose shared strings declare 4,000 strings of 1 MB, before inflating them", async () => {
    // 4,000 × 1 MB declared; the bytes in the file are a fraction of it (never inflated).
    const file = workbook({ strings: 4, stringBytes: MB, declared: 4000 * MB });
    expect(file.length).toBeLessThan(64 * 1024);
    const refused = preview(file);
    await expect(refused).rejects.toBeInstanceOf(ImportFileError);
    await expect(refused).rejects.toThrow(
      /too big to read: its text cells \(xl\/sharedStrings\.xml\) unzip to 4000 MB, over the limit of 64 MB: save the sheet as CSV/,
    );
  });

  it("refuses shared strings that unzip to more than they declare, counting the inflated bytes", async () => {
    const file = workbook({ strings: 12, stringBytes: MB, declared: 1000 });
    const refused = preview(file, { sharedStringsBytes: 4 * MB });
    await expect(refused).rejects.toBeInstanceOf(ImportFileError);
    await expect(refused).rejects.toThrow(
      /xl\/sharedStrings\.xml\) unzip to more than 4 MB.*save the sheet as CSV/,
    );
    // The same file within the limit is read.
    expect((await preview(file, { sharedStringsBytes: 16 * MB })).rows).toBe(3);
  });

  it("refuses a file that unzips to more than the total allowed", async () => {
    const file = workbook({ strings: 6, stringBytes: MB });
    await expect(preview(file, { totalBytes: 4 * MB })).rejects.toThrow(
      /unzips to over \d+ MB, over the limit of 4 MB/,
    );
  });

  it("refuses more rows or columns than allowed, naming which", async () => {
    const file = workbook({ rows: 6, columns: 5 });
    await expect(preview(file, { rows: 4 })).rejects.toThrow(
      /it has over 4 rows, over the limit of 4 rows: save the sheet as CSV/,
    );
    await expect(preview(file, { columns: 3 })).rejects.toThrow(
      /row 1 has over 3 columns|row 2 has over 3 columns/,
    );
    expect((await preview(file, { rows: 7, columns: 5 })).rows).toBe(6);
  });
});

describe("parsing in a worker with a heap limit", () => {
  it("turns running out of memory into a refusal in words, and the process reads the next file", async () => {
    // 48 MB of shared strings, under the unzip limits, in a 16 MB heap.
    const file = workbook({ strings: 48, stringBytes: MB });
    const refused = preview(file, { heapMb: 16 });
    await expect(refused).rejects.toBeInstanceOf(ImportFileError);
    await expect(refused).rejects.toThrow(
      /needs more memory to read than an upload may use.*save the sheet as CSV/,
    );
    expect((await preview(workbook({ rows: 2 }))).rows).toBe(2);
  });

  it("stops the worker when the reader stops early (normalized CSV abandoned)", async () => {
    const out = normalizedCsv(
      workbook({ rows: 1200 }),
      { phone: [0], first_name: 1, last_name: null, email: null, name: null, fields: {} },
      { defaultCountry: "US", xlsx: { tempRoot: temp } },
    );
    for await (const _ of out.body) break;
    await out.done.catch(() => {});
    expect(await readdir(temp)).toEqual([]);
  });
});

describe("temporary files", () => {
  it("removes the parse's scratch directory after a refusal and after a success", async () => {
    await expect(preview(workbook({ rows: 6 }), { rows: 2 })).rejects.toThrow(/over 2 rows/);
    expect(await readdir(temp)).toEqual([]);
    expect((await preview(workbook({ rows: 2 }))).rows).toBe(2);
    expect(await readdir(temp)).toEqual([]);
  });

  it("removes at start what a dead process left, keeping a live process's files", async () => {
    const root = join(dir, "stale");
    await mkdir(join(root, "1-xlsx-abc"), { recursive: true });
    // A pid that has ended: a child run to its end.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const live = process.ppid;
    await writeFile(join(root, `${dead}-F123-aaaa`), "left by a crash");
    await mkdir(join(root, `${dead}-xlsx-bbbb`));
    await writeFile(join(root, `${dead}-xlsx-bbbb`, "tmp-1"), "exceljs scratch");
    await writeFile(join(root, `${live}-F456-cccc`), "in use");
    await writeFile(join(root, `${process.pid}-F789-dddd`), "an earlier process with this pid");
    const removed = await removeStaleUploads(root);
    expect(removed.sort()).toEqual(
      [`${dead}-F123-aaaa`, `${dead}-xlsx-bbbb`, `${process.pid}-F789-dddd`].sort(),
    );
    // pid 1 is alive (init): kept.
    expect((await readdir(root)).sort()).toEqual(["1-xlsx-abc", `${live}-F456-cccc`].sort());
  });
});
