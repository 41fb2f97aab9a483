// The one polling helper of the tests, for conditions reached by background
// work that emits nothing to wait on (a database row, a child process's
// output, a budget's queue). `check` is tried at once, then again every
// `intervalMs`, until it gives a truthy value without throwing; that value
// is returned. On time out the last error thrown by `check` (an `expect`
// inside it), or "timed out waiting for <what>", fails the test, with
// `detail()` appended. The time limit only stops a test that would wait
// forever: no assertion on how long it took. Where a fake emits events, wait
// on them instead (`fake.waitFor`, `waitForLog`).

export interface EventuallyOptions {
  /** Default 30 s: generous for a loaded machine. */
  timeoutMs?: number;
  /** Default 50 ms. */
  intervalMs?: number;
  /** More to say on time out (a child process's output…). */
  detail?: () => string;
}

export async function eventually<T>(
  check: () => Promise<T | undefined | null | false> | T | undefined | null | false,
  what = "condition",
  opts: EventuallyOptions = {},
): Promise<T> {
  const { timeoutMs = 30_000, intervalMs = 50 } = opts;
  const until = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
      last = undefined;
    } catch (err) {
      last = err;
    }
    if (Date.now() > until) {
      const more = opts.detail ? `\n${opts.detail()}` : "";
      if (last instanceof Error) {
        last.message = `timed out waiting for ${what}: ${last.message}${more}`;
        throw last;
      }
      throw new Error(`timed out waiting for ${what}${more}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
