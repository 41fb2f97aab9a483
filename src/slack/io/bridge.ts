// The parts of Slack the command core needs before the Bolt app exists: who
// is in a user group (for the writers' and broadcasters' entries S…) and
// where audit entries go (the workspace's audit channel). createSwitchboard builds the bridge
// when SLACK_BOT_TOKEN is set and hands its hooks to the core; the Bolt app
// then shares its client and per-channel post queue.

import http from "node:http";
import https from "node:https";
import { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import { esc } from "../../blocks/blocks.ts";
import type { ApprovalCards } from "../../campaigns/approval-deps.ts";
import { plainLine } from "../../commands/tokenize.ts";
import type { Config } from "../../platform/config.ts";
import { ConfigError } from "../../platform/errors.ts";
import type { Logger } from "../../platform/log.ts";
import { metrics } from "../../platform/metrics.ts";
import type { AuditEntry } from "../../store/audit.ts";
import { slackApprovalCards } from "../features/approvals.ts";
import { auditSentence } from "../features/audit-words.ts";
import { boltLogger } from "./bolt-logger.ts";
import { createGroupResolver, type ResolveGroupMembers } from "./groups.ts";
import { ChannelPostQueue } from "./post-queue.ts";
import { noDoubleSendRetries } from "./retry-policy.ts";

export interface SlackBridge {
  client: webApi.WebClient;
  posts: ChannelPostQueue;
  resolveGroupMembers: ResolveGroupMembers;
  /**
   * Posts one audit entry to the workspace's audit channel (a no-op when unset). Returns at
   * once: the per-channel queue may hold it a second, the command must not wait.
   */
  onAudit: (entry: AuditEntry) => void;
  /** Where audit entries go from now on (`/sb settings`); undefined: nowhere. */
  setAuditChannel?(channel: string | undefined): void;
  /** Approval cards (issue 28 §3): to the audit channel, else by DM to each approver. */
  approvalCards?: ApprovalCards;
}

const SLACK_API = "https://slack.com/api/";
/** A Web API method's name (`chat.postMessage`): a bounded label, since Switchboard calls a fixed set. */
const METHOD = /^[a-zA-Z]+(\.[a-zA-Z]+){1,4}$/;
/** Slack's error codes are snake_case words from a fixed list. */
const ERROR = /^[a-z_]{1,60}$/;

/**
 * `fetch` for a WebClient: every request to the Web API at `base` counted in
 * switchboard_slack_calls_total by method and error (ok, Slack's code,
 * ratelimited, http_<status>, timeout, network). Other URLs (a response_url,
 * a file's upload URL) are not Web API methods and are not counted.
 */
export function countedFetch(base: string = SLACK_API): webApi.FetchFunction {
  return async (url, init) => {
    const href = String(url);
    const name = href.startsWith(base) ? (href.slice(base.length).split("?")[0] ?? "") : undefined;
    if (name === undefined) {
      // An answer on a response_url (Bolt's respond: a JSON string POSTed): node:http (postText), less CPU
      // and less long-lived garbage than fetch on the thread that acks the next request (bench/slack-ack.bench.ts).
      const body = init?.body;
      if (init?.method === "POST" && typeof body === "string" && !init.signal)
        return postText(href, { ...(init as RequestInit), body });
      return fetch(url, init as RequestInit);
    }
    const count = (error: string) =>
      metrics.slackCalls.inc({ method: METHOD.test(name) ? name : "other", error });
    let res: Response;
    try {
      res = await fetch(url, init as RequestInit);
    } catch (err) {
      const kind = (err as Error).name;
      count(kind === "TimeoutError" || kind === "AbortError" ? "timeout" : "network");
      throw err;
    }
    if (res.status !== 200) count(res.status === 429 ? "ratelimited" : `http_${res.status}`);
    else if (!res.headers.get("content-type")?.includes("json")) count("ok");
    else {
      const body = (await res
        .clone()
        .json()
        .catch(() => undefined)) as { ok?: boolean; error?: unknown } | undefined;
      const error = body?.ok === false ? String(body.error) : "ok";
      count(ERROR.test(error) ? error : "other");
    }
    return res;
  };
}

/**
 * Keep-alive agents for response_url posts. node:http rather than undici: undici's requests (fetch's and
 * `request`'s alike) outlive two young-generation collections, so at 50 answers a second each collection
 * copied and promoted ~1.4 MB and paused the acking thread 6–30 ms (docs/benchmarks.md, "The slash ack, a
 * fourth time"); node:http's are collected young.
 */
/** How long a response_url may take to answer (undici's headers timeout before). */
const RESPONSE_URL_TIMEOUT_MS = 30_000;
/**
 * With a `timeout`, an idle socket is closed before the server's announced keep-alive (`Keep-Alive: timeout=5`,
 * less a second); without one Node keeps it forever and ignores the announcement, so a post made just as the
 * server closes it is reset (3 of 60 posts after 3 to 7 s idle, against Node's default server).
 */
const AGENTS = {
  "http:": new http.Agent({ keepAlive: true, timeout: RESPONSE_URL_TIMEOUT_MS }),
  "https:": new https.Agent({ keepAlive: true, timeout: RESPONSE_URL_TIMEOUT_MS }),
};

/** A reset of a kept-alive socket the server had just closed: the request never reached it. */
const STALE_SOCKET = new Set(["ECONNRESET", "EPIPE"]);

/**
 * A POST of a text body, answered as fetch would (status, headers, body), through node:http(s). A request
 * on a reused keep-alive socket that the server closed as it was sent (a server that announces no keep-alive
 * timeout, or one shorter than it said) fails with ECONNRESET before any answer, the server having read
 * nothing: sent once more on a new socket, as Node's docs advise (`reusedSocket`).
 */
function postText(url: string, init: RequestInit & { body: string }): Promise<Response> {
  const target = new URL(url);
  const protocol = target.protocol;
  if (protocol !== "http:" && protocol !== "https:") return fetch(url, init);
  const headers: Record<string, string> = {};
  new Headers(init.headers).forEach((value, key) => {
    headers[key] = value;
  });
  headers["content-length"] = String(Buffer.byteLength(init.body));
  const attempt = (again: boolean): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const send = protocol === "https:" ? https.request : http.request;
      let answered = false;
      const req = send(
        target,
        { method: "POST", headers, agent: AGENTS[protocol], timeout: RESPONSE_URL_TIMEOUT_MS },
        (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("error", reject);
          res.on("end", () => {
            const out = new Headers();
            for (const [key, value] of Object.entries(res.headers))
              if (value !== undefined) out.set(key, Array.isArray(value) ? value.join(", ") : value);
            const status = res.statusCode ?? 0;
            // A status fetch's Response would refuse (1xx, 204's body) is not one a response_url gives; keep it honest.
            const empty = status === 204 || status === 205 || status === 304;
            resolve(
              new Response(empty ? null : Buffer.concat(chunks), {
                status,
                statusText: res.statusMessage ?? "",
                headers: out,
              }),
            );
          });
        },
      );
      req.on("timeout", () =>
        req.destroy(new Error(`the response_url did not answer within ${RESPONSE_URL_TIMEOUT_MS / 1000} s`)),
      );
      req.on("error", (err: NodeJS.ErrnoException) => {
        if (!again && !answered && req.reusedSocket && STALE_SOCKET.has(err.code ?? ""))
          attempt(true).then(resolve, reject);
        else reject(err);
      });
      req.end(init.body);
    });
  return attempt(false);
}

