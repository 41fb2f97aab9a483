// What the commands and forms of a workspace's connection and settings see
// (issue 19 §2, §3): an interface the composition root implements
// (src/workspaces/admin.ts), so neither the core nor Slack knows how a key is
// checked or where settings are kept. The settings' rules (zod) are here:
// the form shows a refusal at its field, the admin refuses the same values.

import { isSupportedCountry } from "libphonenumber-js";
import { z } from "zod";
import type { Actor } from "../domain/actor.ts";
import { awayTooLong } from "../domain/away.ts";
import { parseBusinessHours } from "../domain/business-hours.ts";
import { parseQuietHours } from "../domain/start-time.ts";
import { canonicalZone } from "../domain/time-zones.ts";
import { isValidTimeZone } from "../reports/schedule.ts";

/** A workspace's messaging API account, never its key. */
export interface ConnectionSummary {
  organization: string;
  /** The key's scopes when /me gives them. */
  scopes?: string[];
  /** Known only when /me gives the scopes: true when they hold no `write`. */
  readOnly?: boolean;
  /** Slack user id, or `shell`. */
  connectedBy: string;
  connectedAt: Date;
}

/** How a connection attempt ended, with its answer in people's words (Slack mrkdwn). */
export type ConnectOutcome =
  | {
      ok: true;
      connection: ConnectionSummary;
      /** Ends with the line asking to name `unnamedChannels` when there are some (nameChannelsLine). */
      message: string;
      /** The channels the account's templates use that this workspace has not named: shown as "Channel 4" until named. */
      unnamedChannels?: number[];
    }
  | {
      ok: false;
      /** refused: the API said no to the key; environment: single mode, the key is the environment's. */
      reason: "refused" | "unreachable" | "rate_limited" | "environment" | "no_demo" | "invalid";
      message: string;
    };

/** `reason`: environment (single mode), not_connected (nothing to forget): answers, not failures. */
export type DisconnectOutcome = { ok: boolean; reason?: "environment" | "not_connected"; message: string };

/** The settings a workspace changes from Slack (issue 19 §3). */
export interface SettingValues {
  /** Who may make changes: Slack user ids (U…/W…) and user group ids (S…). Empty: everyone. */
  writers: string[];
  /** Who may send and cancel campaigns. Empty: the same as writers. */
  broadcasters: string[];
  /** Channel id (C…/G…) where every write is also posted. */
  auditChannel?: string;
  /** The messaging channel (integration) id commands use when none is said. */
  messagingChannel?: number;
  /**
   * The workspace's time zone (the key keeps its first name): report schedules default to it, quiet
   * hours and the desk's business hours are read in it; unset: reports use each person's own Slack zone.
   */
  reportsTimeZone?: string;
  /** Workflow Builder steps. */
  workflowSteps: "off" | "writers" | "all";
  /** Quiet hours, `21:00-08:00` in the workspace's time zone: a campaign asked to start in them starts when they end. */
  quietHours?: string;
  /** Business hours (`mon-fri 09:00-18:00`, canonical): reply targets count in them, in the workspace's zone; unset: around the clock. */
  businessHours?: string;
  /** Who approves a campaign before it is sent: people and user groups. Empty: no approval (issue 28 §3). */
  approvers: string[];
  /** Approval is asked from this many people reached; unset: for every campaign. */
  approveFrom?: number;
  /** The country of phone numbers written without a + code (ISO 3166 alpha-2); unset: none is guessed. */
  country?: string;
  /** The away message (issue 40 §1): sent to a customer who writes outside business hours, once per closed period; unset: none. */
  away?: string;
  /** Away at once whatever the hours say, since this instant (ISO 8601; `away-now=on`); unset: the hours decide. */
  awayNow?: string;
}
export type SettingName = keyof SettingValues;

export const SETTING_NAMES: readonly SettingName[] = [
  "writers",
  "broadcasters",
  "auditChannel",
  "messagingChannel",
  "reportsTimeZone",
  "workflowSteps",
  "quietHours",
  "businessHours",
  "approvers",
  "approveFrom",
  "country",
  "away",
  "awayNow",
];

