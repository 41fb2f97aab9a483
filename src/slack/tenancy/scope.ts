// The one maker of a workspace scope. Only workspace sources call it (a
// request's team resolved, or a workspace's id for background work): the
// architecture rules fail on a call, or a cast to WorkspaceScope, anywhere else.
import { ENV_WORKSPACE } from "../../domain/workspace.ts";
import { SwitchboardError } from "../../platform/errors.ts";
import type { ScopeParts, SlackHooks, WorkspaceScope, WorkspaceSource } from "../context.ts";

/** What single mode's one workspace is now: its core, its stores, its steps setting. */
type OneWorkspaceNow = Pick<ScopeParts, "core" | "stores" | "workflowSteps">;

export function workspaceScope(parts: ScopeParts): WorkspaceScope {
  return parts as WorkspaceScope;
}

/** A request from a team the deployment does not serve (never installed, or no team at all). */
export class UnknownWorkspaceError extends SwitchboardError {
  readonly code = "unknown_workspace";
  readonly teamId: string | undefined;
  constructor(teamId: string | undefined) {
    super(
      teamId
        ? "Switchboard is not installed in this workspace: add it to Slack first."
        : "Switchboard could not tell which workspace this request came from: nothing was done.",
    );
    this.teamId = teamId;
  }
}

/**
 * Single-workspace mode's source: every request is the environment's one
 * workspace, as it is now (`current` is read on every request, so a settings
 * change reaches the next one). The app's hooks are given when the app is made.
 */
export function oneWorkspace(
  /** Its core and steps setting now (several replicas: read after a version check, so never older than the last change). */
  current: () => OneWorkspaceNow | Promise<OneWorkspaceNow>,
): (hooks: SlackHooks) => WorkspaceSource {
  return (hooks) => {
    const scope = async (): Promise<WorkspaceScope> => {
      const { core, stores, workflowSteps } = await current();
      return workspaceScope({
        workspace: ENV_WORKSPACE,
        core,
        ...(stores ? { stores } : {}),
        hooks,
        connected: true,
        ...(workflowSteps ? { workflowSteps } : {}),
      });
    };
    return {
      resolve: () => scope(),
      scopeOf: async (workspace) => {
        if (workspace !== ENV_WORKSPACE) throw new UnknownWorkspaceError(workspace);
        return scope();
      },
    };
  };
}
