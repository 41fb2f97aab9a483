// The normalized CSV forwarded to POST /contacts/import: columns phone (E.164),
// first_name, last_name, email, then the custom field keys; refused rows left
// out. Produced as a stream that reads the upload only as fast as it is
// consumed, in batches, so a 1,000,000-row file never sits in memory.
import { Readable } from "node:stream";
import { stringify } from "csv-stringify/sync";
import { z } from "zod";
import { type RowFailure, RowValidator } from "./contact.ts";
import { type ColumnMapping, type FieldDefinition, MappingError, outputColumns } from "./headers.ts";
import { assertCountry } from "./phone.ts";
import type { Progress } from "./preview.ts";
import { openRows } from "./rows.ts";
import type { ImportSource } from "./source.ts";
import type { XlsxOptions } from "./xlsx-rows.ts";

export interface NormalizeOptions {
  /** Limits of an xlsx and where its parse keeps scratch files (xlsx-rows.ts); defaults: XLSX_LIMITS. */
  xlsx?: XlsxOptions;
  fields?: readonly FieldDefinition[];
  defaultCountry?: string;
  /** Called every few thousand rows and at the end. */
  onProgress?: (progress: NormalizeProgress) => void;
  /** Called for every refused row, in file order (for the errors CSV). */
  onFailure?: (failure: RowFailure) => void;
}

export interface NormalizeProgress extends Progress {
  written: number;
  failed: number;
}

export interface NormalizeSummary {
  rows: number;
  written: number;
  failed: number;
  bytes: number;
  columns: string[];
  /** The upload's headers, as preview.headers has them. */
  headers: string[];
}

export interface NormalizedCsv {
  /** The CSV bytes; an async iterable of Uint8Array as the API client takes it. */
  body: Readable;
  /** Settles when the body is finished (or failed). */
  done: Promise<NormalizeSummary>;
  /**
   * The upload's row number for a row of the normalized CSV (both counting the
   * header as row 1), to put the API's errors back on the rows the user knows.
   */
  sourceRowOf(row: number): number | undefined;
}

const columnIndex = z.number().int().min(0);
export const columnMappingSchema = z.strictObject({
  phone: z.array(columnIndex).min(1, { error: "choose the column that holds the phone numbers" }),
  first_name: columnIndex.nullable(),
  last_name: columnIndex.nullable(),
  email: columnIndex.nullable(),
  name: columnIndex.nullable(),
  fields: z.record(z.string(), columnIndex),
});

// Small batches (about 3 KB of CSV): the rows of a batch stay alive until it
// is written, and survivors make V8 grow its young generation (see source.ts).
// 1000-row batches took a 1,000,000-row import's peak from 207 MB to 258 MB.
const BATCH_ROWS = 50;
const CHUNK_BYTES = 16 * 1024;
const abandoned = () => new Error("the normalized CSV was not read to its end");
const PROGRESS_EVERY = 10_000;

export function normalizedCsv(
  source: ImportSource,
  mapping: ColumnMapping,
  options: NormalizeOptions,
): NormalizedCsv {
  const country = assertCountry(options.defaultCountry);
  const fields = options.fields ?? [];
  const checked = columnMappingSchema.safeParse(mapping);
  if (!checked.success) {
    throw new MappingError(checked.error.issues.map((i) => `${i.path.join(".") || "mapping"}: ${i.message}`));
  }
  const unknownKeys = Object.keys(mapping.fields).filter((k) => !fields.some((f) => f.key === k));
  if (unknownKeys.length > 0) {
    throw new MappingError(
      unknownKeys.map((k) => `fields.${k}: the organization has no contact field with this key`),
    );
  }

  // Row map: rowMap[i] is the upload row of the normalized CSV's data row i (its row i + 2).
  let rowMap = new Uint32Array(1024);
  let written = 0;
  let resolveDone!: (s: NormalizeSummary) => void;
  let rejectDone!: (e: unknown) => void;
  const done = new Promise<NormalizeSummary>((resolve, reject) => {
    resolveDone = resolve;
    rejectDone = reject;
  });
  // The caller may only watch the body; a failure still reaches it there.
  done.catch(() => {});

  async function* generate(): AsyncGenerator<Buffer> {
    const opened = await openRows(source, options.xlsx);
    const columns = outputColumns(mapping);
    const outOfRange = [...mapping.phone, mapping.first_name, mapping.last_name, mapping.email, mapping.name]
      .concat(Object.values(mapping.fields))
      .filter((c): c is number => c !== null && c >= opened.headers.length);
    if (outOfRange.length > 0) {
      await opened.batches.return(undefined);
      throw new MappingError([
        `the file has ${opened.headers.length} columns; the mapping names column ${outOfRange[0]! + 1}`,
      ]);
    }
    const validator = new RowValidator(mapping, fields, country);
    let rows = 0;
    let failed = 0;
    let batch: string[][] = [columns];
    const report = () => options.onProgress?.({ rows, bytes: opened.bytesRead(), written, failed });
    for await (const source of opened.batches) {
      for (const row of source) {
        rows++;
        const result = validator.check(row);
        if (result.ok) {
          if (written === rowMap.length) {
            const grown = new Uint32Array(rowMap.length * 2);
            grown.set(rowMap);
            rowMap = grown;
          }
          rowMap[written++] = result.row;
          batch.push(result.values);
          if (batch.length >= BATCH_ROWS) {
            yield Buffer.from(stringify(batch));
            batch = [];
          }
        } else {
          failed++;
          options.onFailure?.(result.failure);
        }
        if (rows % PROGRESS_EVERY === 0) report();
      }
    }
    if (batch.length > 0) yield Buffer.from(stringify(batch));
    report();
    resolveDone({ rows, written, failed, bytes: opened.bytesRead(), columns, headers: opened.headers });
  }

  async function* guarded(): AsyncGenerator<Buffer> {
    try {
      yield* generate();
    } catch (error) {
      // Readable.from aborts the generator when the body is destroyed before its end.
      rejectDone((error as Error)?.name === "AbortError" ? abandoned() : error);
      throw error;
    } finally {
      rejectDone(abandoned());
    }
  }

  return {
    body: Readable.from(guarded(), { objectMode: false, highWaterMark: CHUNK_BYTES }),
    done,
    sourceRowOf: (row) => (row >= 2 && row - 2 < written ? rowMap[row - 2] : undefined),
  };
}

/** The name of the forwarded file: always CSV, whatever the upload was ("Contacts.xlsx" → "Contacts.csv"). */
export function normalizedFileName(uploadName: string): string {
  const base =
    uploadName
      .replace(/[/\\]/g, "_")
      .replace(/\.[^.]*$/, "")
      .trim() || "contacts";
  return `${base}.csv`;
}
