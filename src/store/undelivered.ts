// Schema `outcomes`: outcomes Slack would not take (issue 27 §4). Work the API
// accepted (a campaign sent, an import done) is told in the channel; when that
// post fails (the token revoked, the workspace or the channel gone) the
// outcome is kept here for the person, per workspace, and their next command's
// answer says it (src/slack/outcomes.ts), never "try again". Kept at most
// KEPT_PER_PERSON a person (the newest), removed once shown or with the
// workspace (purge.ts). Telling claims them for a while (claimed_until) and
// removes them once told: a process that dies between the two leaves them
// claimed, and they are told again once the claim runs out, never lost.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { PerWorkspace } from "./per-workspace.ts";
import { storable } from "./text.ts";

export const OUTCOMES_MIGRATIONS: MigrationSet = {
  schema: "outcomes",
  migrations: [
    {
      id: "001_undelivered",
      sql: `
create table outcomes.undelivered (
  id bigserial primary key,
  workspace text not null,
  user_id text not null,
  text text not null,
  at timestamptz not null default now()
);
create index undelivered_person on outcomes.undelivered (workspace, user_id, id)
`,
    },
    {
      // Claimed while being told: a process that stops between the claim and the telling leaves them to the next.
      id: "002_claimed_until",
      sql: "alter table outcomes.undelivered add column claimed_until timestamptz",
    },
  ],
};

/** How long a claim holds kept outcomes: longer than a response_url post may take (30 s). */
export const CLAIM_MS = 120_000;

/** The newest outcomes kept a person; older ones give way. */
export const KEPT_PER_PERSON = 20;
const MAX_TEXT = 3000;

export interface UndeliveredOutcome {
  text: string;
  at: Date;
}

/** An outcome claimed to be told: removed with told(), given back with release(). */
export interface ClaimedOutcome extends UndeliveredOutcome {
  id: string;
}

const outcomeOf = (r: { text: string; at: Date | string }): UndeliveredOutcome => ({
  text: r.text,
  at: r.at instanceof Date ? r.at : new Date(r.at),
});

/**
 * The embedded database serves one process, so who has something kept is known here (loaded once, then
 * kept up to date by this class, its only writer): the next command of someone with nothing kept (nearly
 * everyone) reads nothing. On PostgreSQL another replica may keep an outcome: the table is asked each time.
 */
// state: the database's (a WeakMap keyed by it), and within it each workspace's own set of people.
const keptPeople = new WeakMap<object, Promise<Map<WorkspaceId, Set<string>>>>();

export class UndeliveredOutcomes extends PerWorkspace {
  readonly #db: Queryable;
  private readonly oneProcess: boolean;

  constructor(db: Queryable, workspace: WorkspaceId) {
    super(db, workspace);
    this.#db = db;
    this.oneProcess = (db as { kind?: string }).kind === "pglite";
  }

  /** The embedded database's people of this workspace with something kept (undefined on PostgreSQL). */
  private async people(): Promise<Set<string> | undefined> {
    if (!this.oneProcess) return undefined;
    let known = keptPeople.get(this.#db);
    if (!known) {
      known = this.#db
        .query<{ workspace: WorkspaceId; user_id: string }>(
          "select distinct workspace, user_id from outcomes.undelivered",
        )
        .then((r) => {
          const byWorkspace = new Map<WorkspaceId, Set<string>>();
          for (const row of r.rows)
            byWorkspace.set(row.workspace, (byWorkspace.get(row.workspace) ?? new Set()).add(row.user_id));
          return byWorkspace;
        });
      keptPeople.set(this.#db, known);
      known.catch(() => keptPeople.delete(this.#db));
    }
    const byWorkspace = await known;
    let mine = byWorkspace.get(this.workspace);
    if (!mine) {
      mine = new Set();
      byWorkspace.set(this.workspace, mine);
    }
    return mine;
  }

  /** Keeps an outcome for the person (the newest KEPT_PER_PERSON of theirs stay). */
  async keep(userId: string, text: string): Promise<void> {
    await this.#db.query("insert into outcomes.undelivered (workspace, user_id, text) values ($1, $2, $3)", [
      this.workspace,
      userId,
      storable(text).slice(0, MAX_TEXT),
    ]);
    await this.#db.query(
      `delete from outcomes.undelivered where workspace = $1 and user_id = $2 and id not in
         (select id from outcomes.undelivered where workspace = $1 and user_id = $2 order by id desc limit $3)`,
      [this.workspace, userId, KEPT_PER_PERSON],
    );
    (await this.people())?.add(userId);
  }

  /** The person's kept outcomes, oldest first, without taking them (the Home tab): claimed ones too. */
  async list(userId: string): Promise<UndeliveredOutcome[]> {
    const { rows } = await this.#db.query<{ text: string; at: Date | string }>(
      "select text, at from outcomes.undelivered where workspace = $1 and user_id = $2 order by id",
      [this.workspace, userId],
    );
    return rows.map(outcomeOf);
  }

