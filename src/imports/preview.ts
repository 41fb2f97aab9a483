// The preview of an upload: the file is read once, as a stream, and checked
// row by row exactly as the import will check it; only counts, a few sample
// rows and the first failures are kept, so memory stays bounded whatever its size.
import { count } from "../blocks/blocks.ts";
import { type FailureCode, type RowFailure, RowValidator } from "./contact.ts";
import { DELIMITER_NAMES } from "./delimiter.ts";
import {
  type ColumnMapping,
  type FieldDefinition,
  type IgnoredColumn,
  label,
  outputColumns,
  resolveMapping,
  suggestMapping,
  targetLabels,
} from "./headers.ts";
import { assertCountry } from "./phone.ts";
import { type FileShape, openRows } from "./rows.ts";
import type { ImportSource } from "./source.ts";
import type { XlsxOptions } from "./xlsx-rows.ts";

export interface ImportOptions {
  /** Limits of an xlsx and where its parse keeps scratch files (xlsx-rows.ts); defaults: XLSX_LIMITS. */
  xlsx?: XlsxOptions;
  /** The organization's contact field definitions (GET /contact-fields). */
  fields?: readonly FieldDefinition[];
  /** For numbers without a country code (the workspace's country); none: such numbers are refused. */
  defaultCountry?: string;
  /** The user's changes to the suggested mapping (see resolveMapping). */
  mapping?: unknown;
}

export interface Progress {
  rows: number;
  bytes: number;
}

export interface PreviewOptions extends ImportOptions {
  sampleSize?: number;
  /** How many failing rows are kept as examples; all of them are counted. */
  maxFailures?: number;
  onProgress?: (progress: Progress) => void;
}

export interface ColumnUse {
  column: number;
  header: string;
  /** "phone", "first_name", "last_name", "email", "name", "fields.<key>", or null when ignored. */
  target: string | null;
}

export interface ImportPreview {
  shape: FileShape & { delimiterName?: string };
  headers: string[];
  mapping: ColumnMapping;
  columns: ColumnUse[];
  ignored: IgnoredColumn[];
  /** Why nothing can be imported with this mapping (no phone column); empty when ready. */
  problems: string[];
  /**
   * What the import will do that a person may not expect, in words: a column
   * read as another member than its header says, values that will not be
   * imported (a second column of a member, a full name the row's own names
   * leave out). Nothing is dropped without a warning here.
   */
  warnings: string[];
  /** Data rows (blank rows are not counted). */
  rows: number;
  valid: number;
  failed: number;
  /** Normalized sample rows, keyed by the columns of the normalized CSV. */
  samples: Array<{ row: number; contact: Record<string, string> }>;
  /** The first failing rows, in file order: up to maxFailures repeated in the file, and as many others. */
  failures: RowFailure[];
  failuresByCode: Partial<Record<FailureCode, number>>;
  bytes: number;
  /** The columns' labels by target and output key ("Phone", "Last name", custom fields by label): targetLabels(). */
  labels: Record<string, string>;
}

const PROGRESS_EVERY = 10_000;

