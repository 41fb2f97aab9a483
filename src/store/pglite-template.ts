// The first start of the embedded database without initdb.
//
// PGlite creates a new database by running initdb in a second PostgreSQL
// instance inside the same process, copying that instance's whole heap once
// per step: a first start peaked at about 1 GiB. An empty database is the
// same files on every machine, so Switchboard ships them
// (pglite-template.tar.br: PGlite's own dumpDataDir() of a fresh database,
// brotli-compressed, about 1.2 MB) and writes them into an empty DATA_DIR;
// PostgreSQL then starts on them as on any earlier database. When the files
// do not suit the installed PGlite (another PostgreSQL major), openDb falls
// back to initdb.
//
// Regenerate after upgrading @electric-sql/pglite (test/store/pglite-template.test.ts
// says when): `node src/store/pglite-template.ts --write`.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";

export const TEMPLATE_PATH = fileURLToPath(new URL("./pglite-template.tar.br", import.meta.url));

/** The files of a tar archive (ustar: files and folders only, as PGlite writes it). */
export function* tarEntries(
  tar: Uint8Array,
): Generator<{ path: string; type: "file" | "dir"; data: Uint8Array }> {
  const text = (from: number, length: number) => {
    const bytes = tar.subarray(from, from + length);
    const end = bytes.indexOf(0);
    return Buffer.from(end < 0 ? bytes : bytes.subarray(0, end)).toString("utf8");
  };
  let at = 0;
  while (at + 512 <= tar.length) {
    const name = text(at, 100);
    if (!name) break; // the two empty blocks that end an archive
    const prefix = text(at + 345, 155);
    const size = Number.parseInt(text(at + 124, 12).trim() || "0", 8);
    const flag = String.fromCharCode(tar[at + 156] ?? 0);
    const path = prefix ? `${prefix}/${name}` : name;
    const data = tar.subarray(at + 512, at + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (flag === "5") yield { path, type: "dir", data };
    else if (flag === "0" || flag === "\0") yield { path, type: "file", data };
    else
      throw new Error(`unexpected entry type ${JSON.stringify(flag)} for ${path} in the database template`);
  }
}

/**
 * Writes the template's files into `dataDir` (which holds no database).
 * Returns false when there is no template; throws when it cannot be written
 * (the caller then removes what was written and runs initdb).
 */
export function writeTemplate(dataDir: string): boolean {
  let packed: Buffer;
  try {
    packed = readFileSync(TEMPLATE_PATH);
  } catch {
    return false;
  }
  const root = normalize(dataDir);
  for (const entry of tarEntries(brotliDecompressSync(packed))) {
    const target = normalize(join(root, entry.path));
    if (target !== root && !target.startsWith(root + sep))
      throw new Error(`${entry.path} is outside the data folder`);
    if (entry.type === "dir") mkdirSync(target, { recursive: true });
    else {
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, entry.data);
    }
  }
  return true;
}

/** Removes everything in `dataDir` but `keep` (the lock file): after a template that did not open. */
export function emptyDataDir(dataDir: string, keep: string[]): void {
  for (const name of readdirSync(dataDir)) {
    if (!keep.includes(name)) rmSync(join(dataDir, name), { recursive: true, force: true });
  }
}

/** A fresh database as PGlite's initdb makes it, as the template file's bytes. */
export async function makeTemplate(): Promise<Buffer> {
  const { PGlite } = await import("@electric-sql/pglite");
  const lite = await PGlite.create();
  try {
    const tar = new Uint8Array(await (await lite.dumpDataDir("none")).arrayBuffer());
    return brotliCompressSync(tar, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 11,
        [constants.BROTLI_PARAM_LGWIN]: 24,
        [constants.BROTLI_PARAM_SIZE_HINT]: tar.length,
      },
    });
  } finally {
    await lite.close();
  }
}

if (
  process.argv[1] &&
  import.meta.url === pathToFileURL(process.argv[1]).href &&
  process.argv[2] === "--write"
) {
  writeFileSync(TEMPLATE_PATH, await makeTemplate());
  process.stdout.write(`wrote ${TEMPLATE_PATH}\n`);
}