  /**
   * Claims the person's kept outcomes to tell them (once across processes, for `leaseMs`), oldest first.
   * Follow with told() once said, or release() when saying failed; a claim never settled runs out and the
   * outcomes are claimed again by the next command (the process died in between: told again, not lost).
   */
  async claim(userId: string, leaseMs: number = CLAIM_MS): Promise<ClaimedOutcome[]> {
    const known = await this.people();
    if (known && !known.has(userId)) return [];
    const { rows } = await this.#db.query<{ id: string; text: string; at: Date | string }>(
      `update outcomes.undelivered set claimed_until = now() + make_interval(secs => $3::double precision / 1000)
        where workspace = $1 and user_id = $2 and (claimed_until is null or claimed_until <= now())
        returning id, text, at`,
      [this.workspace, userId, leaseMs],
    );
    return rows
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((r) => ({ id: String(r.id), ...outcomeOf(r) }));
  }

  /** Removes claimed outcomes once told. */
  async told(userId: string, claimed: readonly ClaimedOutcome[]): Promise<void> {
    if (claimed.length === 0) return;
    await this.#db.query(
      "delete from outcomes.undelivered where workspace = $1 and user_id = $2 and id = any($3::bigint[])",
      [this.workspace, userId, claimed.map((o) => o.id)],
    );
    await this.forgetIfNone(userId);
  }

  /**
   * The embedded database: the person leaves the known set once nothing of theirs is left (the set says who
   * may have something). Removed first, then put back when a row is found: a keep() in between stays known.
   */
  private async forgetIfNone(userId: string): Promise<void> {
    const known = await this.people();
    if (!known) return;
    known.delete(userId);
    const { rows } = await this.#db.query<{ id: string }>(
      "select id from outcomes.undelivered where workspace = $1 and user_id = $2 limit 1",
      [this.workspace, userId],
    );
    if (rows.length > 0) known.add(userId);
  }

  /** Gives claimed outcomes back at once (telling them failed): the next command says them. */
  async release(userId: string, claimed: readonly ClaimedOutcome[]): Promise<void> {
    if (claimed.length === 0) return;
    await this.#db.query(
      "update outcomes.undelivered set claimed_until = null where workspace = $1 and user_id = $2 and id = any($3::bigint[])",
      [this.workspace, userId, claimed.map((o) => o.id)],
    );
  }

  /**
   * Got it on the Home tab: removes the outcomes kept up to `shownUntil` (epoch ms; the newest the tab showed,
   * at the millisecond it showed), all when it is not finite; those kept after stay. Returns how many.
   */
  async dismiss(userId: string, shownUntil: number): Promise<number> {
    const { rows } = await this.#db.query<{ id: string }>(
      `delete from outcomes.undelivered where workspace = $1 and user_id = $2
        and ($3::double precision is null or date_trunc('milliseconds', at) <= to_timestamp($3 / 1000)) returning id`,
      [this.workspace, userId, Number.isFinite(shownUntil) ? shownUntil : null],
    );
    await this.forgetIfNone(userId);
    return rows.length;
  }
}
