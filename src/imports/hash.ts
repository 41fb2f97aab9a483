// The identity of an upload: the same bytes give the same hash, so the Slack
// side can import one upload once, however often its event or button arrives.
import { createHash } from "node:crypto";
import { type ImportSource, openBytes } from "./source.ts";

/** sha256 of the upload's bytes, hex, read as a stream. */
export async function contentHash(source: ImportSource): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of openBytes(source)) hash.update(chunk);
  return hash.digest("hex");
}
