// Schema `slack`: the ids of the Slack events already handled, so a
// redelivery is dropped across restarts and between processes. Ids are kept a
// day (Slack retries within minutes); older ones are deleted on open and every
// thousand claims. And the OAuth states of "Add to Slack" (OAuthStates): each
// good once, until it expires, whichever replica issued it.
import { createHash } from "node:crypto";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Db, Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const SLACK_MIGRATIONS: MigrationSet = {
  schema: "slack",
  migrations: [
    {
      id: "001_seen_events",
      sql: "create table if not exists slack.seen_events (event_id text primary key, seen_at timestamptz not null default now())",
    },
    {
      // Slack's event ids are unique across workspaces: the key stays the id,
      // and each row says whose event it was (for the purge of a workspace).
      id: "002_workspace",
      sql: `
alter table slack.seen_events add column workspace text not null default 'env'
;
alter table slack.seen_events alter column workspace drop default
`,
    },
    {
      // A state is kept by its hash: a copy of the table holds none that could be used.
      id: "003_oauth_states",
      sql: `
create table if not exists slack.oauth_states (
  state_hash text primary key,
  install_options jsonb not null,
  expires_at timestamptz not null
)`,
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

  /** True when this call recorded the id (an event of `workspace`), false when it was already there. */
  async claim(eventId: string, workspace: WorkspaceId): Promise<boolean> {
    const r = await this.db.query(
      "insert into slack.seen_events (event_id, workspace) values ($1, $2) on conflict do nothing returning event_id",
      [eventId, workspace],
    );
    this.claims += 1;
    if (this.claims % PRUNE_EVERY === 0) await this.forgetOld();
    return r.rows.length === 1;
  }

  /** Whether the id was recorded for `workspace` (within the day the table keeps it), recording nothing. */
  async seen(eventId: string, workspace: WorkspaceId): Promise<boolean> {
    const r = await this.db.query(
      "select 1 from slack.seen_events where event_id = $1 and workspace = $2 and seen_at > now() - interval '1 day'",
      [eventId, workspace],
    );
    return r.rows.length === 1;
  }

  /** Records several ids of `workspace` in one statement (ids already there are left as they are). */
  async claimAll(eventIds: readonly string[], workspace: WorkspaceId): Promise<void> {
    if (eventIds.length === 0) return;
    await this.db.query(
      "insert into slack.seen_events (event_id, workspace) select unnest($1::text[]), $2 on conflict do nothing",
      [eventIds, workspace],
    );
  }

  /** The ids of `workspace` starting with `prefix` recorded within the last `withinMs`, oldest first, with when. */
  async recent(
    workspace: WorkspaceId,
    prefix: string,
    withinMs: number,
  ): Promise<Array<{ id: string; at: number }>> {
    const r = await this.db.query<{ event_id: string; at: string | number }>(
      `select event_id, (extract(epoch from seen_at) * 1000)::float8 as at from slack.seen_events
        where workspace = $1 and starts_with(event_id, $2) and seen_at > now() - make_interval(secs => $3)
        order by seen_at`,
      [workspace, prefix, withinMs / 1000],
    );
    return r.rows.map((row) => ({ id: row.event_id, at: Number(row.at) }));
  }

  async forgetOld(): Promise<void> {
    await this.db.query("delete from slack.seen_events where seen_at < now() - interval '1 day'");
  }
}

const stateHash = (state: string) => createHash("sha256").update(state).digest("hex");

/**
 * The `state` of "Add to Slack"'s OAuth flow, shared by every process of the
 * deployment: kept (hashed) with what the install URL asked for, until it
 * expires; taken once, by one conditional delete, so a replayed redirect finds
 * nothing. Times come from the caller (the installer's clock), not SQL `now()`.
 */
export class OAuthStates {
  private readonly db: Queryable;
  constructor(db: Queryable) {
    this.db = db;
  }

  /** Keeps `state` with `options` until `expiresAt`; forgets the states already expired at `now`. */
  async add(state: string, options: unknown, now: Date, expiresAt: Date): Promise<void> {
    await this.db.query("delete from slack.oauth_states where expires_at <= $1", [now]);
    await this.db.query(
      "insert into slack.oauth_states (state_hash, install_options, expires_at) values ($1, $2::jsonb, $3)",
      [stateHash(state), JSON.stringify(options ?? {}), expiresAt],
    );
  }

  /** What `state` was kept with, once: undefined when it is unknown, already taken, or expired at `now`. */
  async take(state: string, now: Date): Promise<unknown> {
    const r = await this.db.query<{ install_options: unknown; fresh: boolean }>(
      "delete from slack.oauth_states where state_hash = $1 returning install_options, expires_at > $2 as fresh",
      [stateHash(state), now],
    );
    const row = r.rows[0];
    return row?.fresh ? row.install_options : undefined;
  }
}
