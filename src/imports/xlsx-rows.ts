// xlsx → rows, read in a worker thread with a heap limit (xlsx-worker.ts):
// a file that unzips to more than memory allows ends the worker, and the user
// gets a refusal in words, where it used to end the whole process. The bytes
// (at most XLSX_MAX_BYTES) are read here and handed over whole, since a zip's
// table of contents is at its end; exceljs's scratch files go to a directory
// of this parse (its TMPDIR), removed when the parse ends, however it ends.
import { rm } from "node:fs/promises";
import { Worker } from "node:worker_threads";
import { ImportFileError } from "./errors.ts";
import { XLSX_MAX_BYTES, xlsxTooBig } from "./source.ts";
import type { SourceRow } from "./source-row.ts";
import { UPLOAD_TEMP_ROOT, uploadTempDir } from "./temp.ts";
import { outOfMemory, XLSX_LIMITS, type XlsxLimits } from "./xlsx-limits.ts";
import type { FromWorker } from "./xlsx-worker.ts";

export interface XlsxOptions extends Partial<XlsxLimits> {
  /** Where the parse's scratch directory is made (UPLOAD_TEMP_ROOT). */
  tempRoot?: string;
}

export async function* xlsxRows(
  bytes: AsyncIterable<Uint8Array>,
  onSheet: (name: string) => void,
  options: XlsxOptions = {},
): AsyncGenerator<SourceRow[]> {
  const { tempRoot = UPLOAD_TEMP_ROOT, ...given } = options;
  const limits: XlsxLimits = { ...XLSX_LIMITS, ...given };
  const zip = await whole(bytes);
  const scratch = await uploadTempDir("xlsx", tempRoot);
  const messages: FromWorker[] = [];
  let failure: ImportFileError | undefined;
  let wake: () => void = () => {};
  const worker = new Worker(new URL("./xlsx-worker.ts", import.meta.url), {
    workerData: { zip, limits },
    transferList: [zip.buffer as ArrayBuffer],
    resourceLimits: { maxOldGenerationSizeMb: limits.heapMb },
    env: { ...process.env, TMPDIR: scratch, TMP: scratch, TEMP: scratch },
  });
  worker.on("message", (message: FromWorker) => {
    messages.push(message);
    wake();
  });
  worker.on("error", (error: Error & { code?: string }) => {
    failure ??=
      error.code === "ERR_WORKER_OUT_OF_MEMORY"
        ? outOfMemory()
        : new ImportFileError(
            `the spreadsheet cannot be read (${error.message}): save it again as .xlsx or .csv`,
          );
    wake();
  });
  worker.on("exit", () => {
    failure ??= new ImportFileError(
      "the spreadsheet cannot be read (its reader stopped): save it again as .xlsx or .csv",
    );
    wake();
  });
  try {
    for (;;) {
      const message = messages.shift();
      if (!message) {
        if (failure) throw failure;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        continue;
      }
      if (message.kind === "end") return;
      if (message.kind === "refused") throw new ImportFileError(message.message);
      if (message.kind === "sheet") onSheet(message.name);
      else {
        yield message.rows;
        worker.postMessage("more");
      }
    }
  } finally {
    await worker.terminate();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The bytes in one buffer, refused past XLSX_MAX_BYTES (a stream of unknown size is cut there). */
async function whole(bytes: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of bytes) {
    size += chunk.length;
    if (size > XLSX_MAX_BYTES) throw xlsxTooBig();
    chunks.push(chunk);
  }
  return new Uint8Array(Buffer.concat(chunks, size));
}
