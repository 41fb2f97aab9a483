// Issue 10 §1: one upload must never take the bot down. Hostile xlsx files,
// built here as real zips (a few MB of repeated text deflates to KBs), are
// refused in words; the parse runs in a worker whose running out of memory
// is a refusal too; the parse's scratch files and those a crash left behind
// are removed.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crc32, deflateRawSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ImportFileError,
  normalizedCsv,
  previewImport,
  removeStaleUploads,
  type XlsxOptions,
} from "../../src/imports/index.ts";

interface Part {
  name: string;
  data: Buffer;
  /** The uncompressed size the zip declares; the real one when not given. */
  declared?: number;
}

/** A zip (deflated parts, sizes in the local headers and the central directory). */
function zip(parts: Part[]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const packed = deflateRawSync(part.data, { level: 9 });
    const crc = crc32(part.data);
    const size = part.declared ?? part.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(packed.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(8, 10);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(packed.length, 20);
    dir.writeUInt32LE(size, 24);
    dir.writeUInt16LE(name.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    central.push(dir, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

const xml = (s: string) => Buffer.from(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n${s}`);
const MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
const PKG = "http://schemas.openxmlformats.org/package/2006/relationships";

/**
 * A workbook: a header (Phone, Name) and `rows` contacts, `columns` cells a
 * row, the names in the shared strings, then `strings` more shared strings of
 * `stringBytes` each ("4,000 strings of 1 MB"). The shared strings come
 * first: exceljs 4.4 loses them when a sheet comes first in a zip whose local
 * headers carry the sizes (a streaming writer's data descriptors are fine).
 */
function workbook(o: {
  rows?: number;
  columns?: number;
  strings?: number;
  stringBytes?: number;
  declared?: number;
}) {
  const rows = o.rows ?? 3;
  const columns = o.columns ?? 2;
  const names = Array.from({ length: rows }, (_, i) => `Ann${i}`);
  const sheetRows = [`<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>`];
  for (let i = 0; i < rows; i++) {
    const r = i + 2;
    let cells = `<c r="A${r}"><v>1212555${String(1000 + i).padStart(4, "0")}</v></c><c r="B${r}" t="s"><v>${i + 2}</v></c>`;
    for (let c = 2; c < columns; c++) cells += `<c r="${letter(c)}${r}" t="inlineStr"><is><t>x</t></is></c>`;
    sheetRows.push(`<row r="${r}">${cells}</row>`);
  }
  const filler = "A".repeat(o.stringBytes ?? 0);
  const extra = `<si><t>${filler}</t></si>`.repeat(o.strings ?? 0);
  const count = 2 + rows + (o.strings ?? 0);
  return zip([
    {
      name: "[Content_Types].xml",
      data: xml(
        `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
      ),
    },
    {
      name: "_rels/.rels",
      data: xml(
        `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/workbook.xml",
      data: xml(
        `<workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Contacts" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: xml(
        `<Relationships xmlns="${PKG}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
    },
    {
      name: "xl/sharedStrings.xml",
      data: xml(
        `<sst xmlns="${MAIN}" count="${count}" uniqueCount="${count}"><si><t>Phone</t></si><si><t>Name</t></si>${names.map((n) => `<si><t>${n}</t></si>`).join("")}${extra}</sst>`,
      ),
      declared: o.declared,
    },
    {
      name: "xl/worksheets/sheet1.xml",
      data: xml(`<worksheet xmlns="${MAIN}"><sheetData>${sheetRows.join("")}</sheetData></worksheet>`),
    },
  ]);
}

function letter(index: number): string {
  let n = index + 1;
  let s = "";
  while (n > 0) {
    s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}

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
