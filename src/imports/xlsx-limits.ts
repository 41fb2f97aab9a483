// What an xlsx may expand to. A zip of a few MB can unzip to gigabytes (4,000
// shared strings of 1 MB each compress to 4 MB), and exceljs keeps the whole
// shared-string table in memory: the sizes the zip declares are checked
// first, then every part is inflated once, counting (declared sizes can lie),
// before exceljs reads a byte. Rows and columns are counted while reading.
import { createInflateRaw } from "node:zlib";
import { ImportFileError } from "./errors.ts";

export interface XlsxLimits {
  /** Unzipped size of xl/sharedStrings.xml, the table exceljs keeps in memory. */
  sharedStringsBytes: number;
  /** Unzipped size of any one part (a worksheet, the styles…). */
  entryBytes: number;
  /** Unzipped size of all parts together. */
  totalBytes: number;
  /** Parts in the zip. */
  entries: number;
  /** Rows read from the sheet (Excel's own limit). */
  rows: number;
  /** Columns of a row (Excel's own limit). */
  columns: number;
  /** Heap of the worker thread that parses the file (resourceLimits.maxOldGenerationSizeMb). */
  heapMb: number;
}

const MB = 1024 * 1024;

export const XLSX_LIMITS: Readonly<XlsxLimits> = {
  sharedStringsBytes: 64 * MB,
  entryBytes: 256 * MB,
  totalBytes: 256 * MB,
  entries: 10_000,
  rows: 1_048_576,
  columns: 16_384,
  heapMb: 384,
};

const SAVE_AS_CSV =
  "save the sheet as CSV (File › Save as › CSV UTF-8), which has no such limit, and upload that";
const mb = (n: number) => `${Math.round(n / MB)} MB`;

export function tooMuch(what: string, limit: string): ImportFileError {
  return new ImportFileError(
    `this spreadsheet is too big to read: ${what}, over the limit of ${limit}: ${SAVE_AS_CSV}`,
  );
}

export function outOfMemory(): ImportFileError {
  return new ImportFileError(
    `this spreadsheet needs more memory to read than an upload may use (it unzips to too much): ${SAVE_AS_CSV}`,
  );
}

const unreadable = (why: string) =>
  new ImportFileError(`the spreadsheet cannot be read (${why}): save it again as .xlsx or .csv`);

interface Entry {
  name: string;
  method: number;
  compressed: number;
  declared: number;
  localOffset: number;
}

/** The zip's table of contents (its central directory), as the file declares it. */
export function zipEntries(zip: Uint8Array): Entry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = -1;
  for (let i = zip.length - 22; i >= Math.max(0, zip.length - 22 - 0xffff); i--) {
    if (view.getUint32(i, true) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) throw unreadable("it is not a whole zip file");
  const count = view.getUint16(end + 10, true);
  const offset = view.getUint32(end + 16, true);
  // ZIP64 is for parts of 4 GB and more: nothing an upload may hold.
  if (count === 0xffff || offset === 0xffffffff) throw tooMuch("it is a ZIP64 archive", "4 GB per part");
  const entries: Entry[] = [];
  let at = offset;
  for (let n = 0; n < count; n++) {
    if (at + 46 > zip.length || view.getUint32(at, true) !== 0x02014b50)
      throw unreadable("its zip directory is damaged");
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    entries.push({
      name: Buffer.from(zip.subarray(at + 46, at + 46 + nameLength)).toString("utf8"),
      method: view.getUint16(at + 10, true),
      compressed: view.getUint32(at + 20, true),
      declared: view.getUint32(at + 24, true),
      localOffset: view.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

const limitOf = (name: string, limits: XlsxLimits) =>
  name === "xl/sharedStrings.xml" ? limits.sharedStringsBytes : limits.entryBytes;

const what = (name: string) => (name === "xl/sharedStrings.xml" ? `its text cells (${name})` : name);

/**
 * Refuses, in words, an xlsx that would unzip to more than `limits` allow:
 * by the sizes it declares, then by the bytes its parts really inflate to.
 */
export async function checkXlsxZip(zip: Uint8Array, limits: XlsxLimits): Promise<void> {
  const entries = zipEntries(zip);
  if (entries.length > limits.entries) throw tooMuch(`it holds ${entries.length} parts`, `${limits.entries}`);
  let total = 0;
  for (const e of entries) {
    const limit = limitOf(e.name, limits);
    if (e.declared > limit) throw tooMuch(`${what(e.name)} unzip to ${mb(e.declared)}`, mb(limit));
    total += e.declared;
    if (total > limits.totalBytes) throw tooMuch(`it unzips to over ${mb(total)}`, mb(limits.totalBytes));
  }
  total = 0;
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  for (const e of entries) {
    const at = e.localOffset;
    if (at + 30 > zip.length || view.getUint32(at, true) !== 0x04034b50)
      throw unreadable("a zip part is missing");
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const data = zip.subarray(start, start + e.compressed);
    const limit = Math.min(limitOf(e.name, limits), limits.totalBytes - total);
    const size = e.method === 0 ? data.length : await inflatedSize(data, limit, e.name);
    if (size > limit) {
      throw limit < limitOf(e.name, limits)
        ? tooMuch("it unzips to more than it says", mb(limits.totalBytes))
        : tooMuch(`${what(e.name)} unzip to more than ${mb(limit)}`, mb(limit));
    }
    total += size;
  }
}

/** Inflates without keeping the output, stopping once past `limit` (then returns limit + 1). */
function inflatedSize(data: Uint8Array, limit: number, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const inflate = createInflateRaw();
    let size = 0;
    let over = false;
    inflate.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit && !over) {
        over = true;
        inflate.destroy();
        resolve(limit + 1);
      }
    });
    inflate.on("error", (err) => (over ? undefined : reject(unreadable(`${name}: ${err.message}`))));
    inflate.on("end", () => resolve(size));
    inflate.end(data);
  });
}
