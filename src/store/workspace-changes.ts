// Schema `replicas`, table `workspace_versions`: one row per workspace, its
// version bumped in the same transaction as any change a replica must not miss
// (docs/workspaces.md, "Several replicas"): its connection (connect,
// disconnect, the API key), its settings, its installation removed or its
// tokens revoked. The bump is a trigger on the tables that hold those changes,
// so no writer can forget it; it also sends a notice (NOTIFY
// switchboard_workspace, the team id as payload), delivered at commit.
//
// On PostgreSQL each replica listens on one dedicated connection, outside the
// pool (listenForChanges: pinged, replaced when it stops answering), compares
// the workspaces it keeps with their versions on a timer, and reads a
// workspace's version when it uses it: a missed notice never leaves a replica
// acting on an old key or old settings, nor its background work running for
// long. PGlite (one process) needs none of it: the registry is told in-process.
import type { Logger } from "../platform/log.ts";
import { type Db, postgresUrlOf } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const CHANNEL = "switchboard_workspace";

export const REPLICAS_MIGRATIONS: MigrationSet = {
  schema: "replicas",
  migrations: [
    {
      id: "001_workspace_versions",
      sql: `
        create table replicas.workspace_versions (
          team_id text primary key,
          version bigint not null
        );
        create function replicas.bump(team text) returns void language plpgsql as $$
        begin
          if team is null or team = '' then return; end if;
          insert into replicas.workspace_versions (team_id, version) values (team, 1)
            on conflict (team_id) do update set version = replicas.workspace_versions.version + 1;
          perform pg_notify('${CHANNEL}', team);
        end $$;
        -- A connection or a setting: any row written or removed.
        create function replicas.team_row_changed() returns trigger language plpgsql as $$
        begin
          if tg_op <> 'INSERT' then perform replicas.bump(old.team_id); end if;
          if tg_op <> 'DELETE' and (tg_op = 'INSERT' or new.team_id <> old.team_id) then
            perform replicas.bump(new.team_id);
          end if;
          return null;
        end $$;
        create trigger bump_version after insert or update or delete on workspaces.connections
          for each row execute function replicas.team_row_changed();
        create trigger bump_version after insert or update or delete on workspaces.settings
          for each row execute function replicas.team_row_changed();
        -- An installation: installed, removed, or a token revoked (a refresh or a reseal is no change).
        create function replicas.installation_changed() returns trigger language plpgsql as $$
        declare r record;
        begin
          if tg_op = 'DELETE' then r := old; else r := new; end if;
          if tg_op = 'UPDATE' and not (
               (new.bot_token is null and old.bot_token is not null)
            or (new.user_token is null and old.user_token is not null)
            or new.installer_user_id <> old.installer_user_id) then
            return null;
          end if;
          if r.is_enterprise_install then
            perform replicas.bump(c.team_id) from workspaces.connections c where c.enterprise_id = r.enterprise_id;
          else
            perform replicas.bump(r.team_id);
          end if;
          return null;
        end $$;
        create trigger bump_version after insert or update or delete on workspaces.installations
          for each row execute function replicas.installation_changed();`,
    },
    {
      // Each running replica's heartbeat (live-replicas.ts): what it left in flight is settled once it stops beating.
      id: "002_live",
      sql: `
        create table replicas.live (
          id text primary key,
          started_at timestamptz not null default now(),
          seen_at timestamptz not null default now()
        )`,
    },
  ],
};

/** The version of a workspace's connection, settings and installation (0: never changed). */
export class WorkspaceVersions {
  private readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  async version(teamId: string): Promise<number> {
    const { rows } = await this.db.query<{ version: number }>(
      "select version from replicas.workspace_versions where team_id = $1",
      [teamId],
    );
    return Number(rows[0]?.version ?? 0);
  }

  /** The versions of these workspaces (0 for one never changed), in one read. */
  async versions(teamIds: readonly string[]): Promise<Map<string, number>> {
    const out = new Map(teamIds.map((id) => [id, 0]));
    if (!teamIds.length) return out;
    const { rows } = await this.db.query<{ team_id: string; version: number }>(
      "select team_id, version from replicas.workspace_versions where team_id = any($1::text[])",
      [teamIds],
    );
    for (const r of rows) out.set(r.team_id, Number(r.version));
    return out;
  }
}

export interface ChangeListener {
  /** A workspace changed (a notice). */
  changed(teamId: string): void;
  /**
   * Notices may have been missed (the connection was lost and is back), or it is time for the periodic
   * compare: every workspace kept is compared with its version (one read), and what is older is renewed.
   */
  resync(): unknown;
}

export interface ChangeFeed {
  stop(): Promise<void>;
  /** Whether the dedicated connection is listening now. */
  readonly listening: boolean;
}

