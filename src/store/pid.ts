// Whether a process still runs: the uploads' temporary files (src/imports/temp.ts)
// are named after their process, and what a dead one left is removed. (The
// embedded database's lock is a heartbeat instead, src/store/lock.ts: a pid may be reused.)
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
