// Settings, read once from the environment and validated, so a bad value
// stops the start with a message naming the variable. .env.example documents
// each of them; keep the two in step.

import { z } from "zod";
import { ConfigError, isSwitchboardError } from "./errors.ts";
import { decodeSecretKey } from "./secrets.ts";

/** The shape of business hours (the inbox reads them fully: src/domain/business-hours.ts). */
const BUSINESS_HOURS_SHAPE =
  /^\s*[a-z,-]+\s+\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}\s*(;\s*[a-z,-]+\s+\d{1,2}:\d{2}\s*-\s*\d{1,2}:\d{2}\s*)*;?\s*$/i;
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

/** Whether Intl knows the zone (as src/reports/schedule.ts checks a schedule's tz=). */
function validZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return /^[A-Za-z0-9_+\-/]+$/.test(tz);
  } catch {
    return false;
  }
}

/** A secret key's text: 32 random bytes in base64 or hex (src/platform/secrets.ts); the message never holds the value. */
function secretKey(name: string) {
  return (v: string | undefined, ctx: z.RefinementCtx) => {
    if (v === undefined) return;
    try {
      decodeSecretKey(name, v);
    } catch (err) {
      if (!isSwitchboardError(err)) throw err;
      ctx.addIssue({ code: "custom", message: err.message.slice(name.length + 2) });
    }
  };
}

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
  // Several replicas on PostgreSQL: seconds between two compares of the workspaces kept with their versions.
  REPLICA_CHECK_SECONDS: int(30, 1),

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
  // Many-workspace mode (many workspaces, "Add to Slack"): docs/workspaces.md. Checked together in manyWorkspaceRules.
  SLACK_CLIENT_ID: optionalText.pipe(
    z
      .string()
      .regex(/^\d+\.\d+$/, "must be the app's Client ID (digits.digits, Basic Information page)")
      .optional(),
  ),
  SLACK_CLIENT_SECRET: optionalText,
  // No longer used (the install's state is kept in the database, good once): accepted so older settings still start.
  SLACK_STATE_SECRET: optionalText,
  SWITCHBOARD_SECRET_KEY: optionalText.superRefine(secretKey("SWITCHBOARD_SECRET_KEY")),
  SWITCHBOARD_SECRET_KEY_PREVIOUS: optionalText.superRefine(secretKey("SWITCHBOARD_SECRET_KEY_PREVIOUS")),
  UNINSTALL_RETENTION_DAYS: int(30),
  PORT: int(3000),
  // GET /metrics asks for it as a bearer token when set (docs/operations.md).
  METRICS_TOKEN: optionalText,
  SHUTDOWN_GRACE_MS: int(10_000),
  SWITCHBOARD_WRITERS: list,
  SWITCHBOARD_BROADCASTERS: list,
  AUDIT_CHANNEL: optionalText,
  // Workflow Builder steps: off, writers (SWITCHBOARD_WRITERS apply to the step's actor) or all.
  WORKFLOW_STEPS: z
    .enum(["off", "writers", "all"], { error: "must be off, writers or all" })
    .default("writers"),
  // Approval before a send (docs/campaigns.md): who approves (U…, S…), from how many people reached.
  SWITCHBOARD_APPROVERS: list,
  APPROVE_FROM: z.preprocess(
    (v) => (v === "" ? undefined : v),
    decimal.pipe(z.number().positive()).optional(),
  ),

  // Imports and reports.
  IMPORT_MAX_BYTES: int(100 * 1024 * 1024, 1),
  // Unset: sized for the file (15 s + 1 s per 1,000 rows); at most 10 minutes either way.
  IMPORT_TIMEOUT_MS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    decimal.pipe(z.number().min(1000).max(600_000)).optional(),
  ),
  // Unset: no country is guessed; a workspace sets one in its settings (country).
  DEFAULT_COUNTRY: optionalText.pipe(
    z
      .string()
      .regex(/^[A-Z]{2}$/, "must be a country code of two capital letters, such as ES or US")
      .optional(),
  ),
  REPORT_FAILURE_ALERT: fraction(0.05),
  // The workspace's time zone (Europe/Paris): reports, quiet hours. Unset: each person's own Slack zone, else UTC.
  REPORTS_TIME_ZONE: optionalText.refine((v) => v === undefined || validZone(v), {
    message: "must be an IANA time zone such as Europe/Paris or America/New_York",
  }),
  // Business hours reply targets count in (`mon-fri 09:00-18:00`), in REPORTS_TIME_ZONE. Unset: around the clock.
  BUSINESS_HOURS: optionalText.refine((v) => v === undefined || BUSINESS_HOURS_SHAPE.test(v), {
    message:
      "must be days and hours, for example mon-fri 09:00-18:00 (several: mon-fri 09:00-18:00; sat 10:00-14:00)",
  }),

  // The inbox (docs/inbox.md).
  INBOX_POLL_SECONDS: int(10, 1),
  INBOX_LOOKBACK_HOURS: int(24, 1),
  // Files both ways (docs/inbox.md, "Pictures and files"): the address customers fetch files sent from Slack at.
  PUBLIC_URL: optionalText.pipe(z.url().optional()),
  MEDIA_TTL_HOURS: int(72, 1),
  MEDIA_MAX_IMAGE_MB: int(5, 1),
  MEDIA_MAX_DOCUMENT_MB: int(100, 1),

  // Automations (docs/automations.md): 1 lets hooks reach private, loopback and link-local addresses,
  // and plain http:// (tests, on-premise receivers). Unset or 0: https:// to public addresses only.
  AUTOMATIONS_ALLOW_PRIVATE: z
    .enum(["", "0", "1"], { error: "must be 1 (allowed) or 0 (not allowed)" })
    .optional()
    .transform((v) => v === "1"),

  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),

  // Quiet hours in the workspace's time zone (21:00-08:00; REPORTS_TIME_ZONE must be set): no campaign starts in them.
  QUIET_HOURS: optionalText.refine(
    (v) => v === undefined || /^([01]?\d|2[0-3]):[0-5]\d\s*-\s*([01]?\d|2[0-3]):[0-5]\d$/.test(v),
    { message: "must be two times of day, from and until, like 21:00-08:00" },
  ),
});

