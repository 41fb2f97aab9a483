import type { MigrationSet } from "./migrate.ts";
import { PerWorkspace } from "./per-workspace.ts";
import { storable } from "./text.ts";

export const SAVED_REPLIES_MIGRATIONS: MigrationSet = {
  schema: "saved",
  migrations: [
    {
      id: "001_replies",
      sql: `
create table saved.replies (
  workspace text not null,
  name_key text not null,
  name text not null,
  text text not null,
  created_by text not null,
  created_at timestamptz not null,
  updated_by text not null,
  updated_at timestamptz not null,
  primary key (workspace, name_key)
)
`,
    },
    {
      // A saved reply may belong to one inbox (its channel): offered only in that inbox's threads.
      id: "002_inbox",
      sql: "alter table saved.replies add column inbox text",
    },
  ],
};

export interface SavedReply {
  name: string;
  text: string;
  /** The inbox (channel) it belongs to; null: every inbox. */
  inbox: string | null;
  createdBy: string;
  createdAt: Date;
  updatedBy: string;
  updatedAt: Date;
}

type Row = Record<string, unknown>;
const date = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));
const toReply = (r: Row): SavedReply => ({
  name: String(r.name),
  text: String(r.text),
  inbox: r.inbox === null || r.inbox === undefined ? null : String(r.inbox),
  createdBy: String(r.created_by),
  createdAt: date(r.created_at),
  updatedBy: String(r.updated_by),
  updatedAt: date(r.updated_at),
});

/** A name as compared: without case, its spaces folded. */
export const replyKey = (name: string) => name.trim().replace(/\s+/g, " ").toLowerCase();

export class SavedReplies extends PerWorkspace {
  /** Every saved reply, by name. */
  async list(): Promise<SavedReply[]> {
    return this.rowsOf("select * from saved.replies where workspace = $1 order by name_key", toReply);
  }

  async get(name: string): Promise<SavedReply | undefined> {
    return this.rowOf(
      "select * from saved.replies where workspace = $1 and name_key = $2",
      toReply,
      replyKey(name),
    );
  }

  /** A new saved reply; false when one of that name exists already (nothing changed). */
  async add(
    name: string,
    text: string,
    by: string,
    now: Date,
    inbox: string | null = null,
  ): Promise<boolean> {
    return this.tookOne(
      `insert into saved.replies (workspace, name_key, name, text, created_by, created_at, updated_by, updated_at, inbox)
       values ($1, $2, $3, $4, $5, $6, $5, $6, $7) on conflict do nothing returning name`,
      [this.workspace, replyKey(name), storable(name.trim()), storable(text), by, now, inbox],
    );
  }

  /**
   * The replies offered in an inbox's thread (its own and those of every
   * inbox) whose name or text holds `query` (without case), by name; at most `limit`.
   */
  async search(inbox: string, query: string, limit = 50): Promise<SavedReply[]> {
    const { rows } = await this.db.query<Row>(
      `select * from saved.replies where workspace = $1 and (inbox is null or inbox = $2)
         and ($3 = '' or strpos(lower(name), lower($3)) > 0 or strpos(lower(text), lower($3)) > 0)
       order by name_key limit $4`,
      [this.workspace, inbox, query.trim(), limit],
    );
    return rows.map(toReply);
  }

  /** Its text replaced; the text it had, or undefined when there is none of that name. */
  async edit(
    name: string,
    text: string,
    by: string,
    now: Date,
    inbox: string | null = null,
  ): Promise<string | undefined> {
    const { rows } = await this.db.query<{ before: string }>(
      `update saved.replies r set text = $3, updated_by = $4, updated_at = $5, inbox = $6
       from saved.replies old
       where r.workspace = $1 and r.name_key = $2 and old.workspace = r.workspace and old.name_key = r.name_key
       returning old.text as before`,
      [this.workspace, replyKey(name), storable(text), by, now, inbox],
    );
    return rows[0] ? String(rows[0].before) : undefined;
  }

  /** Removed; the reply removed, or undefined when there was none of that name. */
  async remove(name: string): Promise<SavedReply | undefined> {
    const { rows } = await this.db.query<Row>(
      "delete from saved.replies where workspace = $1 and name_key = $2 returning *",
      [this.workspace, replyKey(name)],
    );
    return rows[0] ? toReply(rows[0]) : undefined;
  }
}
