// Files in the shapes real exports have, generated here, through the preview
// and the normalized CSV.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  contentHash,
  ImportFileError,
  type ImportSource,
  MappingError,
  normalizedCsv,
  previewImport,
  type RowFailure,
  summarizePreview,
} from "../../src/imports/index.ts";

const FIELDS = [
  { key: "loyalty_tier", label: "Loyalty tier", type: "text" },
  { key: "birthday", label: "Birthday", type: "date" },
  { key: "vip", label: "VIP", type: "boolean" },
];

async function normalized(source: ImportSource, defaultCountry = "US", mapping?: unknown) {
  const preview = await previewImport(source, { fields: FIELDS, defaultCountry, mapping });
  const failures: RowFailure[] = [];
  const out = normalizedCsv(source, preview.mapping, {
    fields: FIELDS,
    defaultCountry,
    onFailure: (f) => failures.push(f),
  });
  const chunks: Buffer[] = [];
  for await (const chunk of out.body) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  const records = parse(text, { columns: true }) as Array<Record<string, string>>;
  return { preview, text, records, failures, summary: await out.done, sourceRowOf: out.sourceRowOf };
}

// The same contacts in each CSV shape; row 4 holds a quoted newline, row 5 is blank.
function contactsCsv(d: string): string {
  const rows = [
    ["First Name", "Last Name", "Mobile Phone", "E-mail Address", "Loyalty tier"],
    ["Zoë", "Müller", "+49 151 23456789", "zoe@example.de", "gold"],
    ["Ana", "García", "0034 612 34 56 78", "ana@example.com", "silver"],
    ["Bob", '"Smith\nJunior"', "(415) 555-0123", "bob@example.com", `"a${d} b"`],
    [],
    ["Cy", "Lee", "4.41234E+11", "cy@example.com", ""],
    ["Di", "Ng", "14155550199.0", "not-an-email", ""],
  ];
  return `${rows.map((r) => r.join(d)).join("\r\n")}\r\n`;
}

function encode(text: string, encoding: string): Buffer {
  switch (encoding) {
    case "utf-8":
      return Buffer.from(text, "utf8");
    case "utf-8 BOM":
      return Buffer.from(`\ufeff${text}`, "utf8");
    case "utf-16le BOM":
      return Buffer.from(`\ufeff${text}`, "utf16le");
    case "utf-16le":
      return Buffer.from(text, "utf16le");
    case "utf-16be BOM":
      return Buffer.from(`\ufeff${text}`, "utf16le").swap16();
    case "utf-16be":
      return Buffer.from(text, "utf16le").swap16();
    case "windows-1252":
      return Buffer.from(text, "latin1");
    default:
      throw new Error(encoding);
  }
}

function expectContacts(r: Awaited<ReturnType<typeof normalized>>, d = ",") {
  expect(r.preview.rows).toBe(5);
  expect(r.preview.valid).toBe(3);
  expect(r.records).toEqual([
    {
      phone: "+4915123456789",
      first_name: "Zoë",
      last_name: "Müller",
      email: "zoe@example.de",
      loyalty_tier: "gold",
    },
    {
      phone: "+34612345678",
      first_name: "Ana",
      last_name: "García",
      email: "ana@example.com",
      loyalty_tier: "silver",
    },
    {
      phone: "+14155550123",
      first_name: "Bob",
      last_name: "Smith Junior",
      email: "bob@example.com",
      loyalty_tier: d === "\t" ? "a b" : `a${d} b`,
    },
  ]);
  // Row numbers as a spreadsheet shows them: header 1, the quoted newline does not add a row, the blank one does.
  expect(r.preview.failures.map((f) => [f.row, f.code])).toEqual([
    [6, "phone_scientific"],
    [7, "email_invalid"],
  ]);
  expect(r.failures).toEqual(r.preview.failures);
  expect(r.summary).toMatchObject({ rows: 5, written: 3, failed: 2 });
  expect([r.sourceRowOf(2), r.sourceRowOf(3), r.sourceRowOf(4), r.sourceRowOf(5)]).toEqual([
    2,
    3,
    4,
    undefined,
  ]);
}

