// Slack redelivers an event when it got no 200 within 3 s (X-Slack-Retry-Num);
// each event_id is handled once. A memory set answers the common case; the
// store (schema `slack`) keeps it true across restarts and between processes.
import type { Db } from "../store/db.ts";
import { migrate } from "../store/migrate.ts";

export interface EventStore {
  /** True the first time an id is seen, false for every repeat. */
  claim(eventId: string): Promise<boolean>;
}

export class MemoryEventStore implements EventStore {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly ttlMs = 60 * 60_000,
    private readonly max = 10_000,
  ) {}

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

export const SLACK_MIGRATIONS = {
  schema: "slack",
  migrations: [
    {
      id: "001_seen_events",
      sql: "create table if not exists slack.seen_events (event_id text primary key, seen_at timestamptz not null default now())",
    },
  ],
} as const;

export async function createDbEventStore(db: Db): Promise<EventStore> {
  await migrate(db, SLACK_MIGRATIONS);
  await db.query("delete from slack.seen_events where seen_at < now() - interval '1 day'");
  const memory = new MemoryEventStore();
  let claims = 0;
  return {
    async claim(eventId) {
      if (!memory.claimSync(eventId)) return false;
      const r = await db.query(
        "insert into slack.seen_events (event_id) values ($1) on conflict do nothing returning event_id",
        [eventId],
      );
      claims += 1;
      if (claims % 1000 === 0) {
        await db.query("delete from slack.seen_events where seen_at < now() - interval '1 day'");
      }
      return r.rows.length === 1;
    },
  };
}
