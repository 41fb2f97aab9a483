// What a workspace answers before it is connected to a messaging account
// (many-workspace mode): every command, click and form says how to connect and
// who can, without calling the API. Replaced by the connect commands' own
// core when they land (docs/workspaces.md).
import type { WorkspaceId } from "../domain/workspace.ts";
import { UserError } from "./registry.ts";
import type { CommandCore, Reply } from "./types.ts";

function answer(installerUserId?: string): Reply {
  const who = installerUserId
    ? `a workspace admin or <@${installerUserId}> (who installed it)`
    : "a workspace admin";
  const text = `Switchboard is not connected to a messaging account in this workspace yet: ${who} can connect it with \`/sb connect\`.`;
  return { visibility: "ephemeral", text, blocks: [{ type: "section", text: { type: "mrkdwn", text } }] };
}

export function notConnectedCore(team: { workspace: WorkspaceId; installerUserId?: string }): CommandCore {
  const reply = answer(team.installerUserId);
  return {
    run: async () => reply,
    confirm: async () => reply,
    dismiss: async () => reply,
    may: async () => false,
    channelNames: async () => ({}),
    perform: async () => {
      throw new UserError(reply.text);
    },
  };
}