/** What every WebClient of Switchboard starts from: SLACK_API_URL when set, each call counted. */
export function slackClientOptions(slackApiUrl: string | undefined): webApi.WebClientOptions {
  return {
    fetch: countedFetch(slackApiUrl ? slackApiUrl.replace(/\/?$/, "/") : SLACK_API),
    ...(slackApiUrl ? { slackApiUrl } : {}),
  };
}

/** The Web API client for the bot token, at SLACK_API_URL when set. */
export function createSlackClient(config: Config, logger: Logger): webApi.WebClient {
  if (!config.SLACK_BOT_TOKEN)
    throw new ConfigError("SLACK_BOT_TOKEN is not set: the Slack app needs the bot token (xoxb-…).");
  return new webApi.WebClient(config.SLACK_BOT_TOKEN, {
    ...slackClientOptions(config.SLACK_API_URL),
    logger: boltLogger(logger),
    retryConfig: noDoubleSendRetries,
  });
}

/** A channel Slack shows by name (`<#C…>`); a DM or a user's id would show as an id, so it is not named. */
const namedChannel = (channel: string | undefined) =>
  channel && /^[CG][A-Z0-9]+$/.test(channel) ? channel : undefined;

/**
 * How a change was made, in words: a line only when someone typed it (`how`), else what they did (a
 * button, the approval message, a form) or what did it (a held start at its time, a workflow step, an
 * inbox thread); nothing for a connect, a disconnect or a settings change (their sentence says it all).
 */
