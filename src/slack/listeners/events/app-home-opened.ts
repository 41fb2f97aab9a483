// The Home tab. Its full content (account, running campaigns, schedules,
// recent writes) comes from hooks.homeView (src/slack/features/home/view.ts); without it, a short welcome.
import type { HomeView } from "@slack/types";
import { ACTION } from "../../../commands/types.ts";
import type { EventArgs } from "../on.ts";

export function defaultHomeView(): HomeView {
  return {
    type: "home",
    blocks: [
      { type: "header", text: { type: "plain_text", text: "Switchboard" } },
      {
        type: "section",
        text: {
          type: "mrkdwn",
          text: "Run the messaging account from Slack: type `/sb help` in any channel, or start here.",
        },
      },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            action_id: ACTION.run,
            text: { type: "plain_text", text: "Help" },
            value: "help",
          },
        ],
      },
    ],
  };
}

export async function appHomeOpened({ event, client, ctx }: EventArgs<"app_home_opened">): Promise<void> {
  if (event.tab !== "home") return;
  const view = ctx.hooks.homeView ? await ctx.hooks.homeView(event.user) : defaultHomeView();
  await client.views.publish({ user_id: event.user, view });
}
