// Something a test file starts once: before its tests (beforeAll), and closes
// after them (afterAll). The getter is for tests and hooks.
import { afterAll, beforeAll } from "vitest";

export function perFile<T extends { close(): Promise<void> }>(
  what: string,
  start: () => Promise<T>,
): () => T {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (!started) throw new Error(`the ${what} is not started yet: use the getter inside a test or hook`);
    return started;
  };
}
