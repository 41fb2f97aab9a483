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
import type { SourceRow } from "./source-row.ts";
import { type XlsxOptions, xlsxRows } from "./xlsx-rows.ts";

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
  /**
   * Data rows after the header, in batches (what one chunk of the file holds);
   * blank rows are left out (their numbers are kept).
   */
  batches: AsyncGenerator<SourceRow[]>;
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
  let all: AsyncGenerator<SourceRow[]>;
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

  // The first non-blank row is the header; the rest of its batch is data.
  let header: SourceRow | undefined;
  let rest: SourceRow[] = [];
  while (!header) {
    const next = await all.next();
    if (next.done) break;
    const at = next.value.findIndex((r) => !isBlank(r.cells));
    if (at >= 0) {
      header = next.value[at]!;
      rest = next.value.slice(at + 1);
    }
  }
  if (!header) {
    await all.return(undefined);
    throw new ImportFileError("the file has no header row (it is empty or blank)");
  }
  const headers = header.cells.map((h, i) => h.trim() || `Column ${columnLetter(i)}`);

  async function* batches(): AsyncGenerator<SourceRow[]> {
    try {
      let batch = rest;
      rest = [];
      for (;;) {
        // Blank rows are rare: a batch without one is passed on as it is.
        if (batch.some((r) => isBlank(r.cells))) batch = batch.filter((r) => !isBlank(r.cells));
        if (batch.length > 0) yield batch;
        const next = await all.next();
        if (next.done) break;
        batch = next.value;
      }
    } finally {
      await all.return(undefined);
    }
  }
  return {
    shape,
    headers,
    headerRow: header.row,
    batches: batches(),
    bytesRead: () => bytes,
  };
}

function isBlank(cells: string[]): boolean {
  for (const c of cells) if (c !== "" && c.trim() !== "") return false;
  return true;
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
