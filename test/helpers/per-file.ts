// Something a test file starts once: before its tests (beforeAll), and closes
// after them (afterAll). The getter is for tests and hooks.
import { afterAll, beforeAll } from "vitest";

export function perFile<T extends { close(): Promise<void> }>(
  what: string,
  start: () => Promise<T>,
): () => T {
  let started: T | undefined;
  // Two minutes to start, as the files that started their own stacks gave it: a stack starts in seconds,
  // but on the shared 2-core machine under load it has taken over the 60 s default.
  beforeAll(async () => {
    started = await start();
  }, 120_000);
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (!started) throw new Error(`the ${what} is not started yet: use the getter inside a test or hook`);
    return started;
  };
}
