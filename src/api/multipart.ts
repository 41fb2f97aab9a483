// multipart/form-data for the contact import. A file held in memory goes as
// undici's FormData (the library encodes it); a stream goes as a multipart
// body generated on the fly, so a large import never sits whole in memory.
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import type { FormData } from "undici";
import type { ImportFile } from "./types.ts";

/** Quotes a value of a Content-Disposition parameter as the HTML standard does. */
const quote = (s: string) => s.replace(/\r/g, "%0D").replace(/\n/g, "%0A").replace(/"/g, "%22");

async function* chunksOf(
  body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  if (Symbol.asyncIterator in body) {
    yield* body as AsyncIterable<Uint8Array>;
    return;
  }
  const reader = (body as ReadableStream<Uint8Array>).getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

export interface MultipartBody {
  body: FormData | Readable;
  /** Content-Type with boundary, when the body is not FormData (which sets its own). */
  contentType?: string;
  /** A buffered body can be sent again; a stream cannot. */
  replayable: boolean;
}

export async function multipartBody(
  file: ImportFile,
  fields: Record<string, string>,
): Promise<MultipartBody> {
  const type = file.contentType ?? "application/octet-stream";
  if (file.body instanceof Uint8Array) {
    // undici's own FormData (its Pool refuses Node's global one), loaded with the first import sent, not at start.
    const undici = await import("undici");
    const form = new undici.FormData();
    for (const [name, value] of Object.entries(fields)) form.append(name, value);
    form.append("file", new Blob([file.body as Uint8Array<ArrayBuffer>], { type }), file.filename);
    return { body: form, replayable: true };
  }
  const boundary = `----switchboard${randomBytes(12).toString("hex")}`;
  const source = file.body;
  async function* generate(): AsyncGenerator<Uint8Array> {
    const enc = new TextEncoder();
    for (const [name, value] of Object.entries(fields)) {
      yield enc.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${quote(name)}"\r\n\r\n${value}\r\n`,
      );
    }
    yield enc.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${quote(file.filename)}"\r\n` +
        `Content-Type: ${type}\r\n\r\n`,
    );
    yield* chunksOf(source);
    yield enc.encode(`\r\n--${boundary}--\r\n`);
  }
  return {
    body: Readable.from(generate(), { objectMode: false }),
    contentType: `multipart/form-data; boundary=${boundary}`,
    replayable: false,
  };
}
