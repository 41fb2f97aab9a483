// The Home tab of a workspace installed but not connected to a messaging
// account (WorkspaceRegistry.resolve): the not-connected answer, with what
// Switchboard could not tell the viewer earlier above it. Slack's view code is
// loaded only when a tab is built.
import type { CommandCore } from "../commands/types.ts";
import type { SlackHooks } from "../slack/context.ts";
import type { WorkspaceStores } from "../store/workspace-stores.ts";

/** The Home tab of a workspace without a messaging account: what is missing, who connects it, Connect for them. */
export function notConnectedHooks(core: CommandCore, stores: WorkspaceStores): SlackHooks {
  return {
    homeView: async (userId) => {
      const { keptOutcomeBlocks, notConnectedHome } = await import("../slack/features/home/view.ts");
      // Any command but help, connect and settings answers how to connect, for this person;
      // on the Home tab nothing was asked, so the answer's "cannot do this" goes.
      const answer = await core.run("home", { userId, via: "slack" });
      const blocks = JSON.parse(
        JSON.stringify(answer.blocks).replaceAll(", so Switchboard cannot do this.", "."),
      ) as typeof answer.blocks;
      return notConnectedHome({ blocks }, await keptOutcomeBlocks(stores, userId));
    },
  };
}
