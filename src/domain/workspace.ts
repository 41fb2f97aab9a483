// The workspace a record, a request or a runtime belongs to. In the
// single-workspace mode (SLACK_BOT_TOKEN) there is one, "env", taken from the
// environment; with many workspaces it is the Slack team id. Every record of
// Switchboard's store carries it (docs/workspaces.md, "Every record belongs to
// a workspace").

export type WorkspaceId = string;

/** The single-workspace mode's workspace, and the owner of every record kept before workspaces. */
export const ENV_WORKSPACE: WorkspaceId = "env";