export type Config = z.infer<typeof configSchema>;

/**
 * How the Slack app runs: one workspace from SLACK_BOT_TOKEN, many workspaces
 * installed with "Add to Slack" (SLACK_CLIENT_ID…), or no Slack (the shell).
 */
export type SlackMode = "single" | "many" | "none";

export function slackMode(
  c: Pick<Config, "SLACK_BOT_TOKEN" | "SLACK_CLIENT_ID" | "SLACK_CLIENT_SECRET">,
): SlackMode {
  if (c.SLACK_CLIENT_ID || c.SLACK_CLIENT_SECRET) return "many";
  return c.SLACK_BOT_TOKEN ? "single" : "none";
}

/** Many-workspace mode is HTTP only (Slack's Marketplace), takes every OAuth setting and no single bot token. */
function manyWorkspaceRules(
  c: Pick<
    Config,
    | "SLACK_BOT_TOKEN"
    | "SLACK_APP_TOKEN"
    | "SLACK_CLIENT_ID"
    | "SLACK_CLIENT_SECRET"
    | "SLACK_SIGNING_SECRET"
    | "SWITCHBOARD_SECRET_KEY"
    | "SWITCHBOARD_SECRET_KEY_PREVIOUS"
  >,
  ctx: z.RefinementCtx,
): void {
  const issue = (name: string, message: string) => ctx.addIssue({ code: "custom", path: [name], message });
  if (c.SWITCHBOARD_SECRET_KEY_PREVIOUS && !c.SWITCHBOARD_SECRET_KEY)
    issue(
      "SWITCHBOARD_SECRET_KEY_PREVIOUS",
      "is set without SWITCHBOARD_SECRET_KEY, the key that replaces it",
    );
  if (slackMode(c) !== "many") return;
  const required = [
    "SLACK_CLIENT_ID",
    "SLACK_CLIENT_SECRET",
    "SLACK_SIGNING_SECRET",
    "SWITCHBOARD_SECRET_KEY",
  ] as const;
  for (const name of required)
    if (!c[name])
      issue(name, "is required when SLACK_CLIENT_ID or SLACK_CLIENT_SECRET is set (many workspaces)");
  if (c.SLACK_BOT_TOKEN)
    issue(
      "SLACK_BOT_TOKEN",
      "must be unset with SLACK_CLIENT_ID (many workspaces: each workspace's token comes from its installation)",
    );
  if (c.SLACK_APP_TOKEN)
    issue(
      "SLACK_APP_TOKEN",
      "must be unset with SLACK_CLIENT_ID (many workspaces run over HTTP only, not Socket Mode)",
    );
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = configSchema.superRefine(manyWorkspaceRules).safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`Invalid settings:\n${lines.join("\n")}\nSee .env.example for every setting.`);
  }
  return parsed.data;
}
