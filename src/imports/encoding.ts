// Text encodings of CSV files as spreadsheets and address books write them:
// UTF-8 with or without a BOM, UTF-16 (Excel's "Unicode text", Outlook) with a
// BOM or without one, and Windows-1252 (Excel's plain "CSV" on Windows).
import { ImportFileError } from "./errors.ts";

export type TextEncoding = "utf-8" | "utf-16le" | "utf-16be" | "windows-1252";

export interface DetectedEncoding {
  encoding: TextEncoding;
  bom: boolean;
}

export function detectEncoding(head: Uint8Array): DetectedEncoding {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: "utf-8", bom: true };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: "utf-16le", bom: true };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: "utf-16be", bom: true };

  // Without a BOM, UTF-16 shows itself by NUL bytes: mostly ASCII text puts a
  // NUL in every other byte, the odd ones for little-endian, the even ones for big.
  const sample = head.subarray(0, Math.min(head.length, 4096) & ~1);
  let evenNul = 0;
  let oddNul = 0;
  for (let i = 0; i < sample.length; i += 2) {
    if (sample[i] === 0) evenNul++;
    if (sample[i + 1] === 0) oddNul++;
  }
  const pairs = sample.length / 2;
  if (pairs >= 2) {
    if (oddNul >= pairs * 0.3 && evenNul <= pairs * 0.05) return { encoding: "utf-16le", bom: false };
    if (evenNul >= pairs * 0.3 && oddNul <= pairs * 0.05) return { encoding: "utf-16be", bom: false };
  }
  if (evenNul + oddNul > 0) {
    throw new ImportFileError("the file is not text (it holds NUL bytes): upload a .csv or .xlsx file");
  }
  try {
    // stream: true so that a character cut at the end of the sample is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: true });
    return { encoding: "utf-8", bom: false };
  } catch {
    return { encoding: "windows-1252", bom: false };
  }
}

/** Decodes a byte stream as text; a BOM is dropped. */
export async function* decodeText(
  bytes: AsyncIterable<Uint8Array>,
  encoding: TextEncoding,
): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding);
  for await (const chunk of bytes) {
    const text = decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

/** The start of the text, for sniffing the delimiter. */
export function decodeHead(head: Uint8Array, encoding: TextEncoding): string {
  return new TextDecoder(encoding).decode(head, { stream: true });
}