export interface FeedOptions {
  /** How often the listening connection is asked `select 1` (default 10 s; also its TCP keepalive's delay). */
  pingEveryMs?: number;
  /** A ping not answered within this (default 5 s): the connection is taken for dead and replaced. */
  answerWithinMs?: number;
  /** How often the workspaces kept are compared with their versions, notice or not (default 30 s: REPLICA_CHECK_SECONDS). */
  checkEveryMs?: number;
}

/**
 * Listens for workspace changes on one dedicated connection of its own (not
 * the pool's: LISTEN belongs to a session), reconnecting after a loss (0.5 s,
 * doubling to 10 s), then `resync()`. A connection gone half-open (a NAT that
 * forgot it, a failover: no FIN, no RST) says nothing: it is asked `select 1`
 * every `pingEveryMs` (and the socket has TCP keepalive), and one that does not
 * answer within `answerWithinMs` is destroyed and replaced. And whatever the
 * connection does, `resync()` runs every `checkEveryMs`: a notice lost anyway
 * costs at most that. PostgreSQL only; undefined on PGlite.
 * A transaction-mode pooler (pgbouncer) in front of the server breaks LISTEN:
 * point DATABASE_URL at the server, or a session-mode pool.
 */
export async function listenForChanges(
  db: Db,
  listener: ChangeListener,
  logger: Logger,
  opts: FeedOptions = {},
): Promise<ChangeFeed | undefined> {
  const url = postgresUrlOf(db);
  if (db.kind !== "postgres" || !url) return undefined;
  const { default: pg } = await import("pg");
  const pingEveryMs = opts.pingEveryMs ?? 10_000;
  const answerWithinMs = opts.answerWithinMs ?? 5_000;
  let stopped = false;
  let client: InstanceType<typeof pg.Client> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let delay = 500;
  const feed = { listening: false, stop: async () => {} };
  /** The statement's answer, or a rejection once `answerWithinMs` has passed without one. */
  const answered = (c: InstanceType<typeof pg.Client>, sql: string): Promise<unknown> => {
    let deadline: NodeJS.Timeout | undefined;
    return Promise.race([
      c.query(sql),
      new Promise<never>((_, reject) => {
        deadline = setTimeout(
          () => reject(new Error(`no answer to ${sql} within ${answerWithinMs} ms`)),
          answerWithinMs,
        );
      }),
    ]).finally(() => clearTimeout(deadline));
  };
  const connect = async (again: boolean): Promise<void> => {
    if (stopped) return;
    const c = new pg.Client({
      connectionString: url,
      connectionTimeoutMillis: 10_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: pingEveryMs,
    });
    client = c;
    let ping: NodeJS.Timeout | undefined;
    const lost = (err?: unknown) => {
      if (client !== c) return;
      client = undefined;
      feed.listening = false;
      clearInterval(ping);
      c.removeAllListeners("notification");
      // No goodbye on a connection taken for dead: a half-open socket would wait for its peer forever.
      c.connection.stream.destroy();
      if (stopped) return;
      logger.warn(
        { err: err ? String((err as Error).message ?? err) : undefined, retryInMs: delay },
        "the workspace change notices stopped: listening again",
      );
      timer = setTimeout(() => void connect(true), delay);
      timer.unref();
      delay = Math.min(delay * 2, 10_000);
    };
    c.on("error", lost);
    c.on("end", () => lost());
    c.on("notification", (n) => {
      if (n.channel === CHANNEL && n.payload) listener.changed(n.payload);
    });
    try {
      await c.connect();
      await answered(c, `listen ${CHANNEL}`);
    } catch (err) {
      lost(err);
      return;
    }
    if (client !== c) return;
    feed.listening = true;
    delay = 500;
    let pinging = false;
    ping = setInterval(() => {
      if (pinging || client !== c) return;
      pinging = true;
      answered(c, "select 1")
        .catch(lost)
        .finally(() => {
          pinging = false;
        });
    }, pingEveryMs);
    ping.unref();
    if (again) void check();
  };
  let checking = false;
  /** The workspaces kept, compared with their versions; one compare at a time. */
  const check = async (): Promise<void> => {
    if (checking || stopped) return;
    checking = true;
    try {
      await listener.resync();
    } catch (err) {
      logger.warn({ err: String((err as Error).message ?? err) }, "could not check the workspaces kept");
    } finally {
      checking = false;
    }
  };
  const every = setInterval(() => void check(), opts.checkEveryMs ?? 30_000);
  every.unref();
  await connect(false);
  feed.stop = async () => {
    stopped = true;
    clearTimeout(timer);
    clearInterval(every);
    const c = client;
    client = undefined;
    feed.listening = false;
    if (!c) return;
    // A goodbye, for as long as a ping may take; then the socket is closed whatever its peer does.
    let waited: NodeJS.Timeout | undefined;
    await Promise.race([c.end(), new Promise((r) => (waited = setTimeout(r, answerWithinMs)))]).catch(
      () => {},
    );
    clearTimeout(waited);
    c.connection.stream.destroy();
  };
  return feed;
}
