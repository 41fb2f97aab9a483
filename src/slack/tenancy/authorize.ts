// Bolt runs `authorize` before a listener can ack. Its built-in single-token
// version caches the first auth.test forever, failure included, so one
// network blip at start-up would leave the app deaf until a restart; and the
// Web API client retries for up to 30 minutes, far past Slack's 3 s. Here
// auth.test is tried once with a short timeout, cached only when it worked.
import { type Authorize, type AuthorizeResult, webApi } from "@slack/bolt";
import type { Config } from "../../platform/config.ts";
import { slackClientOptions } from "../io/bridge.ts";

export function createAuthorize(
  config: Config,
  botToken: string,
): Authorize<boolean> & { warm(): Promise<AuthorizeResult>; test(): Promise<void> } {
  const client = new webApi.WebClient(botToken, {
    ...slackClientOptions(config.SLACK_API_URL),
    retryConfig: { retries: 0 },
    timeout: 2000,
    rejectRateLimitedCalls: true,
  });
  let cached: Promise<AuthorizeResult> | undefined;
  const warm = () => {
    cached ??= client.auth.test().then(
      (r) => ({ botToken, botId: r.bot_id, botUserId: r.user_id, teamId: r.team_id }),
      (err) => {
        cached = undefined;
        throw err;
      },
    );
    return cached;
  };
  // A fresh auth.test each time (readiness: is the token still good, does Slack answer?).
  const test = () => client.auth.test().then(() => {});
  return Object.assign(async () => warm(), { warm, test });
}
