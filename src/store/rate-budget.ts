// Schema `rate_budget`, table `buckets`: the messaging API's budget of a key
// shared by every replica on one PostgreSQL (docs/api.md, "One budget per
// key"). One token-bucket row per (key, bucket): `key` is the key's hash (as
// src/api/rate-limit.ts makes it, never the key), `bucket` is read, write or
// read:background (background reads' share, taken with read). Each grant is
// one statement: the rows locked, refilled by the database's clock, checked
// and taken all or none (UPDATE … RETURNING in one WITH). The API's side of
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
        );`,
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
      `with now as (select ${NOW_MS} as ms),
       cur as (
         select b.key, b.bucket, b.per_ms, b.blocked_until_ms, n.ms,
                case when n.ms > greatest(b.updated_ms, b.blocked_until_ms)
                  then least(b.capacity, b.tokens + (n.ms - greatest(b.updated_ms, b.blocked_until_ms)) * b.per_ms)
                  else b.tokens end as avail
           from rate_budget.buckets b cross join now n
          where b.key = $1 and b.bucket = any($2::text[])
            for update of b
       ),
       verdict as (
         select count(*)::int as found,
                coalesce(bool_and(avail >= 1 and blocked_until_ms <= ms), false) as granted,
                max(greatest(0, blocked_until_ms - ms)
                    + case when avail >= 1 then 0 else (1 - avail) / per_ms end) as wait_ms
           from cur
       ),
       taken as (
         update rate_budget.buckets b
            set tokens = cur.avail - 1, updated_ms = greatest(b.updated_ms, cur.ms)
           from cur cross join verdict v
          where v.granted and v.found = cardinality($2::text[])
            and b.key = cur.key and b.bucket = cur.bucket
         returning 1
       )
       select v.granted and v.found = cardinality($2::text[]) as granted, v.wait_ms, v.found,
              (select count(*) from taken) as n
         from verdict v`,
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
