// Schema `sends`: the messages Switchboard itself sent (the send form, `/sb
// send`, an inbox thread reply, a campaign's test), by the id `POST /messages`
// answered with, and who sent them. The inbox labels such a message in its
// thread by who sent it ("Sent by @ana with Switchboard", "Test of *Spring
// sale* by @ana") instead of "sent from elsewhere" (docs/inbox.md). One row
// per workspace and message id; its own migration list. TestSends: the tests
// of campaigns a person sent in the last hour, counted in one statement so the
// limit holds across replicas (issue 37 §5).
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { PerWorkspace } from "./per-workspace.ts";
import { storable } from "./text.ts";

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
    {
      // A campaign's test (issue 37 §5): shown in the thread as a test of that campaign; the tests a person sent lately.
      id: "002_tests",
      sql: `
alter table sends.own drop constraint own_via_check;
alter table sends.own add constraint own_via_check check (via in ('form', 'command', 'reply', 'test'));
alter table sends.own add column campaign_id bigint;
alter table sends.own add column campaign_name text;
create table sends.tests (
  workspace text not null,
  person text not null,
  sent_at timestamptz[] not null,
  primary key (workspace, person)
);
`,
    },
    {
      // The away message (issue 40 §1): Switchboard's own, shown in the thread as "Away message sent".
      id: "003_away",
      sql: `
alter table sends.own drop constraint own_via_check;
alter table sends.own add constraint own_via_check check (via in ('form', 'command', 'reply', 'test', 'away'));
`,
    },
  ],
};

/** How Switchboard sent it: the send form, a typed `/sb send`, a thread reply, a campaign's test, the away message. */
export type OwnSendVia = "form" | "command" | "reply" | "test" | "away";

/** The campaign a test was of. */
export interface TestedCampaign {
  id: number;
  name: string;
}

export interface OwnSend {
  messageId: number;
  /** Slack user id (U…), or `shell` for the console. */
  userId: string;
  via: OwnSendVia;
  sentAt: Date;
  /** A test's campaign (via `test`). */
  campaign?: TestedCampaign;
}

export class OwnSends extends PerWorkspace {
  readonly #db: Queryable;

  constructor(db: Queryable, workspace: WorkspaceId) {
    super(db, workspace);
    this.#db = db;
  }

  /** Records a message Switchboard sent (the first record of an id stays); a test names its campaign. */
  async record(
    messageId: number,
    userId: string,
    via: OwnSendVia,
    now: Date = new Date(),
    campaign?: TestedCampaign,
  ): Promise<void> {
    await this.#db.query(
      `insert into sends.own (workspace, message_id, user_id, via, sent_at, campaign_id, campaign_name)
       values ($1, $2, $3, $4, $5, $6, $7) on conflict do nothing`,
      [
        this.workspace,
        messageId,
        userId,
        via,
        now,
        campaign?.id ?? null,
        campaign ? storable(campaign.name) : null,
      ],
    );
  }

  /** Who sent the message through Switchboard; undefined when it was sent from elsewhere. */
  async of(messageId: number): Promise<OwnSend | undefined> {
    const { rows } = await this.#db.query<Record<string, unknown>>(
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
      ...(r.campaign_id != null
        ? { campaign: { id: Number(r.campaign_id), name: String(r.campaign_name ?? "") } }
        : {}),
    };
  }
}

/** Whether a person may send a test now: yes, or how many they sent within the window and when the next may go. */
export type TestTurn = { ok: true } | { ok: false; sent: number; nextAt: Date };

/**
 * The tests of campaigns each person sent, in one workspace: at most `limit`
 * within `windowMs`. A turn is taken before the send in one statement (the
 * person's row locked by the upsert, the count read from its latest version),
 * so two replicas never both take the last one; given back when the send
 * surely failed.
 */
export class TestSends extends PerWorkspace {
  readonly #db: Queryable;
  private readonly own: OwnSends;

  constructor(db: Queryable, workspace: WorkspaceId) {
    super(db, workspace);
    this.#db = db;
    this.own = new OwnSends(db, workspace);
  }

  /** Whether `person` may send a test at `now`, without taking it (a prompt before the send). */
  async peek(person: string, now: Date, limit: number, windowMs: number): Promise<TestTurn> {
    const r = await this.#db.query<{ sent_at: Date[] }>(
      "select sent_at from sends.tests where workspace = $1 and person = $2",
      [this.workspace, person],
    );
    return turnOf(r.rows[0]?.sent_at ?? [], now, limit, windowMs);
  }

  /** Takes a turn for a test at `now` (the times older than the window dropped), or says when the next may go. */
  async take(person: string, now: Date, limit: number, windowMs: number): Promise<TestTurn> {
    const since = new Date(now.getTime() - windowMs);
    const r = await this.#db.query(
      `insert into sends.tests as t (workspace, person, sent_at) values ($1, $2, array[$3::timestamptz])
       on conflict (workspace, person) do update
         set sent_at = array(select s from unnest(t.sent_at) s where s > $4::timestamptz order by s) || $3::timestamptz
         where (select count(*) from unnest(t.sent_at) s where s > $4::timestamptz) < $5
       returning person`,
      [this.workspace, storable(person), now, since, limit],
    );
    if (r.rowCount > 0) return { ok: true };
    return this.peek(person, now, limit, windowMs);
  }

  /** Gives back the turn taken at `at`: the test was surely not sent. */
  async giveBack(person: string, at: Date): Promise<void> {
    await this.#db.query(
      "update sends.tests set sent_at = array_remove(sent_at, $3::timestamptz) where workspace = $1 and person = $2",
      [this.workspace, storable(person), at],
    );
  }

  /** Records the test's message as Switchboard's own send, of its campaign. */
  async sent(messageId: number, person: string, campaign: TestedCampaign, now: Date): Promise<void> {
    await this.own.record(messageId, person, "test", now, campaign);
  }
}

function turnOf(times: Date[], now: Date, limit: number, windowMs: number): TestTurn {
  const since = now.getTime() - windowMs;
  const recent = times
    .map((t) => (t instanceof Date ? t : new Date(String(t))).getTime())
    .filter((t) => t > since)
    .sort((a, b) => a - b);
  if (recent.length < limit) return { ok: true };
  // The next may go once enough of the oldest have left the window.
  return { ok: false, sent: recent.length, nextAt: new Date(recent[recent.length - limit]! + windowMs) };
}
