// A logger whose JSON lines a test can read, and wait for.
import { Writable } from "node:stream";
import pino from "pino";

/** Every captured log of this test file, so a failing test can print what went wrong (test/setup.ts). */
export const capturedLogs = new Set<Array<Record<string, unknown>>>();

export function captureLogger() {
  const logs: Array<Record<string, unknown>> = [];
  capturedLogs.add(logs);
  const listeners = new Set<() => void>();
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) logs.push(JSON.parse(line));
      for (const l of listeners) l();
      done();
    },
  });
  const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? "info", base: { app: "switchboard" } }, stream);
  const waitForLog = (match: (line: Record<string, unknown>) => boolean, timeoutMs = 10_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const hit = logs.find(match);
        if (!hit) return false;
        listeners.delete(check);
        clearTimeout(timer);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        listeners.delete(check);
        reject(new Error("timed out waiting for a log line"));
      }, timeoutMs);
      if (!check()) listeners.add(check);
    });
  return { logger, logs, waitForLog };
}