/** Each setting: its words, the environment variable that gives it in single mode, the shell's option. */
/** `env`: the environment variable that gives it in single mode; none for those only set in Slack or the shell. */
export const SETTINGS: Record<SettingName, { label: string; env?: string; option: string }> = {
  writers: { label: "Who may make changes", env: "SWITCHBOARD_WRITERS", option: "writers" },
  broadcasters: { label: "Who may send campaigns", env: "SWITCHBOARD_BROADCASTERS", option: "broadcasters" },
  auditChannel: { label: "Audit channel", env: "AUDIT_CHANNEL", option: "audit" },
  messagingChannel: { label: "Default messaging channel", env: "MESSAGING_CHANNEL_ID", option: "channel" },
  reportsTimeZone: { label: "Workspace's time zone", env: "REPORTS_TIME_ZONE", option: "tz" },
  workflowSteps: { label: "Workflow steps", env: "WORKFLOW_STEPS", option: "steps" },
  quietHours: { label: "Quiet hours", env: "QUIET_HOURS", option: "quiet" },
  businessHours: { label: "Business hours", env: "BUSINESS_HOURS", option: "hours" },
  approvers: { label: "Who approves campaigns", env: "SWITCHBOARD_APPROVERS", option: "approvers" },
  approveFrom: { label: "Approval from", env: "APPROVE_FROM", option: "approve-from" },
  country: { label: "Country of phone numbers without a code", env: "DEFAULT_COUNTRY", option: "country" },
  away: { label: "Away message", option: "away" },
  awayNow: { label: "Away now", option: "away-now" },
};

export const DEFAULT_SETTINGS: SettingValues = {
  writers: [],
  broadcasters: [],
  workflowSteps: "writers",
  approvers: [],
};

/** Where a value comes from: the environment (single mode), a change in Slack, or the default. */
export type SettingOrigin =
  | { kind: "environment"; name: string }
  /** `overrides`: the environment variable whose value it replaces (single mode). */
  | { kind: "slack"; by: string; at: Date; overrides?: string }
  | { kind: "default" };

export type EffectiveSettings = {
  [K in SettingName]: { value: SettingValues[K]; origin: SettingOrigin };
};

export type SaveOutcome =
  | { ok: true; settings: EffectiveSettings; changed: SettingName[]; message: string }
  | { ok: false; problems: Array<{ field: SettingName; message: string }>; message: string };

/**
 * An away message needs a time it applies: business hours, or away now. Set
 * (or kept) without either after a change, it is refused (undefined: it may be saved).
 */
export function awayWithoutHours(
  away: string | undefined,
  hours: string | undefined,
  awayNow: boolean,
): string | undefined {
  if (!away || hours || awayNow) return undefined;
  return "Away message: it is sent to customers who write outside business hours, and none are set: set the business hours too (or with it), or turn Away now on. Nothing was saved.";
}

