// The errors of an import as a CSV to download: row, the row's name columns
// (headed as in the user's file), phone, reason. A cell that a spreadsheet
// would run as a formula (=, +, -, @, and the tab and carriage return that
// also start one) is neutralized with a leading quote, but for a phone that
// is only a phone (`+34 600 111 222`): it is written as typed (docs/imports.md,
// Decisions).
import { stringify } from "csv-stringify/sync";

export interface ErrorLine {
  row?: number | string;
  phone?: string;
  /** The row's name cells as typed, in the order of the report's name headers. */
  names?: string[];
  reason?: string;
  /** The API's wording of an error. */
  message?: string;
}

const FORMULA_START = /^[=+\-@\t\r]/;
/** A "+" and then only what a typed phone holds: digits, spaces, dots, dashes, slashes, parentheses. */
const PLAIN_PHONE = /^\+[\d\s.\-/()]*$/;

/** Prefixes a single quote to a cell a spreadsheet would read as a formula. */
export function neutralizeCell(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * A phone cell as typed: `+34 600 111 222` is no formula that can run anything
 * (no name, no reference, no `|`), so it keeps its "+"; anything else is
 * neutralized as every cell is.
 */
export function phoneCell(value: string): string {
  return PLAIN_PHONE.test(value) ? value : neutralizeCell(value);
}

/** The CSV; `nameHeaders`: the headers of the file's name columns, each line's `names` under them. */
export function errorsCsv(errors: Iterable<ErrorLine>, nameHeaders: readonly string[] = []): string {
  const lines: string[][] = [["row", ...nameHeaders, "phone", "reason"].map(neutralizeCell)];
  for (const e of errors) {
    lines.push([
      e.row === undefined ? "" : String(e.row),
      ...nameHeaders.map((_, i) => neutralizeCell(e.names?.[i] ?? "")),
      phoneCell(e.phone ?? ""),
      neutralizeCell(e.reason ?? e.message ?? ""),
    ]);
  }
  // CRLF and a BOM: what Excel expects of a CSV it is to open with accents intact.
  return `\ufeff${stringify(lines, { record_delimiter: "windows" })}`;
}
