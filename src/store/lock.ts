// PGlite has no lock of its own: two processes on one folder would corrupt it.
// The lock is a heartbeat (proper-lockfile): a directory whose time the holder
// touches every few seconds. A process that died, however it died, stops
// touching it, and after `staleMs` the next start takes it over, whatever
// process now has the dead one's pid (a container restart gives pid 1 again).
// A pid alone cannot tell a dead holder from a reused pid.
import { readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import lockfile from "proper-lockfile";

/** The lock (a directory) and a note of its holder, for the message of a refused start. */
export const LOCK_NAMES = ["switchboard.lock", "switchboard.lock.json"] as const;

/** Default staleness: the holder touches the lock every staleMs / 4. */
export const LOCK_STALE_MS = 10_000;

// Locks this process holds: a second opening here is refused at once, not after the staleness.
// state: the process's: the data-dir locks this process holds (a lock is a process's, not a workspace's).
const held = new Set<string>();

interface Holder {
  pid: number;
  host: string;
  since: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Locks `dataDir` for this process; resolves with the release. A lock last
 * touched more than `staleMs` ago is taken over; a live one is waited for
 * that long (its holder may have just died), then refused.
 */
export async function lockDataDir(
  dataDir: string,
  fail: (message: string) => Error,
  staleMs = LOCK_STALE_MS,
): Promise<() => Promise<void>> {
  const path = join(dataDir, LOCK_NAMES[0]);
  const notePath = join(dataDir, LOCK_NAMES[1]);
  // Earlier versions wrote a file holding a pid: it proves nothing (the pid may be anyone's now).
  if (statSync(path, { throwIfNoEntry: false })?.isFile()) rmSync(path, { force: true });
  const options = {
    realpath: false,
    lockfilePath: path,
    stale: staleMs,
    update: Math.max(1000, Math.floor(staleMs / 4)),
    // The heartbeat came late (the event loop was blocked) or the lock was removed: take it again
    // when nobody else holds it; when someone does, two processes share the folder: stop this one.
    onCompromised: (err: Error) => {
      lockfile.lock(dataDir, options).then(
        (r) => {
          release = r;
        },
        () => {
          throw fail(
            `lost the lock of the embedded database in ${dataDir} (${err.message}): stopping so that two processes never share it`,
          );
        },
      );
    },
  };
  let release: () => Promise<void>;
  const deadline = Date.now() + staleMs + 2 * options.update;
  for (;;) {
    if (held.has(path)) throw fail(inUse(dataDir, readHolder(notePath), true));
    try {
      release = await lockfile.lock(dataDir, options);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ELOCKED") {
        throw fail(`cannot lock the embedded database in ${dataDir}: ${(err as Error).message}`);
      }
      if (Date.now() > deadline) throw fail(inUse(dataDir, readHolder(notePath), false));
      await sleep(250);
    }
  }
  held.add(path);
  const holder: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  writeFileSync(notePath, JSON.stringify(holder));
  return async () => {
    held.delete(path);
    rmSync(notePath, { force: true });
    await release().catch(() => {});
  };
}

function readHolder(notePath: string): Holder | undefined {
  try {
    return JSON.parse(readFileSync(notePath, "utf8")) as Holder;
  } catch {
    return undefined;
  }
}

function inUse(dataDir: string, holder: Holder | undefined, here: boolean): string {
  const who = here
    ? `process ${process.pid} (this one: close the first Db before opening it again)`
    : holder
      ? `process ${holder.pid} on ${holder.host}, running since ${holder.since}`
      : "another process";
  return `the embedded database in ${dataDir} is in use by ${who}: stop it, or give this one its own DATA_DIR or a DATABASE_URL`;
}
