// Waiting on a fake's state: `check` is tried at once, then again each time
// the fake emits `event`, until it returns a value (or the time runs out).
import type { EventEmitter } from "node:events";

export function waitForEvent<T>(
  events: EventEmitter,
  event: string,
  check: () => T | undefined | false | null,
  timeoutMs: number,
  timeoutMessage: string,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = check();
    if (first) return resolve(first);
    const on = () => {
      const v = check();
      if (v) {
        cleanup();
        resolve(v);
      }
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(timeoutMessage));
    }, timeoutMs);
    const cleanup = () => {
      clearTimeout(timer);
      events.off(event, on);
    };
    events.on(event, on);
  });
}
