// The bot client of one workspace in many-workspace mode: a WebClient whose
// every call (Bolt's listeners get theirs from authorize; this one is for the
// work done later: reports, the inbox, live progress, audit posts) asks the
// TokenSource for the token first, so a rotating token is refreshed before it
// expires, under the store's lock (src/slack/tenancy/tokens.ts).
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../platform/log.ts";
import { boltLogger } from "../io/bolt-logger.ts";
import { slackClientOptions } from "../io/bridge.ts";
import { LeanWebClient } from "../io/lean-client.ts";
import { noDoubleSendRetries } from "../io/retry-policy.ts";

/** A WebClient that gets its token for each call from `tokenOf` (lean: its method namespaces made on first read). */
export class TokenSourcedClient extends LeanWebClient {
  private readonly tokenOf: () => Promise<string>;

  /** How many have been made in this process (tests: workspaceClient makes one only when used). */
  static made = 0;

  constructor(tokenOf: () => Promise<string>, options: webApi.WebClientOptions) {
    super(undefined, options);
    this.tokenOf = tokenOf;
    TokenSourcedClient.made += 1;
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

/**
 * The workspace's bot client, made on its first use: a WebClient binds some 280 methods when it is made
 * (~26 KiB), and most workspaces of a many-workspace deployment answer through response_url and never
 * call Slack between two restarts (docs/benchmarks.md, "Many workspaces"). Until then this is a stand-in
 * that is `instanceof TokenSourcedClient` and makes the client at the first property read.
 */
export function workspaceClient(
  tokenOf: () => Promise<string>,
  opts: { slackApiUrl?: string; logger?: Logger; teamId?: string },
): webApi.WebClient {
  let client: TokenSourcedClient | undefined;
  const real = (): TokenSourcedClient =>
    (client ??= new TokenSourcedClient(tokenOf, {
      ...slackClientOptions(opts.slackApiUrl),
      ...(opts.logger ? { logger: boltLogger(opts.logger) } : {}),
      retryConfig: noDoubleSendRetries,
      // An org-wide installation's token acts in many workspaces: each call names this one (as Bolt's do).
      ...(opts.teamId ? { teamId: opts.teamId } : {}),
    }));
  return madeOnFirstUse(real, TokenSourcedClient.prototype);
}

/**
 * A stand-in for the object `make` makes, made at the first property read, write or `in` (once): methods
 * come bound to it. With `prototype`, the stand-in is `instanceof` that class before it is made.
 */
export function madeOnFirstUse<T extends object>(make: () => T, prototype: object = Object.prototype): T {
  let made: T | undefined;
  const real = (): T => (made ??= make());
  return new Proxy(Object.create(prototype) as T, {
    get(_target, prop) {
      const c = real();
      const value = Reflect.get(c, prop, c);
      return typeof value === "function" ? value.bind(c) : value;
    },
    set: (_target, prop, value) => Reflect.set(real(), prop, value),
    has: (_target, prop) => Reflect.has(real(), prop),
  });
}

/** The bot token behind a client: the request's (Bolt's per-request client) or the TokenSource's. */
export async function botTokenOf(client: webApi.WebClient): Promise<string> {
  if (client instanceof TokenSourcedClient) return client.botToken();
  return client.token ?? "";
}
