// xlsx files are capped (exceljs keeps their shared strings in memory); CSV is not.
import { randomBytes } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImportFileError, normalizedCsv, previewImport } from "../../src/imports/index.ts";
import { XLSX_MAX_BYTES } from "../../src/imports/source.ts";

const options = { defaultCountry: "US" };
let dir: string;
let big: string;
let small: string;

/** A real workbook of `rows` rows with a random (incompressible) note per row. */
async function writeXlsx(path: string, rows: number, noteBytes: number) {
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const ws = wb.addWorksheet("Contacts");
  ws.addRow(["Phone", "First name", "Note"]).commit();
  for (let i = 0; i < rows; i++) {
    ws.addRow([
      `+1 212 555 ${String(i % 10_000).padStart(4, "0")}`,
      `Ann${i}`,
      randomBytes(noteBytes).toString("base64"),
    ]).commit();
  }
  ws.commit();
  await wb.commit();
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "xlsx-limit-"));
  big = join(dir, "big.xlsx");
  small = join(dir, "small.xlsx");
  // ~1.3 KB of compressed text per row: a bit over the cap.
  await writeXlsx(big, Math.ceil(XLSX_MAX_BYTES / 1000), 1000);
  await writeXlsx(small, 3, 10);
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("the xlsx size limit", () => {
  it("is over the test file's size, and under it the file is read", async () => {
    expect((await stat(big)).size).toBeGreaterThan(XLSX_MAX_BYTES);
    const preview = await previewImport(small, options);
    expect(preview.rows).toBe(3);
  });

  it.each(["path", "bytes"])(
    "refuses a big xlsx by %s before parsing, saying to save it as CSV",
    async (by) => {
      const source = by === "path" ? big : await readFile(big);
      const refused = previewImport(source, options);
      await expect(refused).rejects.toBeInstanceOf(ImportFileError);
      await expect(refused).rejects.toThrow(/over the 5\.0 MB limit for \.xlsx files: save the sheet as CSV/);
    },
  );

  it("stops a big xlsx stream of unknown size at the limit", async () => {
    const source = { open: () => createReadStream(big) };
    await expect(previewImport(source, options)).rejects.toThrow(
      /spreadsheet is over the 5\.0 MB limit.*CSV/,
    );
    const out = normalizedCsv(
      source,
      { phone: [0], first_name: 1, last_name: null, email: null, name: null, fields: {} },
      options,
    );
    const read = (async () => {
      for await (const _ of out.body);
    })();
    await expect(read).rejects.toThrow(/limit for \.xlsx files/);
    await expect(out.done).rejects.toThrow(/limit for \.xlsx files/);
  });
});
