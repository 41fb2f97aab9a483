// `npm run sandbox`: the sandbox API as a server of its own, on SANDBOX_PORT
// (default 4010) of SANDBOX_HOST (default 127.0.0.1), with its data under
// DATA_DIR (or DATABASE_URL) so it survives restarts.
import { loadConfig } from "../platform/config.ts";
import { createLogger } from "../platform/log.ts";
import { openDb } from "../store/db.ts";
import { sandboxSettings, startSandbox } from "./index.ts";

const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
const db = await openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
const sandbox = await startSandbox({
  db,
  host: config.SANDBOX_HOST,
  port: config.SANDBOX_PORT,
  ...sandboxSettings(config),
  importMaxBytes: config.IMPORT_MAX_BYTES,
  logger: log.child({ component: "sandbox" }),
});
// These are the sandbox's own test keys: printing them is how a newcomer learns them.
log.info(
  { url: sandbox.url, readWriteKey: sandbox.apiKey, readOnlyKey: sandbox.readKey },
  `sandbox API at ${sandbox.url} (X-API-Key ${sandbox.apiKey} read+write, ${sandbox.readKey} read-only)`,
);

// state: the process's: the sandbox's own entry point, stopping once.
let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, "sandbox stopping");
  await sandbox.close();
  await db.close();
  process.exit(0);
};
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
