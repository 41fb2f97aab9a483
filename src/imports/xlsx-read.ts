// xlsx → rows, read with exceljs's streaming WorkbookReader: the first worksheet, as
// its rows are numbered in the sheet. Cells become the text a user meant: a
// phone stored as a number is read as its digits, a date as an ISO date.
import { Readable } from "node:stream";
import ExcelJS from "exceljs";
import { ImportFileError } from "./errors.ts";
import type { SourceRow } from "./source-row.ts";
import { tooMuch, type XlsxLimits } from "./xlsx-limits.ts";

interface StreamCell {
  value: unknown;
  numFmt?: string;
}
interface StreamRow {
  number: number;
  eachCell(callback: (cell: StreamCell, column: number) => void): void;
}
interface StreamSheet extends AsyncIterable<StreamRow> {
  name?: string;
}

/**
 * Reads a whole xlsx (its bytes, already within XLSX_MAX_BYTES) in this
 * thread: run by the worker of xlsx-rows.ts, after checkXlsxZip.
 */
export async function* readXlsx(
  zip: Uint8Array,
  onSheet: (name: string) => void,
  limits: Pick<XlsxLimits, "rows" | "columns">,
): AsyncGenerator<SourceRow> {
  const input = Readable.from([Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength)]);
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, {
    worksheets: "emit",
    sharedStrings: "cache",
    // Styles tell a date from a number, and give the zero padding of phone cells.
    styles: "cache",
    hyperlinks: "ignore",
    entries: "ignore",
  }) as unknown as AsyncIterable<StreamSheet>;
  try {
    let read = 0;
    for await (const sheet of reader) {
      onSheet(sheet.name ?? "Sheet1");
      // The first worksheet only.
      for await (const row of sheet) {
        if (++read > limits.rows) throw tooMuch(`it has over ${limits.rows} rows`, `${limits.rows} rows`);
        const cells: string[] = [];
        row.eachCell((cell, column) => {
          if (column > limits.columns) {
            throw tooMuch(
              `row ${row.number} has over ${limits.columns} columns`,
              `${limits.columns} columns`,
            );
          }
          cells[column - 1] = cellText(cell);
        });
        for (let i = 0; i < cells.length; i++) cells[i] ??= "";
        yield { row: row.number, cells };
      }
      return;
    }
  } catch (error) {
    if (error instanceof ImportFileError) throw error;
    throw new ImportFileError(
      `the spreadsheet cannot be read (${error instanceof Error ? error.message : String(error)}): save it again as .xlsx or .csv`,
    );
  } finally {
    input.destroy();
  }
}

export function cellText(cell: StreamCell): string {
  return valueText(cell.value, cell.numFmt);
}

function valueText(value: unknown, numFmt?: string): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") return numberText(value, numFmt);
  if (value instanceof Date) return dateText(value);
  if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if (Array.isArray(v.richText)) return v.richText.map((r: { text?: string }) => r.text ?? "").join("");
    if ("result" in v) return valueText(v.result, numFmt);
    if ("formula" in v || "sharedFormula" in v) return "";
    if ("text" in v) return valueText(v.text, numFmt);
    if ("error" in v) return String(v.error);
  }
  return String(value);
}

function numberText(value: number, numFmt?: string): string {
  if (!Number.isFinite(value)) return String(value);
  // An integer is written with all its digits: String() would switch to
  // exponent notation only past 1e21, far beyond any phone number.
  if (Number.isInteger(value) && Math.abs(value) < 1e21) {
    const digits = value.toFixed(0);
    // A format of zeros ("00000000000") shows the leading zeros a number cannot hold.
    if (numFmt && /^0+$/.test(numFmt) && digits.length < numFmt.length) {
      return digits.padStart(numFmt.length, "0");
    }
    return digits;
  }
  return String(value);
}

function dateText(date: Date): string {
  // exceljs gives the sheet's date as UTC; a date without a time is a calendar date.
  if (Number.isNaN(date.getTime())) return "";
  const iso = date.toISOString();
  return iso.endsWith("T00:00:00.000Z") ? iso.slice(0, 10) : iso.replace(".000Z", "Z");
}
