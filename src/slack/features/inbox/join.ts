// `/sb inbox on`: thread replies reach the bot only in channels it is a
// member of. A public channel it joins (conversations.join, channels:join); a
// private one someone must invite it to. Whether it is already in a private
// channel, one conversations.history read tells (groups:history, which the
// inbox needs anyway), so no channels:read / groups:read scope is asked for.
import type { webApi } from "@slack/bolt";
import type { JoinOutcome } from "../../../commands/inbox.ts";
import type { Logger } from "../../../platform/log.ts";
import { slackCode } from "../../io/slack-errors.ts";

export function channelJoiner(client: webApi.WebClient, logger?: Logger) {
  return async (channel: string): Promise<JoinOutcome> => {
    try {
      const r = await client.conversations.join({ channel });
      return (r as { warning?: string }).warning === "already_in_channel" ? "member" : "joined";
    } catch (err) {
      const code = slackCode(err);
      // Private channels are invisible to a bot outside them.
      if (code === "channel_not_found") return "invite";
      if (code !== "method_not_supported_for_channel_type") {
        logger?.warn({ code, channel }, "conversations.join failed");
        return "unknown";
      }
    }
    try {
      await client.conversations.history({ channel, limit: 1 });
      return "member";
    } catch (err) {
      const code = slackCode(err);
      if (code === "not_in_channel" || code === "channel_not_found") return "invite";
      logger?.warn({ code, channel }, "conversations.history failed");
      return "unknown";
    }
  };
}
