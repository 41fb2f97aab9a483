// Schema `sends`: the messages Switchboard itself sent (the send form, `/sb
// send`, an inbox thread reply), by the id `POST /messages` answered with, and
// who sent them. The inbox labels such a message in its thread by who sent it
// ("Sent by @ana with Switchboard") instead of "sent from elsewhere"
// (docs/inbox.md). One row per workspace and message id; its own migration list.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";

export const OWN_SENDS_MIGRATIONS: MigrationSet = {
  schema: "sends",
  migrations: [
    {
      id: "001_own",
      sql: `
create table sends.own (
  workspace text not null,
  message_id bigint not null,
  user_id text not null,
  via text not null check (via in ('form', 'command', 'reply')),
  sent_at timestamptz not null,
  primary key (workspace, message_id)
)
`,
    },
  ],
};

/** How Switchboard sent it: the send form, a typed `/sb send`, a thread reply. */
export type OwnSendVia = "form" | "command" | "reply";

export interface OwnSend {
  messageId: number;
  /** Slack user id (U…), or `shell` for the console. */
  userId: string;
  via: OwnSendVia;
  sentAt: Date;
}

export class OwnSends {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
  }

  /** Records a message Switchboard sent (the first record of an id stays). */
  async record(messageId: number, userId: string, via: OwnSendVia, now: Date = new Date()): Promise<void> {
    await this.db.query(
      `insert into sends.own (workspace, message_id, user_id, via, sent_at)
       values ($1, $2, $3, $4, $5) on conflict do nothing`,
      [this.workspace, messageId, userId, via, now],
    );
  }

  /** Who sent the message through Switchboard; undefined when it was sent from elsewhere. */
  async of(messageId: number): Promise<OwnSend | undefined> {
    const { rows } = await this.db.query<Record<string, unknown>>(
      "select * from sends.own where workspace = $1 and message_id = $2",
      [this.workspace, messageId],
    );
    const r = rows[0];
    if (!r) return undefined;
    return {
      messageId: Number(r.message_id),
      userId: String(r.user_id),
      via: r.via as OwnSendVia,
      sentAt: r.sent_at instanceof Date ? r.sent_at : new Date(String(r.sent_at)),
    };
  }
}
