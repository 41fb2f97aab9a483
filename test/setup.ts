// When a test fails, the warnings and errors its Switchboard logged while it ran are printed beside the
// failure: a CI run on a fresh clone keeps nothing else ("Something went wrong (ref …)" names a log line).
import { beforeEach } from "vitest";
import { capturedLogs } from "./helpers/log.ts";

/** pino's level of a warning. */
const WARN = 40;

beforeEach(({ onTestFailed }) => {
  const from = new Map([...capturedLogs].map((logs) => [logs, logs.length]));
  onTestFailed(() => {
    const lines = [...capturedLogs].flatMap((logs) =>
      logs.slice(from.get(logs) ?? 0).filter((l) => Number(l.level) >= WARN),
    );
    if (lines.length === 0) return;
    console.error(
      `Switchboard's warnings and errors during the failed test (${lines.length}):\n${lines
        .slice(-40)
        .map((l) => JSON.stringify(l))
        .join("\n")}`,
    );
  });
});
