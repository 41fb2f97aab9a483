// Whether a process still runs: the embedded database's lock file (db.ts) and
// the uploads' temporary files (src/imports/temp.ts) are named after their
// process, and what a dead one left is removed.
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
