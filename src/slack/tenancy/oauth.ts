// "Add to Slack" in many-workspace mode (docs/workspaces.md): the InstallProvider
// of @slack/oauth with Switchboard's installation store, its two routes
// (GET /slack/install: a page with the button; GET /slack/oauth_redirect:
// Slack's redirect after "Allow") and an `authorize` that resolves a
// request's workspace through the installer. Bolt refuses an app given both
// `authorize` and its own OAuth options, so the app keeps its authorize and
// serves these routes as custom routes of its HTTP receiver.
//
// Not wired into src/slack/app.ts yet: see docs/workspaces.md, "Left to wire".
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Authorize, AuthorizeResult, Logger as BoltLogger, CustomRoute } from "@slack/bolt";
import {
  type CallbackOptions,
  InstallProvider,
  type InstallURLOptions,
  InvalidStateError,
  type StateStore,
} from "@slack/oauth";
import type { Queryable } from "../../store/db.ts";
import { OAuthStates } from "../../store/events.ts";
import type { Installations } from "../../store/installations.ts";
import { slackClientOptions } from "../io/bridge.ts";
import { installationStore } from "./installation-store.ts";
import type { TokenSource } from "./tokens.ts";

export const INSTALL_PATH = "/slack/install";
export const REDIRECT_PATH = "/slack/oauth_redirect";

export interface OAuthOptions {
  clientId: string;
  clientSecret: string;
  /** The store, where each install's state is kept until used once (every replica sees it). */
  db: Queryable;
  installations: Installations;
  tokens: TokenSource;
  /** The bot scopes asked for: manifest.yml's (manifestScopes()). */
  scopes: string[];
  /** SLACK_API_URL: oauth.v2.access and auth.test go there too. */
  slackApiUrl?: string;
  /** The redirect URL; unset, Slack uses the one set in the app's settings. */
  redirectUri?: string;
  /** Slack's consent page; tests point it at the fake Slack. */
  authorizationUrl?: string;
  logger?: BoltLogger;
}

export interface OAuth {
  installer: InstallProvider;
  /** GET /slack/install and GET /slack/oauth_redirect, as custom routes of Bolt's HTTP receiver. */
  routes: CustomRoute[];
  /** Bolt's `authorize`: the request's workspace (or org) → its bot token, through the installation store. */
  authorize: Authorize<boolean>;
}

/**
 * The bot scopes of manifest.yml (oauth_config.scopes.bot), read without a
 * YAML parser (the app ships none): the `- scope` lines under `bot:`.
 */
export function manifestScopes(
  text = readFileSync(new URL("../../../manifest.yml", import.meta.url), "utf8"),
): string[] {
  const lines = text.split("\n");
  const path = ["oauth_config", "scopes", "bot"];
  const scopes: string[] = [];
  let depth = 0;
  let indent = -1;
  for (const line of lines) {
    if (!line.trim() || line.trim().startsWith("#")) continue;
    const ind = line.length - line.trimStart().length;
    if (depth === path.length) {
      const item = /^\s*-\s*([\w:.]+)\s*(#.*)?$/.exec(line);
      if (ind <= indent || !item) break;
      scopes.push(item[1]!);
      continue;
    }
    if (ind > indent && line.trim() === `${path[depth]}:`) {
      depth += 1;
      indent = ind;
    }
  }
  if (!scopes.length) throw new Error("manifest.yml names no bot scopes under oauth_config.scopes.bot");
  return scopes;
}

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>` +
  '<meta name="viewport" content="width=device-width, initial-scale=1">' +
  "<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style>" +
  `</head><body>${body}</body></html>`;

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** The install page: what Switchboard does, and Slack's "Add to Slack" button. */
export function installPage(url: string): string {
  return page(
    "Add Switchboard to Slack",
    "<h1>Switchboard</h1><p>Run your business messaging account from Slack: send messages, " +
      "manage contacts and campaigns, and get reports, with <code>/sb</code>.</p>" +
      `<p><a href="${escapeHtml(url)}"><img alt="Add to Slack" height="40" width="139" ` +
      'src="https://platform.slack-edge.com/img/add_to_slack.png" ' +
      'srcset="https://platform.slack-edge.com/img/add_to_slack.png 1x, https://platform.slack-edge.com/img/add_to_slack@2x.png 2x"></a></p>',
  );
}

/** Where the person goes back to the workspace: the desktop app, else Slack in the browser. */
export function workspaceLinks(id: string): { app: string; web: string } {
  const team = encodeURIComponent(id);
  return { app: `slack://open?team=${team}`, web: `https://app.slack.com/client/${team}` };
}

/** The `error` Slack put in the redirect (the person said Cancel, …), if any. */
function slackReason(req: IncomingMessage): string | undefined {
  try {
    return new URL(req.url ?? "/", "http://x").searchParams.get("error") ?? undefined;
  } catch {
    return undefined;
  }
}

