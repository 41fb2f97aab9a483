// Settings, read once from the environment and validated, so a bad value
// stops the start with a message naming the variable. .env.example documents
// each of them; keep the two in step.

import { z } from "zod";
import { ConfigError } from "./errors.ts";

const optionalText = z
  .string()
  .trim()
  .transform((v) => v || undefined)
  .optional();

/** Whole numbers in decimal digits only: z.coerce would read `0x10` as 16 and `1e3` as 1000. */
const decimal = z.preprocess(
  (v) => (typeof v === "string" && /^\s*\d+\s*$/.test(v) ? Number(v) : v),
  z.number({ error: "must be a whole number written in decimal digits (0-9)" }).int(),
);
const int = (def: number, min = 0) => decimal.pipe(z.number().min(min)).default(def);
/** A share from 0 to 1 in plain decimal notation (0.3, .3, 1): not `1e-1` nor `0x1`, as for whole numbers. */
const fraction = (def: number) =>
  z
    .preprocess(
      (v) => (typeof v === "string" && /^\s*(\d+(\.\d+)?|\.\d+)\s*$/.test(v) ? Number(v) : v),
      z.number({ error: "must be a number from 0 to 1 written in decimal digits (for example 0.3)" }),
    )
    .pipe(z.number().min(0).max(1))
    .default(def);

const list = z
  .string()
  .optional()
  .transform((v) =>
    (v ?? "")
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean),
  );

export const configSchema = z.object({
  // The messaging API. Unset URL: the embedded sandbox is started in-process.
  MESSAGING_API_URL: optionalText.pipe(z.url().optional()),
  MESSAGING_API_KEY: optionalText,
  MESSAGING_CHANNEL_ID: z.preprocess(
    (v) => (v === "" ? undefined : v),
    decimal.pipe(z.number().positive()).optional(),
  ),
  // Names of the channels, as people know them: `1=Main line,2=Support` (the API cannot list them).
  MESSAGING_CHANNEL_NAMES: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const names = new Map<number, string>();
      for (const part of (v ?? "").split(",")) {
        if (!part.trim()) continue;
        const m = /^\s*(\d+)\s*=\s*(.+?)\s*$/.exec(part);
        if (!m) {
          ctx.addIssue({ code: "custom", message: `"${part.trim()}" is not <id>=<name>, as in 1=Main line` });
          return z.NEVER;
        }
        names.set(Number(m[1]), m[2]!);
      }
      return names;
    }),
  API_TIMEOUT_MS: int(15_000, 100),
  API_DEADLINE_MS: int(20_000, 100),
  API_READ_LIMIT: int(300, 1),
  API_WRITE_LIMIT: int(60, 1),
  BACKGROUND_READ_SHARE: fraction(0.3),

  // Storage.
  DATABASE_URL: optionalText,
  DATA_DIR: z.string().default("./data"),

  // The sandbox API (embedded, or `npm run sandbox`).
  SANDBOX_PORT: int(4010),
  SANDBOX_HOST: z.string().default("127.0.0.1"),
  SANDBOX_API_KEY: z.string().default("sb_test_rw_5f2c8e1a9d"),
  SANDBOX_READ_KEY: z.string().default("sb_test_ro_7b3d0c4e6f"),
  SANDBOX_READ_LIMIT: int(300, 1),
  SANDBOX_WRITE_LIMIT: int(60, 1),
  SANDBOX_TEMPLATE_APPROVAL_MS: int(30_000),
  SANDBOX_CAMPAIGN_TICK_MS: int(1_000, 10),

  // Slack. No bot token: the shell runs instead of the Bolt app.
  SLACK_BOT_TOKEN: optionalText,
  SLACK_SIGNING_SECRET: optionalText,
  SLACK_APP_TOKEN: optionalText,
  SLACK_API_URL: optionalText.pipe(z.url().optional()),
  PORT: int(3000),
  SHUTDOWN_GRACE_MS: int(10_000),
  SWITCHBOARD_WRITERS: list,
  SWITCHBOARD_BROADCASTERS: list,
  AUDIT_CHANNEL: optionalText,
  // Workflow Builder steps: off, writers (SWITCHBOARD_WRITERS apply to the step's actor) or all.
  WORKFLOW_STEPS: z
    .enum(["off", "writers", "all"], { error: "must be off, writers or all" })
    .default("writers"),

  // Imports and reports.
  IMPORT_MAX_BYTES: int(100 * 1024 * 1024, 1),
  // Unset: sized for the file (15 s + 1 s per 1,000 rows); at most 10 minutes either way.
  IMPORT_TIMEOUT_MS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    decimal.pipe(z.number().min(1000).max(600_000)).optional(),
  ),
  DEFAULT_COUNTRY: z
    .string()
    .regex(/^[A-Z]{2}$/)
    .default("US"),
  REPORT_FAILURE_ALERT: fraction(0.05),

  // The inbox (docs/inbox.md).
  INBOX_POLL_SECONDS: int(10, 1),
  INBOX_LOOKBACK_HOURS: int(24, 1),

  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid settings:\n${lines.join("\n")}\nSee .env.example for every setting.`);
  }
  return parsed.data;
}
