// CSV text → rows. csv-parse does the quoting (quoted delimiters, quoted
// newlines, doubled quotes); this module numbers the records as a spreadsheet
// shows them (the header is row 1, a blank line is a row too). Rows come in
// batches, all that one chunk of text holds: one await per batch rather than
// one per row keeps the per-row cost down (docs/memory.md, "Import pipeline").
import { finished, Readable } from "node:stream";
import { CsvError, parse } from "csv-parse";
import type { Delimiter } from "./delimiter.ts";
import { ImportFileError } from "./errors.ts";
import type { SourceRow } from "./source-row.ts";

// Rows a batch holds at most. Rows alive at once are what makes V8 grow its
// young generation (source.ts): batches of a whole 16 KB slice (~250 rows,
// some over 1,000) took a 200,000-row normalize's peak from 167 to 195 MB.
const BATCH_ROWS = 50;

/** A record longer than this is a quote left open, not a contact. */
const MAX_RECORD_CHARS = 1024 * 1024;

export async function* csvRows(
  text: AsyncIterable<string>,
  delimiter: Delimiter,
  skipFirstLine: boolean,
): AsyncGenerator<SourceRow[]> {
  const parser = parse({
    delimiter,
    record_delimiter: ["\r\n", "\n", "\r"],
    relax_column_count: true,
    // A stray quote inside a cell (5" screen) is kept as text, as spreadsheets do.
    relax_quotes: true,
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_CHARS,
    from_line: skipFirstLine ? 2 : 1,
  });
  const input = Readable.from(text, { objectMode: false });
  input.on("error", (error) => parser.destroy(error));
  input.pipe(parser);
  let row = 0;
  try {
    for await (const records of batches<string[]>(parser)) {
      const batch: SourceRow[] = new Array(records.length);
      for (let i = 0; i < records.length; i++) batch[i] = { row: ++row, cells: records[i]! };
      yield batch;
    }
  } catch (error) {
    // The record that failed is the one after those parsed (blank lines count as records).
    throw explain(error, Math.max(row, parser.info.records) + 1);
  } finally {
    input.destroy();
    parser.destroy();
  }
}

/**
 * A readable stream's chunks, everything buffered at once: the loop of
 * Node's own async iterator (stream.read() until null, then wait for
 * "readable" or the end), but yielding an array per wake-up.
 */
async function* batches<T>(stream: Readable): AsyncGenerator<T[]> {
  let wake: () => void = () => {};
  const woken = () => {
    wake();
    wake = () => {};
  };
  // undefined: running; null: ended; an Error: failed.
  let ended: Error | null | undefined;
  stream.on("readable", woken);
  const cleanup = finished(stream, { writable: false }, (error) => {
    ended = error ?? null;
    woken();
  });
  try {
    for (;;) {
      const batch: T[] = [];
      for (let chunk = read(stream); chunk !== null; chunk = read(stream)) {
        batch.push(chunk as T);
        if (batch.length === BATCH_ROWS) break;
      }
      if (batch.length > 0) yield batch;
      else if (ended) throw ended;
      else if (ended === null) return;
      else
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
    }
  } finally {
    stream.off("readable", woken);
    cleanup();
  }
}

const read = (stream: Readable): unknown => (stream.destroyed ? null : stream.read());

function explain(error: unknown, row: number): unknown {
  if (!(error instanceof CsvError)) return error;
  switch (error.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return new ImportFileError(
        `row ${row} opens a quote (") that is never closed, so the rest of the file is one cell: close the quote or remove it`,
      );
    case "CSV_MAX_RECORD_SIZE":
      return new ImportFileError(
        `row ${row} is longer than 1 MB: a quote (") is probably never closed; close it or remove it`,
      );
    default:
      return new ImportFileError(`the CSV cannot be read at row ${row}: ${error.message}`);
  }
}
