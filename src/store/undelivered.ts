// Schema `outcomes`: outcomes Slack would not take (issue 27 §4). Work the API
// accepted (a campaign sent, an import done) is told in the channel; when that
// post fails (the token revoked, the workspace or the channel gone) the
// outcome is kept here for the person, per workspace, and their next command's
// answer says it (src/slack/outcomes.ts), never "try again". Kept at most
// KEPT_PER_PERSON a person (the newest), removed once shown or with the
// workspace (purge.ts).
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
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
  ],
};

/** The newest outcomes kept a person; older ones give way. */
export const KEPT_PER_PERSON = 20;
const MAX_TEXT = 3000;

export interface UndeliveredOutcome {
  text: string;
  at: Date;
}

/**
 * The embedded database serves one process, so who has something kept is known here (loaded once, then
 * kept up to date by this class, its only writer): the next command of someone with nothing kept (nearly
 * everyone) reads nothing. On PostgreSQL another replica may keep an outcome: the table is asked each time.
 */
const keptPeople = new WeakMap<object, Promise<Set<string>>>();
const person = (workspace: WorkspaceId, userId: string) => `${workspace}\u0000${userId}`;

export class UndeliveredOutcomes {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;
  private readonly oneProcess: boolean;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
    this.oneProcess = (db as { kind?: string }).kind === "pglite";
  }

  /** The embedded database's people with something kept (undefined on PostgreSQL). */
  private people(): Promise<Set<string>> | undefined {
    if (!this.oneProcess) return undefined;
    let known = keptPeople.get(this.db);
    if (!known) {
      known = this.db
        .query<{ workspace: string; user_id: string }>(
          "select distinct workspace, user_id from outcomes.undelivered",
        )
        .then((r) => new Set(r.rows.map((row) => person(row.workspace, row.user_id))));
      keptPeople.set(this.db, known);
      known.catch(() => keptPeople.delete(this.db));
    }
    return known;
  }

  /** Keeps an outcome for the person (the newest KEPT_PER_PERSON of theirs stay). */
  async keep(userId: string, text: string): Promise<void> {
    await this.db.query("insert into outcomes.undelivered (workspace, user_id, text) values ($1, $2, $3)", [
      this.workspace,
      userId,
      storable(text).slice(0, MAX_TEXT),
    ]);
    await this.db.query(
      `delete from outcomes.undelivered where workspace = $1 and user_id = $2 and id not in
         (select id from outcomes.undelivered where workspace = $1 and user_id = $2 order by id desc limit $3)`,
      [this.workspace, userId, KEPT_PER_PERSON],
    );
    (await this.people())?.add(person(this.workspace, userId));
  }

  /** The person's kept outcomes, oldest first, without taking them (the Home tab). */
  async list(userId: string): Promise<UndeliveredOutcome[]> {
    const { rows } = await this.db.query<{ text: string; at: Date | string }>(
      "select text, at from outcomes.undelivered where workspace = $1 and user_id = $2 order by id",
      [this.workspace, userId],
    );
    return rows.map((r) => ({ text: r.text, at: r.at instanceof Date ? r.at : new Date(r.at) }));
  }

  /** Takes (removes and returns, once across processes) the person's kept outcomes, oldest first. */
  async take(userId: string): Promise<UndeliveredOutcome[]> {
    const known = await this.people();
    if (known && !known.has(person(this.workspace, userId))) return [];
    known?.delete(person(this.workspace, userId));
    const { rows } = await this.db.query<{ id: string; text: string; at: Date | string }>(
      "delete from outcomes.undelivered where workspace = $1 and user_id = $2 returning id, text, at",
      [this.workspace, userId],
    );
    return rows
      .sort((a, b) => Number(a.id) - Number(b.id))
      .map((r) => ({ text: r.text, at: r.at instanceof Date ? r.at : new Date(r.at) }));
  }

  /** Puts outcomes back (telling them failed). */
  async restore(userId: string, outcomes: UndeliveredOutcome[]): Promise<void> {
    for (const o of outcomes)
      await this.db.query(
        "insert into outcomes.undelivered (workspace, user_id, text, at) values ($1, $2, $3, $4)",
        [this.workspace, userId, o.text, o.at],
      );
    if (outcomes.length) (await this.people())?.add(person(this.workspace, userId));
  }
}
