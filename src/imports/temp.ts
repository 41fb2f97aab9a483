// Temporary files of uploads: Slack's spooled downloads and the scratch
// directory of each xlsx parse (exceljs spools a worksheet read before its
// shared strings). All live in one folder, each named after the process that
// made it, so that a start removes what a crashed process left behind
// without touching the files of another process that is still running.
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAlive } from "../store/pid.ts";

export const UPLOAD_TEMP_ROOT = join(tmpdir(), "switchboard-uploads");

/** A fresh path (not created) under `root` for one upload. */
export async function uploadTempPath(name: string, root = UPLOAD_TEMP_ROOT): Promise<string> {
  await mkdir(root, { recursive: true });
  return join(root, `${process.pid}-${name.replace(/[^\w.-]/g, "_")}-${randomBytes(6).toString("hex")}`);
}

/** A fresh directory under `root`; the caller removes it. */
export async function uploadTempDir(name: string, root = UPLOAD_TEMP_ROOT): Promise<string> {
  await mkdir(root, { recursive: true });
  return mkdtemp(join(root, `${process.pid}-${name}-`));
}

/**
 * Removes what earlier processes left under `root` (files of a crash): every
 * entry but those of another process still alive. Our own pid's entries are
 * left over from an earlier process with the same pid (a container's pid 1),
 * since this runs at start. Returns the names removed.
 */
export async function removeStaleUploads(root = UPLOAD_TEMP_ROOT): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(root);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid !== process.pid && isAlive(pid)) continue;
    await rm(join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}