describe("CSV files", () => {
  for (const encoding of ["utf-8", "utf-8 BOM", "utf-16le BOM", "utf-16le", "utf-16be BOM", "utf-16be"]) {
    for (const [name, d] of [
      ["comma", ","],
      ["semicolon", ";"],
      ["tab", "\t"],
    ] as const) {
      it(`reads ${encoding}, ${name}-separated`, async () => {
        const r = await normalized(encode(contactsCsv(d), encoding));
        expect(r.preview.shape).toMatchObject({
          format: "csv",
          encoding: encoding.split(" ")[0],
          bom: encoding.endsWith("BOM"),
          delimiterName: name,
        });
        expectContacts(r, d);
      });
    }
  }

  it("reads Windows-1252 (Excel's plain CSV on Windows)", async () => {
    const r = await normalized(encode(contactsCsv(";"), "windows-1252"));
    expect(r.preview.shape.encoding).toBe("windows-1252");
    expectContacts(r, ";");
  });

  it("follows Excel's sep= line and keeps the header as row 1", async () => {
    const r = await normalized(Buffer.from(`sep=;\n${contactsCsv(";")}`));
    expect(r.preview.shape.delimiter).toBe(";");
    expectContacts(r, ";");
  });

  it("does not let delimiters inside quotes decide the delimiter", async () => {
    const csv = 'name;phone\n"Lee, Cy";+14155550123\n"Ng, Di";+14155550199\n';
    const r = await normalized(Buffer.from(csv));
    expect(r.preview.shape.delimiter).toBe(";");
    expect(r.records.map((c) => [c.first_name, c.last_name])).toEqual([
      ["Cy", "Lee"],
      ["Di", "Ng"],
    ]);
  });

  it("maps each export's headers and normalizes phones in every form", async () => {
    const csv = [
      "Name,Given Name,Family Name,E-mail 1 - Value,Phone 1 - Value,Phone 2 - Value,Birthday,VIP",
      "Ana García,,,ana@example.com,+34 612 34 56 78,,1990-02-28,yes",
      ",Bo,Berg,,,(415) 555-0123,03/04/1985,no",
      "Cy Lee,,,,4.47911123456E+11,,,",
      "Di,,,,447911123457,,,",
      "Ed,,,,0044 7911 123458,,,",
      "Fi,,,,4.41234E+11,,,",
      "Gu,,,,,,,",
      "Hu,,,,+1 415 555 0123,,,",
      "Io,,,,+1 415 555 0124,,31/02/2020,maybe",
    ].join("\n");
    const r = await normalized(Buffer.from(csv));
    expect(r.preview.mapping).toMatchObject({
      phone: [4, 5],
      name: 0,
      first_name: 1,
      last_name: 2,
      email: 3,
    });
    expect(r.preview.mapping.fields).toEqual({ birthday: 6, vip: 7 });
    expect(r.records).toEqual([
      {
        phone: "+34612345678",
        first_name: "Ana",
        last_name: "García",
        email: "ana@example.com",
        birthday: "1990-02-28",
        vip: "true",
      },
      {
        phone: "+14155550123",
        first_name: "Bo",
        last_name: "Berg",
        email: "",
        birthday: "1985-03-04",
        vip: "false",
      },
      { phone: "+447911123456", first_name: "Cy", last_name: "Lee", email: "", birthday: "", vip: "" },
      { phone: "+447911123457", first_name: "Di", last_name: "", email: "", birthday: "", vip: "" },
      { phone: "+447911123458", first_name: "Ed", last_name: "", email: "", birthday: "", vip: "" },
    ]);
    expect(r.preview.failures.map((f) => [f.row, f.phone, f.code])).toEqual([
      [7, "4.41234E+11", "phone_scientific"],
      [8, "", "phone_missing"],
      [9, "+1 415 555 0123", "duplicate"],
      [10, "+1 415 555 0124", "field_invalid"],
    ]);
    expect(r.preview.failures[2]!.reason).toBe(
      "phone +14155550123 is already on row 3 (only the first row with a phone is imported)",
    );
    expect(r.preview.failures[3]!.reason).toBe(
      "birthday: 31/02/2020 is not a date of the calendar; vip: maybe is not yes or no (true/false)",
    );
    expect(r.preview.failuresByCode).toEqual({
      phone_scientific: 1,
      phone_missing: 1,
      duplicate: 1,
      field_invalid: 1,
    });
  });

  it("keeps a few samples and examples, and counts all failures", async () => {
    const lines = ["phone,first_name"];
    for (let i = 0; i < 50; i++) lines.push(`+1415555${String(1000 + i)},P${i}`);
    for (let i = 0; i < 30; i++) lines.push(`not a phone ${i},F${i}`);
    const preview = await previewImport(Buffer.from(lines.join("\n")), {
      defaultCountry: "US",
      sampleSize: 3,
      maxFailures: 4,
    });
    expect(preview.rows).toBe(80);
    expect(preview.samples.map((s) => [s.row, s.contact.phone, s.contact.first_name])).toEqual([
      [2, "+14155551000", "P0"],
      [3, "+14155551001", "P1"],
      [4, "+14155551002", "P2"],
    ]);
    expect(preview.failed).toBe(30);
    expect(preview.failures.map((f) => f.row)).toEqual([52, 53, 54, 55]);
  });

  it("rows repeated in the file never crowd the rows that will fail out of the preview (issue 9)", async () => {
    const lines = ["phone,first_name", "+14155551000,First"];
    for (let i = 0; i < 30; i++) lines.push(`+14155551000,Again${i}`);
    lines.push("12,Short");
    const preview = await previewImport(Buffer.from(lines.join("\n")), {
      defaultCountry: "US",
      maxFailures: 4,
    });
    expect(preview.failuresByCode).toEqual({ duplicate: 30, phone_invalid: 1 });
    const summary = summarizePreview(preview);
    expect(summary.failed).toBe(1);
    expect(summary.repeated).toBe(30);
    expect(summary.failures.map((f) => f.row)).toEqual([33]);
    expect(summary.repeats?.map((r) => r.row)).toEqual([3, 4, 5, 6]);
  });

  it("says when no column holds phones, and refuses an import without one", async () => {
    const csv = Buffer.from("Company,Notes\nAcme,hello\n");
    const preview = await previewImport(csv, { defaultCountry: "US" });
    expect(preview.problems[0]).toMatch(/no column looks like a phone number/);
    expect(preview.rows).toBe(1);
    expect(preview.ignored.map((i) => i.header)).toEqual(["Company", "Notes"]);
    expect(() => normalizedCsv(csv, preview.mapping, { defaultCountry: "US" })).toThrow(MappingError);
    // The user chooses a column: the preview follows.
    const chosen = await previewImport(csv, { defaultCountry: "US", mapping: { phone: "Notes" } });
    expect(chosen.problems).toEqual([]);
    expect(chosen.failures[0]).toMatchObject({ row: 2, phone: "hello", code: "phone_characters" });
  });

  it("refuses files it cannot read, saying why", async () => {
    const fails = (bytes: Buffer | string) => previewImport(Buffer.from(bytes), { defaultCountry: "US" });
    await expect(fails("")).rejects.toThrow(new ImportFileError("the file is empty"));
    await expect(fails("\n\n  \n")).rejects.toThrow(/no header row/);
    await expect(fails(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1]))).rejects.toThrow(/\.xls\)/);
    await expect(fails('phone,name\n+14155550123,"Ana\n+14155550124,Bob\n')).rejects.toThrow(
      /row 2 opens a quote \(".*never closed/,
    );
    await expect(fails(Buffer.from([0x50, 0x4b, 0x03, 0x04, 1, 2, 3]))).rejects.toThrow(ImportFileError);
    await expect(previewImport(Buffer.from("phone\n1"), { defaultCountry: "XX" })).rejects.toThrow(/XX/);
  });

  it("reads a file from disk and from a stream factory, and hashes the bytes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "imports-test-"));
    try {
      const path = join(dir, "contacts.csv");
      const bytes = encode(contactsCsv(","), "utf-8 BOM");
      await writeFile(path, bytes);
      expectContacts(await normalized(path));
      const factory = {
        open: async function* () {
          // Bytes one at a time: a BOM, a UTF-8 character and a CRLF cut across chunks.
          for (const b of bytes) yield Uint8Array.of(b);
        },
      };
      expectContacts(await normalized(factory));
      const hash = await contentHash(path);
      expect(hash).toMatch(/^[0-9a-f]{64}$/);
      expect(await contentHash(factory)).toBe(hash);
      expect(await contentHash(Buffer.concat([bytes, Buffer.from("\n")]))).not.toBe(hash);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reports progress and stops reading when the body is abandoned", async () => {
    const lines = ["phone"];
    for (let i = 0; i < 25_000; i++) lines.push(`+1415${String(2000000 + i)}`);
    const progress: number[] = [];
    const out = normalizedCsv(
      Buffer.from(lines.join("\n")),
      { phone: [0], first_name: null, last_name: null, email: null, name: null, fields: {} },
      {
        defaultCountry: "US",
        onProgress: (p) => progress.push(p.rows),
      },
    );
    let size = 0;
    const sink = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        callback();
      },
    });
    await pipeline(out.body, sink);
    expect(progress).toEqual([10_000, 20_000, 25_000]);
    expect(await out.done).toMatchObject({ rows: 25_000, written: 25_000, failed: 0 });
    // Every row with the four columns of a contact, in E.164 already.
    expect(size).toBe(
      Buffer.byteLength(
        `phone,first_name,last_name,email\n${lines
          .slice(1)
          .map((l) => `${l},,,\n`)
          .join("")}`,
      ),
    );

    const abandoned = normalizedCsv(
      Buffer.from(lines.join("\n")),
      { phone: [0], first_name: null, last_name: null, email: null, name: null, fields: {} },
      { defaultCountry: "US" },
    );
    for await (const _ of abandoned.body) break;
    await expect(abandoned.done).rejects.toThrow(/not read to its end/);
  });
});

