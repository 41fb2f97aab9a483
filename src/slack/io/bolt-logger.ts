// Bolt speaks its own Logger interface; this routes it into the process's pino
// logger (whose redaction keeps tokens out), under `component: "bolt"`.
import { type Logger as BoltLogger, LogLevel } from "@slack/bolt";
import type { Logger } from "../../platform/log.ts";

const TO_PINO: Record<LogLevel, string> = {
  [LogLevel.DEBUG]: "debug",
  [LogLevel.INFO]: "info",
  [LogLevel.WARN]: "warn",
  [LogLevel.ERROR]: "error",
};

export function boltLogger(logger: Logger): BoltLogger {
  const child = logger.child({ component: "bolt" });
  const line = (msg: unknown[]) =>
    msg
      .map((m) => (typeof m === "string" ? m : m instanceof Error ? m.message : JSON.stringify(m)))
      .join(" ");
  return {
    debug: (...msg) => child.debug(line(msg)),
    info: (...msg) => child.info(line(msg)),
    warn: (...msg) => child.warn(line(msg)),
    error: (...msg) => child.error(line(msg)),
    setLevel: (level) => {
      child.level = TO_PINO[level] ?? "info";
    },
    getLevel: () => {
      const found = (Object.entries(TO_PINO) as [LogLevel, string][]).find(([, p]) => p === child.level);
      return found?.[0] ?? LogLevel.INFO;
    },
    setName: () => {},
  };
}
