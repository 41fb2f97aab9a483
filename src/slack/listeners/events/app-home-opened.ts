// The Home tab. Its full content (account, running campaigns, schedules,
// recent writes) comes from hooks.homeView; until then a short welcome.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { HomeView } from "@slack/types";
import { ACTION } from "../../../commands/types.ts";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";

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

export function appHomeOpened(deps: SlackDeps) {
  return async ({ event, client }: SlackEventMiddlewareArgs<"app_home_opened"> & AllMiddlewareArgs) => {
    if (event.tab !== "home") return;
    await guarded(deps, "app_home_opened", undefined, async () => {
      const view = deps.hooks.homeView ? await deps.hooks.homeView(event.user) : defaultHomeView();
      await client.views.publish({ user_id: event.user, view });
    });
  };
}