/** Why an install did not complete, in words (no error codes: the log has them). */
export function installFailure(
  error: { code?: string; data?: { error?: unknown } },
  reason?: string,
): string {
  const said = typeof error.data?.error === "string" ? error.data.error : undefined;
  if (reason === "access_denied" || error.code === "slack_oauth_installer_authorization_error")
    return "You cancelled the installation on Slack's page, so nothing was installed.";
  if (error.code === "slack_oauth_invalid_state" || error.code === "slack_oauth_missing_state")
    return "The installation link expired: it is good once, for 10 minutes, in the browser that opened it.";
  if (said === "invalid_code" || said === "code_already_used" || said === "code_expired")
    return "Slack's approval could not be used: it expired or was already used.";
  if (said === "invalid_team_for_non_distributed_app" || reason === "invalid_team_for_non_distributed_app")
    return "This Switchboard app is not yet available to other workspaces: its owner has to turn on public distribution.";
  if (said === "bad_redirect_uri" || reason === "bad_redirect_uri")
    return "Slack refused the address it was to send you back to: tell whoever runs Switchboard.";
  if (reason === "unapproved_app" || reason === "app_not_approved")
    return "This workspace's admins have not approved Switchboard yet: ask one of them to approve it, then install again.";
  return "Slack did not complete the installation.";
}

const callbacks: CallbackOptions = {
  success: (installation, _options, _req, res) => {
    const where = installation.team?.name ?? installation.enterprise?.name ?? "your workspace";
    const id = installation.team?.id ?? installation.enterprise?.id;
    const links = id ? workspaceLinks(id) : undefined;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(
      page(
        "Switchboard is installed",
        `<h1>Switchboard is installed in ${escapeHtml(where)}</h1>` +
          "<p>Open Slack and type <code>/sb connect</code> to connect your messaging account.</p>" +
          (links
            ? `<p><a href="${escapeHtml(links.app)}">Open ${escapeHtml(where)} in the Slack app</a> · ` +
              `<a href="${escapeHtml(links.web)}">open it in your browser</a></p>`
            : ""),
      ),
    );
  },
  failure: (error, _options, req, res) => {
    // The error's code only: its message may quote what Slack answered.
    const why = installFailure(error as never, slackReason(req));
    res.writeHead(400, { "content-type": "text/html; charset=utf-8" });
    res.end(
      page(
        "Switchboard was not installed",
        `<h1>Switchboard was not installed</h1><p>${escapeHtml(why)}</p>` +
          `<p><a href="${INSTALL_PATH}">Start again</a>.</p>`,
      ),
    );
  },
};

/** How long an install link's state is good for (Slack's consent page in between). */
export const STATE_TTL_MS = 10 * 60_000;

/**
 * @slack/oauth's StateStore over Switchboard's store: a random state, kept
 * (hashed) for STATE_TTL_MS, taken once. Its default store is stateless (a
 * signed, timestamped value), so the same state and cookie could be replayed
 * with another code within its ten minutes and install a second workspace.
 */
export function dbStateStore(db: Queryable, ttlMs = STATE_TTL_MS): StateStore {
  const states = new OAuthStates(db);
  return {
    async generateStateParam(installOptions, now) {
      const state = randomBytes(32).toString("base64url");
      await states.add(state, installOptions, now, new Date(now.getTime() + ttlMs));
      return state;
    },
    async verifyStateParam(now, state) {
      const options = await states.take(state, now);
      if (!options) throw new InvalidStateError("The state is unknown, already used or expired.");
      return options as InstallURLOptions;
    },
  };
}

export function createOAuth(opts: OAuthOptions): OAuth {
  const installUrlOptions: InstallURLOptions = {
    scopes: opts.scopes,
    ...(opts.redirectUri ? { redirectUri: opts.redirectUri } : {}),
  };
  const installer = new InstallProvider({
    clientId: opts.clientId,
    clientSecret: opts.clientSecret,
    stateStore: dbStateStore(opts.db),
    // The state cookie lives as long as the state.
    stateCookieExpirationSeconds: STATE_TTL_MS / 1000,
    installationStore: installationStore(opts.installations, opts.tokens),
    installUrlOptions,
    renderHtmlForInstallPath: installPage,
    ...(opts.authorizationUrl ? { authorizationUrl: opts.authorizationUrl } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    // No retries: a code, like a refresh token, is good once.
    clientOptions: {
      ...slackClientOptions(opts.slackApiUrl),
      retryConfig: { retries: 0 },
    },
  });
  const routes: CustomRoute[] = [
    {
      path: INSTALL_PATH,
      method: ["GET"],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        installer.handleInstallPath(req, res, undefined, installUrlOptions).catch(() => fail(res));
      },
    },
    {
      path: REDIRECT_PATH,
      method: ["GET"],
      handler: (req: IncomingMessage, res: ServerResponse) => {
        installer.handleCallback(req, res, callbacks, installUrlOptions).catch(() => fail(res));
      },
    },
  ];
  const authorize: Authorize<boolean> = async (source) =>
    (await installer.authorize(source)) as AuthorizeResult;
  return { installer, routes, authorize };
}

function fail(res: ServerResponse) {
  if (res.headersSent) return void res.end();
  res
    .writeHead(500, { "content-type": "text/plain; charset=utf-8" })
    .end("Switchboard could not answer: try again");
}
