// Where the bytes of an upload come from. A source can be opened more than
// once (the preview reads it, then the import reads it again), so it is a
// path, the bytes themselves, or a function that opens a fresh stream.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { ImportFileError } from "./errors.ts";

export type ImportSource =
  | string
  | Uint8Array
  | { filename?: string; open(): AsyncIterable<Uint8Array> | NodeJS.ReadableStream };

// Small slices keep few rows in flight: the rows parsed from one slice are
// alive at once, and V8 doubles its young generation each time enough of them
// outlive a minor GC. With 64 KB slices the young generation of a
// 1,000,000-row import grew to 128 MB; with 16 KB it stays near 16 MB, at the
// same speed (docs/imports.md, "Performance").
const SLICE = 16 * 1024;

export async function* openBytes(source: ImportSource): AsyncGenerator<Uint8Array> {
  if (typeof source === "string") {
    yield* createReadStream(source, { highWaterMark: SLICE }) as AsyncIterable<Buffer>;
  } else if (source instanceof Uint8Array) {
    // Slices, so that progress and backpressure behave as with a stream.
    yield* slices(source);
  } else {
    // A download comes in chunks of the sender's size (often 64 KB or more).
    for await (const chunk of source.open() as AsyncIterable<Uint8Array | string>) {
      yield* slices(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
    }
  }
}

function* slices(bytes: Uint8Array): Generator<Uint8Array> {
  if (bytes.length <= SLICE) yield bytes;
  else for (let i = 0; i < bytes.length; i += SLICE) yield bytes.subarray(i, i + SLICE);
}

/** Reads at least `min` bytes (or the whole stream when shorter) and gives them back with the stream. */
export async function withHead(
  bytes: AsyncIterable<Uint8Array>,
  min: number,
): Promise<{ head: Uint8Array; stream: AsyncGenerator<Uint8Array> }> {
  const it = bytes[Symbol.asyncIterator]();
  const taken: Uint8Array[] = [];
  let size = 0;
  let done = false;
  while (size < min) {
    const next = await it.next();
    if (next.done) {
      done = true;
      break;
    }
    taken.push(next.value);
    size += next.value.length;
  }
  async function* stream(): AsyncGenerator<Uint8Array> {
    try {
      yield* taken;
      taken.length = 0;
      if (done) return;
      for (let next = await it.next(); !next.done; next = await it.next()) yield next.value;
    } finally {
      await it.return?.();
    }
  }
  return { head: Buffer.concat(taken), stream: stream() };
}

/** Calls `onChunk` with every chunk as it passes. */
export async function* tap(
  bytes: AsyncIterable<Uint8Array>,
  onChunk: (chunk: Uint8Array) => void,
): AsyncGenerator<Uint8Array> {
  for await (const chunk of bytes) {
    onChunk(chunk);
    yield chunk;
  }
}

/**
 * The largest xlsx read. exceljs's streaming reader keeps every distinct text
 * cell (the shared-string table) in memory, so a spreadsheet is not bounded
 * the way a CSV is: 100,000 rows of names and e-mails (5.4 MB) peaked at
 * about 260–290 MB, 200,000 rows (10.7 MB) at 340–570 MB (docs/imports.md,
 * "Performance"). A CSV has no such limit.
 */
export const XLSX_MAX_BYTES = 5 * 1024 * 1024;

export function xlsxTooBig(size?: number): ImportFileError {
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  return new ImportFileError(
    `${size === undefined ? "this spreadsheet is over" : `this spreadsheet is ${mb(size)}, over`} the ${mb(XLSX_MAX_BYTES)} limit for .xlsx files: save the sheet as CSV (File › Save as › CSV UTF-8), which has no such limit, and upload that`,
  );
}

/** The size of a file or of bytes, when known before reading them. */
export async function knownSize(source: ImportSource): Promise<number | undefined> {
  if (typeof source === "string") return (await stat(source)).size;
  if (source instanceof Uint8Array) return source.length;
  return undefined;
}

export type FileFormat = "csv" | "xlsx";

/** The container, told by the first bytes rather than the file name (names lie). */
export function detectFormat(head: Uint8Array): FileFormat {
  if (head.length === 0) throw new ImportFileError("the file is empty");
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return "xlsx";
  if (startsWith(head, [0xd0, 0xcf, 0x11, 0xe0])) {
    throw new ImportFileError("old Excel files (.xls) are not supported: save the sheet as .xlsx or .csv");
  }
  if (startsWith(head, [0x25, 0x50, 0x44, 0x46])) {
    throw new ImportFileError("this is a PDF, not a spreadsheet: upload a .csv or .xlsx file");
  }
  return "csv";
}

function startsWith(head: Uint8Array, magic: number[]): boolean {
  return magic.every((b, i) => head[i] === b);
}
