// The worker thread that reads an xlsx (started by xlsx-rows.ts with a heap
// limit): whatever the file does to memory ends this thread, not the bot.
// Rows go back in batches, one batch at a time: the next waits for "more".
import { parentPort, workerData } from "node:worker_threads";
import { ImportFileError } from "./errors.ts";
import type { SourceRow } from "./source-row.ts";
import { checkXlsxZip, type XlsxLimits } from "./xlsx-limits.ts";
import { readXlsx } from "./xlsx-read.ts";

export type FromWorker =
  | { kind: "sheet"; name: string }
  | { kind: "rows"; rows: SourceRow[] }
  | { kind: "end" }
  | { kind: "refused"; message: string };

const BATCH = 500;

const port = parentPort;
if (!port) throw new Error("xlsx-worker.ts runs only as a worker thread");
const { zip, limits } = workerData as { zip: Uint8Array; limits: XlsxLimits };
const send = (message: FromWorker) => port.postMessage(message);
const more = () => new Promise<void>((resolve) => port.once("message", () => resolve()));

try {
  await checkXlsxZip(zip, limits);
  let batch: SourceRow[] = [];
  for await (const row of readXlsx(zip, (name) => send({ kind: "sheet", name }), limits)) {
    batch.push(row);
    if (batch.length === BATCH) {
      send({ kind: "rows", rows: batch });
      batch = [];
      await more();
    }
  }
  if (batch.length) send({ kind: "rows", rows: batch });
  send({ kind: "end" });
} catch (error) {
  // Anything else is a bug: it ends the worker with an error the reader reports.
  if (!(error instanceof ImportFileError)) throw error;
  send({ kind: "refused", message: error.message });
}
port.close();
