// One workspace's connection to its messaging API account and its settings
// (issue 19 §2, §3), behind the WorkspaceAdmin interface the commands and the
// forms see (src/commands/workspace-admin.ts). A key is checked with GET /me
// through a short-lived MessagingClient (the client stays the only HTTP to
// the API) and kept, sealed, only when the API accepts it. Settings changed
// in Slack are kept per workspace (src/store/workspace-settings.ts) and win
// over the environment's, which give the first values in single mode.
// The composition root rebuilds the workspace's runtime on `onChange`.
import { apiKeyProblem, MessagingClient } from "../api/client.ts";
import { isApiError, NetworkError } from "../api/errors.ts";
import type { Me } from "../api/types.ts";
import { nameChannelsLine, templateChannels } from "../commands/lookups.ts";
import {
  awayWithoutHours,
  type ConnectionSummary,
  type ConnectOutcome,
  DEFAULT_SETTINGS,
  type DisconnectOutcome,
  type EffectiveSettings,
  hoursWithoutZone,
  type SaveOutcome,
  SETTING_NAMES,
  SETTINGS,
  type SettingName,
  type SettingValues,
  settingsSchema,
  type WorkspaceAdmin,
} from "../commands/workspace-admin.ts";
import type { Actor } from "../domain/actor.ts";
import type { Logger } from "../platform/log.ts";
import { type AuditEntry, AuditLog } from "../store/audit.ts";
import { ChannelNames } from "../store/channels.ts";
import type { Db } from "../store/db.ts";
import type { Connection, Installations } from "../store/installations.ts";
import { WorkspaceSettings } from "../store/workspace-settings.ts";

export { envSettings } from "./env-settings.ts";

/** A Slack team id (T…); the single workspace of the environment is one too. */
export type WorkspaceId = string;

export interface WorkspaceAdminOptions {
  db: Db;
  /** Where the API key is kept, sealed (src/store/installations.ts). */
  installations: Installations;
  /** The workspace's team id. */
  workspace: WorkspaceId;
  enterpriseId?: string;
  /** The messaging API's base URL (the embedded sandbox's when MESSAGING_API_URL is unset). */
  apiUrl: string;
  /** API_TIMEOUT_MS: the key check's one attempt. */
  timeoutMs: number;
  /** The embedded sandbox: a demo organization of this workspace's own. Unset: no demo offered. */
  demo?: () => Promise<{ apiKey: string; organizationName: string }>;
  /** slackMode(): single (the key is MESSAGING_API_KEY) or many (one deployment, many workspaces). */
  mode: "single" | "many";
  /** The environment's settings (envSettings(config)); used in single mode only. */
  env?: Partial<SettingValues>;
  /** Workspace admins and owners, and the installer (the composition root asks Slack). Default: the installer, the shell. */
  mayAdminister?: (actor: Actor) => Promise<boolean>;
  /** Who installed the app, named to those who may not. */
  installerUserId?: string;
  /** After a connect, a disconnect or a settings change: the workspace's runtime is rebuilt. */
  onChange?: () => void | Promise<void>;
  /** Each change's audit entry, once recorded: posted to the workspace's audit channel (its runtime's listeners). */
  onAudit?: (entry: AuditEntry) => void | Promise<void>;
  logger?: Logger;
  now?: () => Date;
  /** The shell alone (no Slack): approvers are refused, since approval happens in Slack. */
  withoutSlack?: boolean;
}

const ENV_KEY_MESSAGE =
  "This Switchboard uses the API key set where it runs: whoever runs it changes the key there and restarts it. Nothing was changed.";

/** The organization and the key's scopes, as /me gives them (the spec promises the organization, the plan and the key). */
function readMe(me: Me): { organization: string; scopes?: string[] } {
  const org = me.organization;
  const name = typeof org?.name === "string" && org.name.trim() ? org.name.trim() : undefined;
  const scopes = Array.isArray(me.apiKey?.scopes)
    ? me.apiKey.scopes.filter((s): s is string => typeof s === "string")
    : undefined;
  return {
    organization: name ?? (org?.id !== undefined ? `organization ${org.id}` : "the key's organization"),
    ...(scopes ? { scopes } : {}),
  };
}

