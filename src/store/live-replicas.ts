// Table `replicas.live` (schema `replicas`, workspace-changes.ts's migrations):
// each running process's heartbeat on PostgreSQL. A replica writes its row
// when it starts and every HEARTBEAT_MS after; one not seen for LIVE_MS is
// taken for dead, and what it left in flight (commands between their ack and
// their answer: commands-in-flight.ts) is settled by any other replica at
// once, instead of after a fixed wait of minutes. A graceful stop removes its
// row. PGlite needs none of it: one process per folder, every other is dead.
import type { Queryable } from "./db.ts";

/** How often a replica writes its heartbeat. */
export const HEARTBEAT_MS = 10_000;
/** A replica not seen for this long is taken for dead (three missed beats). */
export const LIVE_MS = 3 * HEARTBEAT_MS;
/** Rows of replicas gone longer than this are removed (nothing refers to them then). */
const FORGOTTEN_MS = 24 * 60 * 60_000;

export class LiveReplicas {
  private readonly db: Queryable;
  constructor(db: Queryable) {
    this.db = db;
  }

  /** This replica is alive now; long-gone replicas' rows are removed on the way. */
  async beat(id: string): Promise<void> {
    await this.db.query(
      `insert into replicas.live (id) values ($1)
       on conflict (id) do update set seen_at = now()`,
      [id],
    );
    await this.db.query("delete from replicas.live where seen_at < now() - make_interval(secs => $1)", [
      FORGOTTEN_MS / 1000,
    ]);
  }

  /** This replica stops (a graceful stop): no longer live. */
  async gone(id: string): Promise<void> {
    await this.db.query("delete from replicas.live where id = $1", [id]);
  }

  /** The replicas seen within `withinMs`. */
  async live(withinMs = LIVE_MS): Promise<string[]> {
    const { rows } = await this.db.query<{ id: string }>(
      "select id from replicas.live where seen_at > now() - make_interval(secs => $1) order by id",
      [withinMs / 1000],
    );
    return rows.map((r) => r.id);
  }
}
