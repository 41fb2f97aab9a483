// The bot client of one workspace in many-workspace mode: a WebClient whose
// every call (Bolt's listeners get theirs from authorize; this one is for the
// work done later: reports, the inbox, live progress, audit posts) asks the
// TokenSource for the token first, so a rotating token is refreshed before it
// expires, under the store's lock (src/slack/tokens.ts).
import { webApi } from "@slack/bolt";
import type { Logger } from "../../platform/log.ts";
import { boltLogger } from "../io/bolt-logger.ts";
import { slackClientOptions } from "../io/bridge.ts";
import { noDoubleSendRetries } from "../io/retry-policy.ts";

/** A WebClient that gets its token for each call from `tokenOf`. */
export class TokenSourcedClient extends webApi.WebClient {
  private readonly tokenOf: () => Promise<string>;

  constructor(tokenOf: () => Promise<string>, options: webApi.WebClientOptions) {
    super(undefined, options);
    this.tokenOf = tokenOf;
  }

  /** The token a call would use now (a file download sends it itself). */
  botToken(): Promise<string> {
    return this.tokenOf();
  }

  override async apiCall(
    method: string,
    options: Record<string, unknown> = {},
  ): Promise<webApi.WebAPICallResult> {
    const token = typeof options.token === "string" && options.token ? options.token : await this.tokenOf();
    return super.apiCall(method, { ...options, token });
  }
}

export function workspaceClient(
  tokenOf: () => Promise<string>,
  opts: { slackApiUrl?: string; logger?: Logger; teamId?: string },
): webApi.WebClient {
  return new TokenSourcedClient(tokenOf, {
    ...slackClientOptions(opts.slackApiUrl),
    ...(opts.logger ? { logger: boltLogger(opts.logger) } : {}),
    retryConfig: noDoubleSendRetries,
    // An org-wide installation's token acts in many workspaces: each call names this one (as Bolt's do).
    ...(opts.teamId ? { teamId: opts.teamId } : {}),
  });
}

/** The bot token behind a client: the request's (Bolt's per-request client) or the TokenSource's. */
export async function botTokenOf(client: webApi.WebClient): Promise<string> {
  if (client instanceof TokenSourcedClient) return client.botToken();
  return client.token ?? "";
}
