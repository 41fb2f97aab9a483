// One row of an upload → one normalized contact, or the reasons it is refused.
// The same checks run in the preview and in the import, so what the preview
// announces is what the import does.
import type { CountryCode } from "libphonenumber-js";
import type { ColumnMapping, FieldDefinition } from "./headers.ts";
import { normalizePhone, type PhoneFailure } from "./phone.ts";
import { PhoneRows } from "./phone-set.ts";
import type { SourceRow } from "./source-row.ts";
import { cleanText, normalizeEmail, normalizeFieldValue, withFullName } from "./values.ts";

export type FailureCode = PhoneFailure | "duplicate" | "email_invalid" | "field_invalid";

/** A row that will not be imported. */
export interface RowFailure {
  /** The row number a spreadsheet shows (the header is row 1). */
  row: number;
  /** The phone cell as the file has it. */
  phone: string;
  /** The row's name cells as the file has them, in the order of nameColumns(mapping) (for the errors file). */
  names: string[];
  code: FailureCode;
  reason: string;
}

/** Values in the order of outputColumns(mapping). */
export type ContactValues = string[];

/** The file's columns that hold a name (first, last, full), in file order: the errors file repeats them. */
export function nameColumns(mapping: ColumnMapping): number[] {
  const named = [mapping.first_name, mapping.last_name, mapping.name].filter((c): c is number => c !== null);
  return [...new Set(named)].sort((a, b) => a - b);
}

export type RowResult = { ok: true; row: number; values: ContactValues } | { ok: false; failure: RowFailure };

/**
 * Validates rows in file order. It remembers the phones it accepted, so the
 * second row with a phone already seen is refused (the first one is kept).
 */
export class RowValidator {
  // E.164 digits fit a double exactly (15 digits < 2^53), which keeps a 1,000,000-row file's set small.
  private readonly seen = new PhoneRows();
  private readonly fieldKeys: string[];
  private readonly fieldTypes: Array<string | undefined>;

  private readonly mapping: ColumnMapping;
  private readonly country: CountryCode | undefined;
  private readonly nameColumns: number[];
  /** Rows whose full name is not imported: they have a first and a last name of their own that it does not match. */
  fullNamesLost = 0;
  /** The first of them. */
  firstFullNameLost: number | undefined;
  constructor(mapping: ColumnMapping, fields: readonly FieldDefinition[], country: CountryCode | undefined) {
    this.mapping = mapping;
    this.country = country;
    this.nameColumns = nameColumns(mapping);
    this.fieldKeys = Object.keys(mapping.fields);
    this.fieldTypes = this.fieldKeys.map((k) => fields.find((f) => f.key === k)?.type);
  }

  check({ row, cells }: SourceRow): RowResult {
    const m = this.mapping;
    let phoneCell = "";
    for (const column of m.phone) {
      phoneCell = cells[column] ?? "";
      if (phoneCell.trim() !== "") break;
    }
    // Most rows are fine: the reasons are gathered only for the others.
    const reasons: string[] = [];
    let code: FailureCode | undefined;

    const phone = normalizePhone(phoneCell, this.country);
    let e164 = "";
    let digits = 0;
    if (phone.ok) {
      e164 = phone.e164;
      digits = Number(e164.slice(1));
      const first = this.seen.get(digits);
      if (first !== undefined) {
        code = "duplicate";
        reasons.push(
          `phone ${e164} is already on row ${first} (only the first row with a phone is imported)`,
        );
      }
    } else {
      code = phone.code;
      reasons.push(phone.reason);
    }

    const email = normalizeEmail(cellAt(cells, m.email));
    if (!email.ok) {
      code ??= "email_invalid";
      reasons.push(email.reason);
    }

    const values: ContactValues = [
      e164,
      cleanText(cellAt(cells, m.first_name)),
      cleanText(cellAt(cells, m.last_name)),
      "",
    ];
    if (email.ok) values[3] = email.value;
    if (m.name !== null) {
      const names = withFullName(values[1]!, values[2]!, cellAt(cells, m.name));
      values[1] = names.first;
      values[2] = names.last;
      if (names.lost) {
        this.fullNamesLost++;
        this.firstFullNameLost ??= row;
      }
    }
    for (let i = 0; i < this.fieldKeys.length; i++) {
      const key = this.fieldKeys[i]!;
      const value = normalizeFieldValue(cellAt(cells, m.fields[key]!), this.fieldTypes[i], this.country);
      if (value.ok) values.push(value.value);
      else {
        code ??= "field_invalid";
        reasons.push(`${key}: ${value.reason}`);
        values.push("");
      }
    }

    if (code) {
      const names = this.nameColumns.map((c) => cells[c] ?? "");
      return { ok: false, failure: { row, phone: phoneCell, names, code, reason: reasons.join("; ") } };
    }
    this.seen.set(digits, row);
    return { ok: true, row, values };
  }
}

function cellAt(cells: string[], column: number | null): string {
  return column === null ? "" : (cells[column] ?? "");
}