const summaryOf = (c: Connection): ConnectionSummary => ({
  organization: c.organizationName,
  ...(c.keyScopes ? { scopes: c.keyScopes, readOnly: !c.keyScopes.includes("write") } : {}),
  connectedBy: c.connectedBy,
  connectedAt: c.connectedAt,
});

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/** A value the environment really gives: unset and empty lists are the default's. */
const given = (v: unknown) => v !== undefined && !(Array.isArray(v) && v.length === 0);

export function createWorkspaceAdmin(opts: WorkspaceAdminOptions): WorkspaceAdmin {
  const store = new WorkspaceSettings(opts.db);
  const now = opts.now ?? (() => new Date());
  const log = opts.logger;
  const team = opts.workspace;
  const by = (actor: Actor) => (actor.via === "shell" ? "shell" : actor.userId);

  /** A change kept in the workspace's audit trail (the Home tab's recent changes), as API writes are. */
  const audited = async (
    actor: Actor,
    command: string,
    operation: string,
    answer: Record<string, unknown>,
  ) => {
    const entry: AuditEntry = {
      at: now(),
      actor: by(actor),
      ...(actor.userName ? { actorName: actor.userName } : {}),
      via: actor.via,
      ...(actor.channelId ? { channel: actor.channelId } : {}),
      command,
      operation,
      ok: true,
      answer,
    };
    // stores: the admin is made before the workspace's runtime (it rebuilds it), so it cannot take the runtime's stores yet
    await new AuditLog(opts.db, team)
      .record(entry)
      .catch((err) => log?.error({ err: String(err), operation }, "could not record an audit row"));
    try {
      await opts.onAudit?.(entry);
    } catch (err) {
      log?.warn({ err: String(err), operation }, "could not tell the audit channel of a change");
    }
  };

  const changed = async () => {
    try {
      await opts.onChange?.();
    } catch (err) {
      log?.error({ err: String(err), workspace: team }, "could not rebuild the workspace after a change");
    }
  };

  /** A client of `apiKey`'s own for one check (no retries, no waits), closed after `work`. */
  const withKeyClient = async <T>(
    apiKey: string,
    work: (client: MessagingClient) => Promise<T>,
  ): Promise<T> => {
    const client = new MessagingClient({
      baseUrl: opts.apiUrl,
      apiKey,
      timeoutMs: opts.timeoutMs,
      deadlineMs: opts.timeoutMs,
      maxRetries: 0,
      maxRateLimitWaitMs: 0,
    });
    try {
      return await work(client);
    } finally {
      await client.close().catch(() => {});
    }
  };

  /** GET /me with `apiKey`, through a client of its own, closed after. */
  const checkKey = async (
    apiKey: string,
  ): Promise<
    { ok: true; organization: string; scopes?: string[] } | Extract<ConnectOutcome, { ok: false }>
  > =>
    withKeyClient(apiKey, async (client) => {
      try {
        return { ok: true as const, ...readMe(await client.getMe()) };
      } catch (err) {
        if (!isApiError(err)) throw err;
        log?.info({ kind: err.kind, workspace: team }, "an API key was refused or could not be checked");
        switch (err.kind) {
          case "auth":
            return {
              ok: false,
              reason: "refused",
              message:
                "The messaging API refused this key: it is not a key of any organization (check it was copied whole, without spaces). Nothing was kept.",
            };
          case "scope":
            return {
              ok: false,
              reason: "refused",
              message:
                "The messaging API knows this key, but it may not even read (it has neither the read nor the write scope). Nothing was kept: ask for a key that may at least read.",
            };
          case "rate_limited":
            return {
              ok: false,
              reason: "rate_limited",
              message:
                "The messaging API says this key made too many requests this minute. Nothing was kept: try again in a minute.",
            };
          default:
            return {
              ok: false,
              reason: "unreachable",
              message: `The messaging API could not be reached to check the key (${err instanceof NetworkError ? (err.timedOut ? "no answer in time" : "no connection") : "it answered with an error"}). Nothing was kept: try again in a moment.`,
            };
        }
      }
    });

  /**
   * The channels the account's templates use that this workspace has not
   * named yet (after the runtime's rebuild: the embedded sandbox's are named
   * then). A nicety: an API that does not answer leaves none, never a failed connect.
   */
  const unnamedChannels = (apiKey: string): Promise<number[]> =>
    withKeyClient(apiKey, async (client) => {
      try {
        const [used, named] = await Promise.all([
          templateChannels(client),
          // stores: the admin is made before the workspace's runtime (it rebuilds it), so it cannot take the runtime's stores yet
          new ChannelNames(opts.db, team).all(),
        ]);
        return used.filter((id) => !named.has(id));
      } catch (err) {
        log?.info({ err: String(err), workspace: team }, "could not read the channels the templates use");
        return [];
      }
    });

  const connect = async (apiKey: string, actor: Actor): Promise<ConnectOutcome> => {
    if (opts.mode === "single") return { ok: false, reason: "environment", message: ENV_KEY_MESSAGE };
    const key = apiKey.trim();
    if (!key || /\s/.test(key))
      return {
        ok: false,
        reason: "invalid",
        message: key ? "An API key has no spaces: paste the key alone." : "Type or paste the API key.",
      };
    // Checked before any request, and never repeated back.
    const problem = apiKeyProblem(key);
    if (problem) return { ok: false, reason: "invalid", message: `${problem} Nothing was kept.` };
    const checked = await checkKey(key);
    if (!checked.ok) return checked;
    const stored = await opts.installations.connect({
      teamId: team,
      ...(opts.enterpriseId ? { enterpriseId: opts.enterpriseId } : {}),
      apiKey: key,
      organizationName: checked.organization,
      ...(checked.scopes ? { keyScopes: checked.scopes } : {}),
      connectedBy: by(actor),
    });
    await audited(actor, "connect", "workspace.connect", { organization: checked.organization });
    await changed();
    const connection = summaryOf(stored);
    // What the key may do, in words (not "scopes: read, write"): a read-only key says so below.
    const connected = connection.readOnly
      ? `Connected to *${checked.organization}* with a key that may only read: lists and reports work; anything that changes data (sending, campaigns, edits) will be refused until a key that may write is connected.`
      : `Connected to *${checked.organization}*. Every \`/sb\` command of this workspace now uses this account.`;
    const unnamed = await unnamedChannels(key);
    const message = unnamed.length ? `${connected}\n${nameChannelsLine(unnamed)}` : connected;
    return { ok: true, connection, message, ...(unnamed.length ? { unnamedChannels: unnamed } : {}) };
  };

  const effective = async (): Promise<EffectiveSettings> => {
    const stored = await store.all(team);
    const out = {} as Record<
      SettingName,
      { value: unknown; origin: EffectiveSettings[SettingName]["origin"] }
    >;
    for (const name of SETTING_NAMES) {
      const row = stored.get(name);
      const env = opts.mode === "single" ? opts.env?.[name] : undefined;
      if (row)
        out[name] = {
          value: row.value,
          origin: {
            kind: "slack",
            by: row.changedBy,
            at: row.changedAt,
            ...(given(env) ? { overrides: SETTINGS[name].env ?? name } : {}),
          },
        };
      else if (given(env))
        out[name] = { value: env, origin: { kind: "environment", name: SETTINGS[name].env ?? name } };
      else out[name] = { value: DEFAULT_SETTINGS[name], origin: { kind: "default" } };
    }
    return out as unknown as EffectiveSettings;
  };

  return {
    mode: opts.mode,
    demoAvailable: opts.mode === "many" && Boolean(opts.demo),

    async mayAdminister(actor) {
      if (opts.mayAdminister) return opts.mayAdminister(actor);
      return actor.via === "shell" || (!!opts.installerUserId && actor.userId === opts.installerUserId);
    },

    async administrators() {
      return opts.installerUserId ? [opts.installerUserId] : [];
    },

    async connection() {
      const c = await opts.installations.connection(team);
      return c && summaryOf(c);
    },

    connect,

    async connectDemo(actor) {
      if (opts.mode === "single") return { ok: false, reason: "environment", message: ENV_KEY_MESSAGE };
      if (!opts.demo)
        return {
          ok: false,
          reason: "no_demo",
          message:
            "No demo account here: this Switchboard uses a real messaging API. Connect with an API key.",
        };
      const demo = await opts.demo();
      return connect(demo.apiKey, actor);
    },

    async disconnect(actor): Promise<DisconnectOutcome> {
      if (opts.mode === "single") return { ok: false, reason: "environment", message: ENV_KEY_MESSAGE };
      const before = await opts.installations.connection(team);
      const gone = await opts.installations.disconnect(team);
      if (!gone)
        return {
          ok: false,
          reason: "not_connected",
          message: "This workspace is not connected to a messaging account: there is no key to forget.",
        };
      await audited(actor, "disconnect", "workspace.disconnect", {
        organization: before?.organizationName ?? null,
      });
      await changed();
      return {
        ok: true,
        message: `Disconnected from *${before?.organizationName ?? "the messaging account"}*: Switchboard forgot the API key. This workspace's report schedules and inbox channels are paused until an admin connects again with \`/sb connect\`.`,
      };
    },

    settings: effective,

    async saveSettings(values, actor): Promise<SaveOutcome> {
      const parsed = settingsSchema.safeParse(values);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => {
          const field = (SETTING_NAMES as readonly string[]).includes(String(i.path[0]))
            ? (i.path[0] as SettingName)
            : "writers";
          const known = (SETTING_NAMES as readonly string[]).includes(String(i.path[0]));
          return {
            field,
            message: known
              ? `${SETTINGS[field].label}: ${i.message}`
              : `${String(i.path[0] ?? "")} is not a setting (settings: ${SETTING_NAMES.map((n) => SETTINGS[n].option).join(", ")})`,
          };
        });
        return {
          ok: false,
          problems,
          message: `Nothing was saved:\n${problems.map((p) => `• ${p.message}`).join("\n")}`,
        };
      }
      if (opts.withoutSlack && parsed.data.approvers?.length) {
        const message = `${SETTINGS.approvers.label}: nobody could approve, since approval happens in Slack and this Switchboard runs without it (the shell alone). Nothing was saved.`;
        return { ok: false, problems: [{ field: "approvers", message }], message };
      }
      const current = await effective();
      // Quiet hours are read in the workspace's time zone: never one without the other.
      const zoneAfter =
        "reportsTimeZone" in parsed.data
          ? (parsed.data.reportsTimeZone ??
            (current.reportsTimeZone.origin.kind === "environment"
              ? current.reportsTimeZone.value
              : undefined))
          : current.reportsTimeZone.value;
      const quietAfter = "quietHours" in parsed.data ? parsed.data.quietHours : current.quietHours.value;
      if (quietAfter && !zoneAfter) {
        const message = `${SETTINGS.quietHours.label}: they are read in the workspace's time zone, which is not set: set the time zone too (for example Europe/Paris).`;
        return {
          ok: false,
          problems: [{ field: "quietHours", message }],
          message: `Nothing was saved:\n• ${message}`,
        };
      }
      // Business hours count in the workspace's zone: none after this change, the hours are refused.
      const after = <K extends "businessHours" | "reportsTimeZone">(k: K) =>
        k in parsed.data ? ((parsed.data[k] as SettingValues[K] | null) ?? opts.env?.[k]) : current[k].value;
      const noZone = hoursWithoutZone(after("businessHours"), after("reportsTimeZone"));
      if (noZone)
        return { ok: false, problems: [{ field: "businessHours", message: noZone }], message: noZone };
      // Away now is kept as when it was turned on (the closed period's start): on again keeps that time.
      const data: Record<string, unknown> = { ...parsed.data };
      if ("awayNow" in data)
        data.awayNow = data.awayNow ? (current.awayNow.value ?? now().toISOString()) : null;
      // An away message being set needs a time it applies: business hours, or away now.
      const noHours =
        parsed.data.away &&
        awayWithoutHours(
          parsed.data.away,
          after("businessHours"),
          "awayNow" in data ? Boolean(data.awayNow) : Boolean(current.awayNow.value),
        );
      if (noHours) return { ok: false, problems: [{ field: "away", message: noHours }], message: noHours };
      const changes: Record<string, unknown> = {};
      const names: SettingName[] = [];
      for (const name of SETTING_NAMES) {
        if (!(name in data)) continue;
        const next = data[name];
        if (next === null) {
          // Cleared: back to the environment's value or the default.
          if (current[name].origin.kind !== "slack") continue;
          changes[name] = undefined;
        } else {
          if (same(next, current[name].value)) continue;
          changes[name] = next;
        }
        names.push(name);
      }
      if (!names.length)
        return {
          ok: true,
          settings: current,
          changed: [],
          message: "Nothing changed: these are the settings in use.",
        };
      await store.save(team, changes, by(actor), now());
      await audited(actor, "settings set", "workspace.settings", {
        changed: names.map((n) => SETTINGS[n].label),
      });
      await changed();
      return {
        ok: true,
        settings: await effective(),
        changed: names,
        message: `Saved: ${names.map((n) => SETTINGS[n].label).join(", ")}.`,
      };
    },
  };
}
