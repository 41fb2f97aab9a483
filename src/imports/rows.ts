// Opens an upload as a header and a stream of rows, whatever its container
// (CSV in any of its encodings and delimiters, or xlsx), counting the bytes
// as they pass for progress.

import { csvRows } from "./csv-rows.ts";
import { type Delimiter, detectDelimiter } from "./delimiter.ts";
import { decodeHead, decodeText, detectEncoding, type TextEncoding } from "./encoding.ts";
import { ImportFileError } from "./errors.ts";
import {
  detectFormat,
  type FileFormat,
  type ImportSource,
  knownSize,
  openBytes,
  tap,
  withHead,
  XLSX_MAX_BYTES,
  xlsxTooBig,
} from "./source.ts";
import { type XlsxOptions, xlsxRows } from "./xlsx-rows.ts";

export interface SourceRow {
  /** The row number a spreadsheet shows: the header is row 1. */
  row: number;
  cells: string[];
}

export interface FileShape {
  format: FileFormat;
  /** CSV only. */
  encoding?: TextEncoding;
  bom?: boolean;
  delimiter?: Delimiter;
  /** xlsx only: the worksheet read. */
  sheet?: string;
}

export interface OpenedRows {
  shape: FileShape;
  headers: string[];
  /** The row number of the header. */
  headerRow: number;
  /** Data rows after the header; blank rows are left out (their numbers are kept). */
  rows: AsyncGenerator<SourceRow>;
  /** Bytes read so far. */
  bytesRead(): number;
}

const HEAD_BYTES = 64 * 1024;

export async function openRows(source: ImportSource, xlsx?: XlsxOptions): Promise<OpenedRows> {
  let bytes = 0;
  const counted = tap(openBytes(source), (chunk) => {
    bytes += chunk.length;
  });
  const { head, stream } = await withHead(counted, HEAD_BYTES);
  let shape: FileShape;
  let all: AsyncGenerator<SourceRow>;
  try {
    const format = detectFormat(head);
    if (format === "xlsx") {
      // exceljs keeps the whole shared-string table (every distinct text cell)
      // in memory: a spreadsheet is refused past XLSX_MAX_BYTES, before it is parsed.
      const size = await knownSize(source);
      if (size !== undefined && size > XLSX_MAX_BYTES) throw xlsxTooBig(size);
      // Read in a worker thread with a heap limit (xlsx-rows.ts): exceljs is
      // loaded there only, and a file that unzips to too much ends the worker, not us.
      shape = { format };
      all = xlsxRows(
        stream,
        (name) => {
          shape.sheet = name;
        },
        xlsx,
      );
    } else {
      const { encoding, bom } = detectEncoding(head);
      const { delimiter, sepLine } = detectDelimiter(decodeHead(head, encoding));
      shape = { format, encoding, bom, delimiter };
      all = csvRows(decodeText(stream, encoding), delimiter, sepLine);
    }
  } catch (error) {
    await stream.return(undefined);
    throw error;
  }

  let header: SourceRow | undefined;
  for (;;) {
    const next = await all.next();
    if (next.done) break;
    if (!isBlank(next.value.cells)) {
      header = next.value;
      break;
    }
  }
  if (!header) throw new ImportFileError("the file has no header row (it is empty or blank)");
  const headers = header.cells.map((h, i) => h.trim() || `Column ${columnLetter(i)}`);

  async function* rows(): AsyncGenerator<SourceRow> {
    try {
      for (let next = await all.next(); !next.done; next = await all.next()) {
        if (!isBlank(next.value.cells)) yield next.value;
      }
    } finally {
      await all.return(undefined);
    }
  }
  return {
    shape,
    headers,
    headerRow: header.row,
    rows: rows(),
    bytesRead: () => bytes,
  };
}

function isBlank(cells: string[]): boolean {
  return cells.every((c) => c.trim() === "");
}

/** A, B, …, Z, AA: how a spreadsheet names a column. */
export function columnLetter(index: number): string {
  let n = index + 1;
  let s = "";
  while (n > 0) {
    const r = (n - 1) % 26;
    s = String.fromCharCode(65 + r) + s;
    n = Math.floor((n - 1) / 26);
  }
  return s;
}
