// A workspace: what every record, job and cache belongs to (docs/workspaces.md).
// In many-workspace mode its id is the Slack team id; in single-workspace mode
// (one workspace from the environment) it is ENV_WORKSPACE.

export type WorkspaceId = string;

/** The single-workspace mode's workspace: the one the environment sets up. */
export const ENV_WORKSPACE: WorkspaceId = "env";