function madeBy(e: AuditEntry): string {
  const command = e.command;
  if (e.operation.startsWith("workspace.")) return "";
  if (/\(held start\)/.test(command)) return "At the start time that was set";
  if (command.startsWith("workflow step ")) return "By a workflow step";
  if (command.startsWith("inbox reply ")) return "From an inbox thread";
  switch (e.how) {
    case "typed": {
      // What the person typed, as text: a typed `<!channel>` or `<@U…>` must not ping from the audit channel.
      const typed = plainLine(command).replace(/\s*\(upload [^)]*\)/g, "");
      const line = esc(typed.length > 500 ? `${typed.slice(0, 499)}…` : typed).replace(/`/g, "'");
      return `Typed: \`${line}\``;
    }
    case "form":
      return "With a form";
    case "approval":
      return "From the approval message";
    case "button":
      return "With a button";
    default:
      // A row kept before `how` was recorded, or nobody asked in person: its line is not shown as typed.
      return /\(form\)/.test(command) ? "With a form" : "";
  }
}

/**
 * One line per write, as a sentence about people and things (the Home tab's words): "✅ <@U1> created tag
 * *Sales*"; under it, in the quiet line, how it was made (the line itself only when typed), where and when.
 */
export function auditMessage(e: AuditEntry): { text: string; blocks: KnownBlock[] } {
  const channel = namedChannel(e.channel);
  const how = madeBy(e);
  const where = channel ? `in <#${channel}>` : "";
  // "Typed in <#C1>: `…`", "With a form in <#C1>", "In <#C1>".
  const lead = how
    ? how.startsWith("Typed: ")
      ? `Typed${where ? ` ${where}` : ""}: ${how.slice("Typed: ".length)}`
      : `${how}${where ? ` ${where}` : ""}`
    : where
      ? `In <#${channel}>`
      : "";
  const text = `${e.ok ? ":white_check_mark:" : ":x:"} ${auditSentence(e)}`;
  return {
    text,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text } },
      {
        type: "context",
        elements: [
          {
            type: "mrkdwn",
            text: `${lead ? `${lead} · ` : ""}<!date^${Math.floor(e.at.getTime() / 1000)}^{date_short_pretty} {time_secs}|${e.at.toUTCString()}>`,
          },
        ],
      },
    ],
  };
}

export function createSlackBridge(config: Config, logger: Logger): SlackBridge {
  const log = logger.child({ component: "slack" });
  return workspaceBridge({
    client: createSlackClient(config, log),
    posts: new ChannelPostQueue(),
    // The audit channel is the workspace's setting: its runtime sets it (src/workspaces/runtime.ts).
    logger: log,
  });
}

/** An audit entry posted to a workspace's audit channel with its bot, through the shared post queue (not awaited). */
export function postAudit(
  to: { client: webApi.WebClient; posts: ChannelPostQueue; channel: string; logger: Logger },
  entry: AuditEntry,
): void {
  to.posts
    .post(to.client, {
      channel: to.channel,
      ...auditMessage(entry),
      unfurl_links: false,
      unfurl_media: false,
    })
    .catch((err) => {
      to.logger.warn(
        { err: (err as Error).message, channel: to.channel },
        "could not post the audit entry to the audit channel",
      );
    });
}

/**
 * The bridge of one workspace: its bot client (the environment's token, or
 * one from its installation through the TokenSource), the post queue shared
 * by every workspace (one message a second per channel) and its audit channel.
 */
export function workspaceBridge(opts: {
  client: webApi.WebClient;
  posts: ChannelPostQueue;
  auditChannel?: string;
  logger: Logger;
}): SlackBridge {
  const { client, posts, logger: log } = opts;
  let channel = opts.auditChannel;
  const resolveGroupMembers = createGroupResolver(client, { logger: log });
  return {
    client,
    posts,
    resolveGroupMembers,
    approvalCards: slackApprovalCards({
      client,
      posts,
      auditChannel: () => channel,
      resolveGroupMembers,
      logger: log,
    }),
    setAuditChannel(next) {
      channel = next;
    },
    onAudit(entry) {
      if (channel) postAudit({ client, posts, channel, logger: log }, entry);
    },
  };
}
