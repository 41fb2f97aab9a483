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

export class UndeliveredOutcomes {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
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
  }
}
