// Slack redelivers an event when it got no 200 within 3 s (X-Slack-Retry-Num);
// each event_id is handled once. A memory set answers the common case; the
// store (schema `slack`) keeps it true across restarts and between processes.
import type { WorkspaceId } from "../../domain/workspace.ts";
import type { Db } from "../../store/db.ts";
import { SeenEvents } from "../../store/events.ts";

export interface EventStore {
  /** True the first time an id is seen, false for every repeat (Slack's event ids are unique across workspaces). */
  claim(eventId: string, workspace: WorkspaceId): Promise<boolean>;
}

export class MemoryEventStore implements EventStore {
  private readonly seen = new Map<string, number>();

  private readonly ttlMs: number;
  private readonly max: number;
  constructor(ttlMs = 60 * 60_000, max = 10_000) {
    this.ttlMs = ttlMs;
    this.max = max;
  }

  async claim(eventId: string): Promise<boolean> {
    return this.claimSync(eventId);
  }

  claimSync(eventId: string): boolean {
    const now = Date.now();
    const at = this.seen.get(eventId);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.set(eventId, now);
    if (this.seen.size > this.max) {
      // Maps iterate in insertion order: drop the oldest.
      for (const key of this.seen.keys()) {
        this.seen.delete(key);
        if (this.seen.size <= this.max) break;
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
  };
}