describe("xlsx files", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "imports-xlsx-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("reads the first worksheet, phone cells stored as numbers as their digits", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Contacts");
    const rows: unknown[][] = [
      ["Phone Number", "First Name", "Last Name", "Email", "Birthday", "VIP", "Loyalty tier"],
      [
        14155550123,
        "Ana",
        "García",
        { text: "ana@example.com", hyperlink: "mailto:ana@example.com" },
        new Date(Date.UTC(1990, 1, 28)),
        true,
        "gold",
      ],
      [
        447911123456,
        { richText: [{ text: "Bo" }, { text: "b" }] },
        "Berg",
        "bob@example.com",
        null,
        false,
        { formula: 'UPPER("x")', result: "X" },
      ],
      [],
      ["4.41234E+11", "Cy"],
      [4155550199.5, "Di"],
      ["+1 415 555 0177", "Ed", "", "", "1985-03-04", "yes"],
    ];
    // Row 4 is left blank: the rows after it keep their sheet numbers.
    rows.forEach((values, i) => {
      if (values.length > 0) ws.getRow(i + 1).values = values as ExcelJS.CellValue[];
    });
    const other = wb.addWorksheet("Other");
    other.addRow(["phone"]);
    other.addRow(["+14155550100"]);
    const path = join(dir, "contacts.xlsx");
    await wb.xlsx.writeFile(path);

    const r = await normalized(path);
    expect(r.preview.shape).toMatchObject({ format: "xlsx", sheet: "Contacts" });
    expect(r.records).toEqual([
      {
        phone: "+14155550123",
        first_name: "Ana",
        last_name: "García",
        email: "ana@example.com",
        birthday: "1990-02-28",
        vip: "true",
        loyalty_tier: "gold",
      },
      {
        phone: "+447911123456",
        first_name: "Bob",
        last_name: "Berg",
        email: "bob@example.com",
        birthday: "",
        vip: "false",
        loyalty_tier: "X",
      },
      {
        phone: "+14155550177",
        first_name: "Ed",
        last_name: "",
        email: "",
        birthday: "1985-03-04",
        vip: "true",
        loyalty_tier: "",
      },
    ]);
    expect(r.preview.failures.map((f) => [f.row, f.phone, f.code])).toEqual([
      [5, "4.41234E+11", "phone_scientific"],
      [6, "4155550199.5", "phone_fraction"],
    ]);
    expect(r.summary).toMatchObject({ rows: 5, written: 3, failed: 2 });
    expect(r.sourceRowOf(4)).toBe(7);
  });

  it("restores the leading zeros a zero-padded number format shows", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Sheet1");
    ws.addRow(["Mobile", "Name"]);
    ws.addRow([7911123456, "Ana Lopez"]);
    ws.getCell("A2").numFmt = "00000000000";
    const r = await normalized((await wb.xlsx.writeBuffer()) as unknown as Buffer, "GB");
    expect(r.records).toEqual([{ phone: "+447911123456", first_name: "Ana", last_name: "Lopez", email: "" }]);
  });

  it("reads a workbook written by a streaming writer", async () => {
    const path = join(dir, "streamed.xlsx");
    const wb = new ExcelJS.stream.xlsx.WorkbookWriter({
      filename: path,
      useSharedStrings: true,
      useStyles: true,
    });
    const ws = wb.addWorksheet("People");
    ws.addRow(["Cell", "First", "Last"]).commit();
    for (let i = 0; i < 300; i++) ws.addRow([14155551000 + i, `F${i}`, `L${i}`]).commit();
    ws.commit();
    await wb.commit();
    const r = await normalized(path);
    expect(r.summary).toMatchObject({ rows: 300, written: 300, failed: 0 });
    expect(r.records[299]).toEqual({
      phone: "+14155551299",
      first_name: "F299",
      last_name: "L299",
      email: "",
    });
  });
});