/** Business hours as typed, kept in their canonical words; a refusal says what is wrong. */
export const businessHoursSchema = z.string().transform((v, ctx) => {
  const p = parseBusinessHours(v);
  if (p.ok) return p.text;
  ctx.addIssue({ code: "custom", message: p.message.replace(/`/g, "") });
  return z.NEVER;
});

/**
 * Business hours are counted in the workspace's zone: with hours and no zone
 * after a change, the change is refused (undefined: it may be saved).
 */
export function hoursWithoutZone(hours: string | undefined, tz: string | undefined): string | undefined {
  if (!hours || tz) return undefined;
  return "Business hours are counted in the workspace's time zone, which is not set: choose the time zone first (or with them). Nothing was saved.";
}

const PERSON_OR_GROUP = /^[UWS][A-Z0-9]{2,}$/;
const people = z
  .array(z.string().trim().regex(PERSON_OR_GROUP, "must be people and user groups of Slack (U…, W…, S… ids)"))
  .max(100, "at most 100 people and groups")
  .transform((ids) => [...new Set(ids)]);

/** The rules of each setting. `null` clears an optional one (back to the default or the environment's). */
export const settingsSchema = z
  .object({
    writers: people.nullable(),
    broadcasters: people.nullable(),
    auditChannel: z
      .string()
      .trim()
      .regex(/^[CG][A-Z0-9]{2,}$/, "must be a Slack channel (C… id)")
      .nullable(),
    messagingChannel: z
      .number({ error: "must be a channel number, like 1" })
      .int("must be a whole number, like 1")
      .positive("must be a channel number, like 1")
      .nullable(),
    reportsTimeZone: z
      .string()
      .trim()
      .refine(isValidTimeZone, "must be a time zone such as Europe/Paris or America/New_York")
      // One name per zone (`utc` is UTC, America/Buenos_Aires is America/Argentina/Buenos_Aires).
      .transform((v) => canonicalZone(v) ?? v)
      .nullable(),
    workflowSteps: z.enum(["off", "writers", "all"], { error: "must be off, writers or all" }),
    quietHours: z
      .string()
      .trim()
      .refine(
        (v) => !("problem" in parseQuietHours(v)),
        "must be two times of day, from and until, like 21:00-08:00",
      )
      .nullable(),
    businessHours: businessHoursSchema.nullable(),
    approvers: people.nullable(),
    approveFrom: z
      .number({ error: "must be a number of people, like 500" })
      .int("must be a whole number of people, like 500")
      .positive("must be a number of people, like 500")
      .nullable(),
    country: z
      .string()
      .trim()
      .transform((v) => v.toUpperCase())
      .refine(
        (v) => /^[A-Z]{2}$/.test(v) && isSupportedCountry(v),
        "must be a country's two-letter code, such as ES or US",
      )
      .nullable(),
    away: z
      .string()
      .trim()
      .min(1, "write the message, or none for no away message")
      .superRefine((v, ctx) => {
        const long = awayTooLong(v);
        if (long) ctx.addIssue({ code: "custom", message: long });
      })
      .nullable(),
    /** On (true) or off; kept as the instant it was turned on (SettingValues.awayNow). */
    awayNow: z.boolean({ error: "must be on or off" }).nullable(),
  })
  .partial()
  .strict();
export type SettingsInput = z.input<typeof settingsSchema>;

/** The plain values of effective settings (what the runtime is built from). */
export function valuesOf(s: EffectiveSettings): SettingValues {
  const out = {} as Record<SettingName, unknown>;
  for (const name of SETTING_NAMES) out[name] = s[name].value;
  return out as unknown as SettingValues;
}

export interface WorkspaceAdmin {
  /** single: the API key is the environment's (MESSAGING_API_KEY); many: each workspace connects its own. */
  readonly mode: "single" | "many";
  /** Whether "Use a demo account" is offered (the embedded sandbox). */
  readonly demoAvailable: boolean;
  /** A workspace admin or owner, or the person who installed the app (the shell: always). */
  mayAdminister(actor: Actor): Promise<boolean>;
  /** Who to name when someone else asks: Slack user ids (the installer, when known). */
  administrators(): Promise<string[]>;
  connection(): Promise<ConnectionSummary | undefined>;
  /** Checks the key with GET /me; keeps it (sealed) only when the API accepts it. */
  connect(apiKey: string, by: Actor): Promise<ConnectOutcome>;
  /** A demo organization of the embedded sandbox, when `demoAvailable`. */
  connectDemo(by: Actor): Promise<ConnectOutcome>;
  disconnect(by: Actor): Promise<DisconnectOutcome>;
  settings(): Promise<EffectiveSettings>;
  /** Every value checked first: one bad value saves nothing. */
  saveSettings(values: SettingsInput, by: Actor): Promise<SaveOutcome>;
}

/** `<@U…>`, or the shell. */
export const personOf = (id: string): string => (id === "shell" ? "the shell operator" : `<@${id}>`);

/** Who may connect, disconnect and change settings, in words: the sentence of a refusal. */
export async function whoMayAdminister(admin: WorkspaceAdmin): Promise<string> {
  const named = (await admin.administrators().catch(() => [])).filter((id) => id !== "shell");
  const installer = named.length ? ` or ${named.map(personOf).join(", ")}, who installed Switchboard,` : "";
  return `a workspace admin or owner${installer}`;
}

/** The refusal a non-admin gets, naming who can. */
export async function notAdministrator(admin: WorkspaceAdmin, what: string): Promise<string> {
  return `Only ${await whoMayAdminister(admin)} may ${what}. Ask one of them.`;
}
