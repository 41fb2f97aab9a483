// The event store's interface and its binding to one workspace: a leaf, so what only needs the binding
// (the listeners' and background work's argument, slack/context.ts) does not load the store (event-store.ts).
import type { WorkspaceId } from "../../domain/workspace.ts";

export interface EventStore {
  /** True the first time an id is seen, false for every repeat (Slack's event ids are unique across workspaces). */
  claim(eventId: string, workspace: WorkspaceId): Promise<boolean>;
  /** Whether an id was claimed for `workspace`, claiming nothing. */
  seen(eventId: string, workspace: WorkspaceId): Promise<boolean>;
  /**
   * True the first time a request's signature is seen, false for a replay (request-time.ts). A boolean when
   * this process alone can say (memory), a promise when the store must be asked.
   */
  claimSignature(signature: string, timestampS?: number): boolean | Promise<boolean>;
  /** Writes what only memory holds (the embedded database's signatures); called at the app's graceful stop. */
  flush?(): Promise<void>;
}

/**
 * The event ids and form keys seen, of one workspace: the deployment's EventStore bound to it, so work for
 * one workspace cannot claim (or read) another's.
 */
export interface WorkspaceEvents {
  /** True the first time an id is seen in this workspace, false for every repeat. */
  claim(eventId: string): Promise<boolean>;
  /** Whether an id was claimed in this workspace, claiming nothing. */
  seen(eventId: string): Promise<boolean>;
}

/** The deployment's event store, bound to one workspace. */
export function eventsOf(events: EventStore, workspace: WorkspaceId): WorkspaceEvents {
  return {
    claim: (eventId) => events.claim(eventId, workspace),
    seen: (eventId) => events.seen(eventId, workspace),
  };
}
