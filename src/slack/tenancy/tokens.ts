// The one place a Slack call gets its bot token in many-workspace mode
// (docs/workspaces.md). With token rotation (`token_rotation_enabled: true`)
// a bot token lives 12 hours and its refresh token works once: the token is
// refreshed with oauth.v2.access before it expires, under the installation
// row's lock in the store, so two processes on one PostgreSQL never spend the
// same refresh token (the second waits, then finds the new token). Calls in
// one process share one refresh. A refresh that may have reached Slack is
// never repeated: its refresh token may be spent.
import { SwitchboardError } from "../../platform/errors.ts";
import type { BotTokens, InstallationKey, Installations } from "../../store/installations.ts";

/** No installation, or no bot token (revoked), for the workspace. */
export class NotInstalledError extends SwitchboardError {
  readonly code = "slack_not_installed";
}

/** Slack refused the refresh, or its answer was lost: the workspace may have to install the app again. */
export class TokenRefreshError extends SwitchboardError {
  readonly code = "slack_token_refresh";
}

export interface TokenSourceOptions {
  installations: Installations;
  clientId: string;
  clientSecret: string;
  /** SLACK_API_URL (a proxy, or the tests' fake Slack); default Slack's own. */
  slackApiUrl?: string;
  /** Refresh when the token has less than this left (default 30 minutes: a background pass outlives a few). */
  refreshMarginMs?: number;
  /** One attempt's timeout (default 10 s). */
  timeoutMs?: number;
  now?: () => number;
}

const DEFAULT_MARGIN_MS = 30 * 60_000;

const keyId = (key: InstallationKey) =>
  key.isEnterpriseInstall ? `org:${key.enterpriseId}` : `team:${key.teamId}`;

export class TokenSource {
  private readonly opts: TokenSourceOptions;
  private readonly margin: number;
  private readonly now: () => number;
  private readonly inflight = new Map<string, Promise<string>>();

  constructor(opts: TokenSourceOptions) {
    this.opts = opts;
    this.margin = opts.refreshMarginMs ?? DEFAULT_MARGIN_MS;
    this.now = opts.now ?? Date.now;
  }

  /** A bot token of the installation good for at least the margin, refreshed first when it is not. */
  async botToken(key: InstallationKey): Promise<string> {
    const found = await this.opts.installations.find(key);
    if (!found?.bot) throw new NotInstalledError(`Switchboard is not installed in ${describe(key)}`);
    if (this.fresh(found.bot)) return found.bot.token;
    const id = keyId(key);
    let pending = this.inflight.get(id);
    if (!pending) {
      pending = this.refreshLocked(key).finally(() => this.inflight.delete(id));
      this.inflight.set(id, pending);
    }
    return pending;
  }

  private fresh(bot: BotTokens): boolean {
    return !bot.expiresAt || bot.expiresAt.getTime() - this.now() > this.margin;
  }

  private refreshLocked(key: InstallationKey): Promise<string> {
    return this.opts.installations.withBotTokens(key, async (bot) => {
      if (!bot) throw new NotInstalledError(`Switchboard is not installed in ${describe(key)}`);
      // Another process may have refreshed it while this one waited for the lock.
      if (this.fresh(bot)) return { result: bot.token };
      if (!bot.refreshToken) {
        throw new TokenRefreshError(`the Slack token of ${describe(key)} expires and has no refresh token`);
      }
      const replace = await this.refresh(bot.refreshToken, key);
      return { replace, result: replace.token };
    });
  }

  /** oauth.v2.access, grant_type=refresh_token: one attempt, never retried. */
  private async refresh(refreshToken: string, key: InstallationKey): Promise<BotTokens> {
    const base = this.opts.slackApiUrl ?? "https://slack.com/api/";
    const url = new URL("oauth.v2.access", base.endsWith("/") ? base : `${base}/`);
    const startedAt = this.now();
    let answer: Record<string, unknown>;
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          client_id: this.opts.clientId,
          client_secret: this.opts.clientSecret,
          grant_type: "refresh_token",
          refresh_token: refreshToken,
        }),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 10_000),
      });
      answer = (await res.json()) as Record<string, unknown>;
    } catch (err) {
      throw new TokenRefreshError(
        `the Slack token of ${describe(key)} could not be refreshed (no answer from Slack); ` +
          "if Slack took the refresh, the workspace must install the app again",
        { cause: err },
      );
    }
    const { ok, access_token, refresh_token, expires_in, error } = answer;
    if (ok !== true || typeof access_token !== "string") {
      throw new TokenRefreshError(
        `Slack refused to refresh the token of ${describe(key)} (${typeof error === "string" ? error : "no reason given"})`,
      );
    }
    return {
      token: access_token,
      ...(typeof refresh_token === "string" ? { refreshToken: refresh_token } : { refreshToken }),
      ...(typeof expires_in === "number" ? { expiresAt: new Date(startedAt + expires_in * 1000) } : {}),
    };
  }
}

const describe = (key: InstallationKey) =>
  key.isEnterpriseInstall ? `the organization ${key.enterpriseId}` : `the workspace ${key.teamId}`;