export async function previewImport(source: ImportSource, options: PreviewOptions): Promise<ImportPreview> {
  const country = assertCountry(options.defaultCountry);
  const fields = options.fields ?? [];
  const sampleSize = options.sampleSize ?? 5;
  const maxFailures = options.maxFailures ?? 20;
  let repeatsKept = 0;
  let othersKept = 0;

  const opened = await openRows(source, options.xlsx);
  const { headers } = opened;
  let mapping: ColumnMapping;
  let ignored: IgnoredColumn[];
  const problems: string[] = [];
  let notes: string[] = [];
  try {
    if (options.mapping === undefined) {
      ({ mapping, ignored, notes } = suggestMapping(headers, fields));
      if (mapping.phone.length === 0) {
        problems.push(
          `no column looks like a phone number (columns: ${headers.map((_, i) => label(headers, i)).join(", ")}): choose the phone column`,
        );
      }
    } else {
      mapping = resolveMapping(headers, options.mapping, fields);
      ignored = unusedColumns(headers, mapping);
    }
  } catch (error) {
    await opened.batches.return(undefined);
    throw error;
  }

  const columns = outputColumns(mapping);
  const validator = mapping.phone.length > 0 ? new RowValidator(mapping, fields, country) : undefined;
  const preview: ImportPreview = {
    shape: {
      ...opened.shape,
      delimiterName: opened.shape.delimiter && DELIMITER_NAMES[opened.shape.delimiter],
    },
    headers,
    mapping,
    columns: columnUses(headers, mapping),
    ignored,
    problems,
    warnings: [],
    rows: 0,
    valid: 0,
    failed: 0,
    samples: [],
    failures: [],
    failuresByCode: {},
    bytes: 0,
    labels: targetLabels(fields),
  };
  // Columns whose member another column feeds: their values are lost, so count the rows that have one.
  const taken = ignored.filter((c) => c.member !== undefined);
  const takenValues = taken.map(() => 0);
  for await (const batch of opened.batches) {
    for (const row of batch) {
      preview.rows++;
      for (let i = 0; i < taken.length; i++) {
        if ((row.cells[taken[i]!.column] ?? "").trim() !== "") takenValues[i]!++;
      }
      if (validator) {
        const result = validator.check(row);
        if (result.ok) {
          preview.valid++;
          if (preview.samples.length < sampleSize) {
            preview.samples.push({
              row: result.row,
              contact: Object.fromEntries(columns.map((c, i) => [c, result.values[i] ?? ""])),
            });
          }
        } else {
          preview.failed++;
          const code = result.failure.code;
          preview.failuresByCode[code] = (preview.failuresByCode[code] ?? 0) + 1;
          // Up to maxFailures of each kind: rows repeated in the file never crowd out the ones that will fail.
          const kept = code === "duplicate" ? repeatsKept++ : othersKept++;
          if (kept < maxFailures) preview.failures.push(result.failure);
        }
      }
      if (options.onProgress && preview.rows % PROGRESS_EVERY === 0) {
        options.onProgress({ rows: preview.rows, bytes: opened.bytesRead() });
      }
    }
  }
  preview.warnings = [
    ...notes,
    ...taken.flatMap((c, i) =>
      takenValues[i]
        ? [
            `${label(headers, c.column)} is not imported (${count(takenValues[i]!, "row")} with a value): ${c.reason}`,
          ]
        : [],
    ),
  ];
  if (validator?.fullNamesLost && mapping.name !== null) {
    const n = validator.fullNamesLost;
    preview.warnings.push(
      `${label(headers, mapping.name)} is not imported on ${count(n, "row")} (row ${validator.firstFullNameLost}${n > 1 ? " and others" : ""}): ${n > 1 ? "they have" : "it has"} a first and a last name of ${n > 1 ? "their" : "its"} own, and the full name fills only a missing one`,
    );
  }
  preview.bytes = opened.bytesRead();
  options.onProgress?.({ rows: preview.rows, bytes: preview.bytes });
  return preview;
}

function columnUses(headers: readonly string[], mapping: ColumnMapping): ColumnUse[] {
  const target = new Map<number, string>();
  for (const column of mapping.phone) target.set(column, "phone");
  for (const t of ["first_name", "last_name", "email", "name"] as const) {
    const column = mapping[t];
    if (column !== null && !target.has(column)) target.set(column, t);
  }
  for (const [key, column] of Object.entries(mapping.fields)) {
    if (!target.has(column)) target.set(column, `fields.${key}`);
  }
  return headers.map((header, column) => ({ column, header, target: target.get(column) ?? null }));
}

function unusedColumns(headers: readonly string[], mapping: ColumnMapping): IgnoredColumn[] {
  return columnUses(headers, mapping)
    .filter((c) => c.target === null)
    .map((c) => ({ column: c.column, header: c.header, reason: "not used by the chosen mapping" }));
}
