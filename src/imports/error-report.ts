// The errors of an import as a CSV to download: row, phone, reason. A cell
// that a spreadsheet would run as a formula (=, +, -, @, and the tab and
// carriage return that also start one) is neutralized with a leading quote;
// a phone in E.164 starts with "+" and is neutralized too.
import { stringify } from "csv-stringify/sync";

export interface ErrorLine {
  row?: number | string;
  phone?: string;
  reason?: string;
  /** The API's wording of an error. */
  message?: string;
}

const FORMULA_START = /^[=+\-@\t\r]/;

/** Prefixes a single quote to a cell a spreadsheet would read as a formula. */
export function neutralizeCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

export function errorsCsv(errors: Iterable<ErrorLine>): string {
  const lines: string[][] = [["row", "phone", "reason"]];
  for (const e of errors) {
    lines.push(
      [e.row === undefined ? "" : String(e.row), e.phone ?? "", e.reason ?? e.message ?? ""].map(
        neutralizeCell,
      ),
    );
  }
  // CRLF and a BOM: what Excel expects of a CSV it is to open with accents intact.
  return `\ufeff${stringify(lines, { record_delimiter: "windows" })}`;
}
