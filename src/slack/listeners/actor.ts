// Who clicked or typed, in the core's terms.
import type { BlockAction, SlashCommand } from "@slack/bolt";
import type { Actor } from "../../commands/types.ts";

/** @deprecated The middleware puts the actor in the context (middleware.ts, actorOf). */
export function commandActor(command: SlashCommand): Actor {
  return {
    userId: command.user_id,
    userName: command.user_name,
    teamId: command.team_id,
    channelId: command.channel_id,
    via: "slack",
  };
}

/** @deprecated The middleware puts the actor in the context (middleware.ts, actorOf). */
export function actionActor(body: BlockAction): Actor {
  return {
    userId: body.user.id,
    userName: body.user.username ?? body.user.name,
    teamId: body.team?.id ?? body.user.team_id,
    // Buttons on the Home tab have no channel: answers then go to the app's DM.
    channelId: body.channel?.id ?? body.container?.channel_id,
    via: "slack",
  };
}
