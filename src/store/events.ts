// Schema `slack`: the ids of the Slack events already handled, so a
// redelivery is dropped across restarts and between processes. Ids are kept a
// day (Slack retries within minutes); older ones are deleted on open and every
// thousand claims.
import type { Db, Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const SLACK_MIGRATIONS: MigrationSet = {
  schema: "slack",
  migrations: [
    {
      id: "001_seen_events",
      sql: "create table if not exists slack.seen_events (event_id text primary key, seen_at timestamptz not null default now())",
    },
  ],
};

const PRUNE_EVERY = 1000;

export class SeenEvents {
  private claims = 0;

  private readonly db: Queryable;
  private constructor(db: Queryable) {
    this.db = db;
  }

  /** Forgets ids older than a day (schema `slack` is migrated with the rest: src/store/migrations.ts). */
  static async open(db: Db): Promise<SeenEvents> {
    const seen = new SeenEvents(db);
    await seen.forgetOld();
    return seen;
  }

  /** True when this call recorded the id, false when it was already there. */
  async claim(eventId: string): Promise<boolean> {
    const r = await this.db.query(
      "insert into slack.seen_events (event_id) values ($1) on conflict do nothing returning event_id",
      [eventId],
    );
    this.claims += 1;
    if (this.claims % PRUNE_EVERY === 0) await this.forgetOld();
    return r.rows.length === 1;
  }

  async forgetOld(): Promise<void> {
    await this.db.query("delete from slack.seen_events where seen_at < now() - interval '1 day'");
  }
}
