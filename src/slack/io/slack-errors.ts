// Slack's error codes, read in one place (the Web API client's `data.error`),
// and what the app does with them: a channel closed to the bot, a message
// that cannot be updated any more, a token Slack refused, a trigger that ran
// out; and the post that falls back to the person's DM when the channel is
// closed to the bot.
import type { webApi } from "@slack/bolt";
import type { ChannelPostQueue } from "./post-queue.ts";

/** The Slack error code of a Web API failure (`channel_not_found`, …), if it is one. */
export function slackCode(err: unknown): string | undefined {
  const data = (err as { data?: { error?: unknown } } | undefined)?.data;
  return typeof data?.error === "string" ? data.error : undefined;
}

const has = (codes: ReadonlySet<string>) => (err: unknown) => codes.has(slackCode(err) ?? "");

/** The channel is gone, archived, or the bot is not in it: nothing can be posted there now. */
export const CHANNEL_CLOSED: ReadonlySet<string> = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "channel_is_archived",
]);
export const channelClosed = has(CHANNEL_CLOSED);

/** A message that can no longer be updated (its channel closed, or the message itself gone). */
export const MESSAGE_GONE: ReadonlySet<string> = new Set([
  ...CHANNEL_CLOSED,
  "message_not_found",
  "cant_update_message",
  "edit_window_closed",
]);
export const messageGone = has(MESSAGE_GONE);

/** Slack refused an image block because it could not fetch its image_url ("downloading image failed"). */
export function imageRefused(err: unknown): boolean {
  if (slackCode(err) !== "invalid_blocks") return false;
  const data = (err as { data?: { errors?: unknown; response_metadata?: { messages?: unknown } } }).data;
  const said = [data?.errors, data?.response_metadata?.messages].flat().map(String).join(" ");
  return /image_url|downloading image/i.test(said);
}

/** Slack refused the bot token itself: a person must fix the setting. */
export const TOKEN_REFUSED: ReadonlySet<string> = new Set([
  "invalid_auth",
  "not_authed",
  "account_inactive",
  "token_revoked",
]);

/** A modal's trigger_id no longer opens anything (3 s passed, or it was used). */
export const TRIGGER_EXPIRED: ReadonlySet<string> = new Set([
  "expired_trigger_id",
  "exchanged_trigger_id",
  "invalid_trigger_id",
]);
export const triggerExpired = has(TRIGGER_EXPIRED);

/**
 * Whether a failed Web API call certainly did not take effect: Slack answered
 * ok:false, or refused before handling it (a 429, another 4xx). Anything else
 * (a timeout, a reset connection) may have.
 */
export function certainlyRefused(err: unknown): boolean {
  if (typeof err !== "object" || err === null) return false;
  const e = err as { code?: unknown; statusCode?: unknown };
  if (e.code === "slack_webapi_platform_error" || e.code === "slack_webapi_rate_limited_error") return true;
  if (e.code === "slack_webapi_http_error") return typeof e.statusCode === "number" && e.statusCode < 500;
  return false;
}

/**
 * Posts in `args.channel` through the per-channel queue; when that channel is
 * closed to the bot, in the app's DM with `userId` instead. Returns where it went.
 */
export async function postOrDm(
  posts: ChannelPostQueue,
  client: webApi.WebClient,
  args: webApi.ChatPostMessageArguments & { channel: string },
  userId: string,
): Promise<{ channel: string; ts?: string }> {
  try {
    const res = await posts.post(client, args);
    return { channel: args.channel, ts: res.ts };
  } catch (err) {
    if (args.channel === userId || !channelClosed(err)) throw err;
    const { thread_ts: _thread, ...rest } = args as webApi.ChatPostMessageArguments & { thread_ts?: string };
    const res = await posts.post(client, { ...rest, channel: userId } as webApi.ChatPostMessageArguments);
    return { channel: userId, ts: res.ts };
  }
}
