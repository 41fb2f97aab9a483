// Slack redelivers an event when it got no 200 within 3 s (X-Slack-Retry-Num);
// each event_id is handled once. A memory set answers the common case; the
// store (schema `slack`) keeps it true across restarts and between processes.
import type { WorkspaceId } from "../../domain/workspace.ts";
import type { Db } from "../../store/db.ts";
import { SeenEvents } from "../../store/events.ts";

export interface EventStore {
  /** True the first time an id is seen, false for every repeat (Slack's event ids are unique across workspaces). */
  claim(eventId: string, workspace: WorkspaceId): Promise<boolean>;
  /** Whether an id was claimed for `workspace`, claiming nothing. */
  seen(eventId: string, workspace: WorkspaceId): Promise<boolean>;
}

export class MemoryEventStore implements EventStore {
  private readonly ids = new Map<string, number>();

  private readonly ttlMs: number;
  private readonly max: number;
  constructor(ttlMs = 60 * 60_000, max = 10_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  async claim(eventId: string): Promise<boolean> {
    return this.claimSync(eventId);
  }

  /** Memory serves one process of one workspace (no database): the id alone. */
  async seen(eventId: string): Promise<boolean> {
    const at = this.ids.get(eventId);
    return at !== undefined && Date.now() - at < this.ttlMs;
  }

  claimSync(eventId: string): boolean {
    const now = Date.now();
    const at = this.ids.get(eventId);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.ids.set(eventId, now);
    if (this.ids.size > this.max) {
      // Maps iterate in insertion order: drop the oldest.
      for (const key of this.ids.keys()) {
        this.ids.delete(key);
        if (this.ids.size <= this.max) break;
      }
    }
    return true;
  }
}

/** The memory set in front of the store's table (src/store/events.ts). */
export async function createDbEventStore(db: Db): Promise<EventStore> {
  const seen = await SeenEvents.open(db);
  const memory = new MemoryEventStore();
  return {
    async claim(eventId, workspace) {
      return memory.claimSync(eventId) && seen.claim(eventId, workspace);
    },
    seen: (eventId, workspace) => seen.seen(eventId, workspace),
  };
}

/** A form's view and the channel it was opened from (a request's own: Slack said it), kept with the view. */
const formChannelKey = (viewId: string, channel: string) => `form-channel:${viewId}:${channel}`;

/** Keeps the channel a form was opened from, with its view: a submission's outcome may go there. */
export async function keepFormChannel(
  events: EventStore,
  workspace: WorkspaceId,
  viewId: string | undefined,
  channel: string | undefined,
): Promise<void> {
  if (viewId && channel) await events.claim(formChannelKey(viewId, channel), workspace);
}

/**
 * The channel a submitted form's outcome may go to: the one its metadata
 * names only when it was kept with this view in this workspace when opened
 * (keepFormChannel); else none (the person's DM). A channel of another
 * workspace in a forged private_metadata is never posted to.
 */
export async function formChannel(
  events: EventStore,
  workspace: WorkspaceId,
  viewId: string,
  channel: string | undefined,
): Promise<string | undefined> {
  if (!channel) return undefined;
  return (await events.seen(formChannelKey(viewId, channel), workspace)) ? channel : undefined;
}
