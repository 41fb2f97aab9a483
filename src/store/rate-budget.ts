// Schema `rate_budget`, table `buckets`: the messaging API's budget of a key
// shared by every replica on one PostgreSQL (docs/api.md, "One budget per
// key"). One token-bucket row per (key, bucket): `key` is the key's hash (as
// src/api/rate-limit.ts makes it, never the key), `bucket` is read, write or
// read:background (background reads' share, taken with read). Each grant is
// one statement, one round trip (the function rate_budget.take): the rows
// locked in one order, refilled by the database's clock, checked and taken
// all or none. The API's side of
// it, the waiting and the lanes, is src/api/shared-limit.ts.
import type { Db } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const RATE_BUDGET_MIGRATIONS: MigrationSet = {
  schema: "rate_budget",
  migrations: [
    {
      id: "001_buckets",
      sql: `
        create table rate_budget.buckets (
          key text not null,
          bucket text not null,
          capacity double precision not null,
          per_ms double precision not null,
          tokens double precision not null,
          updated_ms double precision not null,
          blocked_until_ms double precision not null default 0,
          primary key (key, bucket)
        );
        -- One token from each named bucket, all or none. The rows are locked in one order (no deadlock
        -- between a read and a background read), refilled by the server's clock; a function, so its
        -- statements are planned once per connection.
        create function rate_budget.take(k text, names text[], out granted boolean, out wait_ms double precision,
                                         out seen int) language plpgsql as $$
        declare
          now_ms double precision := extract(epoch from clock_timestamp()) * 1000;
          r record;
          avail double precision;
        begin
          -- A grant lost in a crash costs nothing: no wait for the WAL's flush at commit.
          perform set_config('synchronous_commit', 'off', true);
          granted := true; wait_ms := 0; seen := 0;
          for r in select * from rate_budget.buckets where key = k and bucket = any(names)
                   order by bucket for update loop
            seen := seen + 1;
            avail := case when now_ms > greatest(r.updated_ms, r.blocked_until_ms)
              then least(r.capacity, r.tokens + (now_ms - greatest(r.updated_ms, r.blocked_until_ms)) * r.per_ms)
              else r.tokens end;
            if r.blocked_until_ms > now_ms or avail < 1 then
              granted := false;
              wait_ms := greatest(wait_ms, greatest(0, r.blocked_until_ms - now_ms)
                + case when avail >= 1 then 0 else (1 - avail) / r.per_ms end);
            end if;
          end loop;
          granted := granted and seen = cardinality(names);
          if granted then
            update rate_budget.buckets
               set tokens = least(capacity, tokens + greatest(0, now_ms - greatest(updated_ms, blocked_until_ms)) * per_ms) - 1,
                   updated_ms = greatest(updated_ms, now_ms)
             where key = k and bucket = any(names);
          end if;
        end $$;`,
    },
  ],
};

export interface BucketShape {
  bucket: string;
  /** Most tokens held (the burst). */
  capacity: number;
  /** Tokens added per millisecond. */
  perMs: number;
}

const NOW_MS = "extract(epoch from clock_timestamp()) * 1000";

/** The shared token buckets of the API keys (PostgreSQL; on PGlite one process keeps them in memory). */
export class RateBudgetStore {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  /** Makes the key's buckets (full), or sets their shape when they exist (tokens kept, at most the capacity). */
  async define(key: string, buckets: readonly BucketShape[]): Promise<void> {
    for (const b of buckets) {
      await this.db.query(
        `insert into rate_budget.buckets (key, bucket, capacity, per_ms, tokens, updated_ms)
         values ($1, $2, $3, $4, $3, ${NOW_MS})
         on conflict (key, bucket) do update set
           capacity = excluded.capacity, per_ms = excluded.per_ms,
           tokens = least(rate_budget.buckets.tokens, excluded.capacity)`,
        [key, b.bucket, b.capacity, b.perMs],
      );
    }
  }

  /**
   * One token from each of these buckets of the key, all or none, in one
   * statement. Granted, or the milliseconds until all could give one;
   * `missing` when a bucket has no row (define() it).
   */
  async take(
    key: string,
    buckets: readonly string[],
  ): Promise<{ granted: boolean; waitMs: number; missing: boolean }> {
    const { rows } = await this.db.query<{ granted: boolean | null; wait_ms: number | null; found: number }>(
      "select granted, wait_ms, seen as found from rate_budget.take($1, $2::text[])",
      [key, buckets],
    );
    const r = rows[0];
    const found = Number(r?.found ?? 0);
    return {
      granted: Boolean(r?.granted),
      waitMs: Math.max(0, Number(r?.wait_ms ?? 0)),
      missing: found < buckets.length,
    };
  }

  /** The API said 429: no tokens in this bucket of the key for `ms` (every replica waits), then one probe. */
  async penalize(key: string, bucket: string, ms: number): Promise<void> {
    await this.db.query(
      `update rate_budget.buckets
          set blocked_until_ms = greatest(blocked_until_ms, ${NOW_MS} + $3), tokens = least(tokens, 1)
        where key = $1 and bucket = $2`,
      [key, bucket, ms],
    );
  }
}
