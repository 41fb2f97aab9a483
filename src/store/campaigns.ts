import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";
import { storable } from "./text.ts";

export const CAMPAIGNS_MIGRATIONS: MigrationSet = {
  schema: "campaigns",
  migrations: [
    {
      id: "001_audiences",
      sql: `
create table campaigns.audiences (
  workspace text not null,
  campaign_id integer not null,
  name text not null,
  group_ids jsonb not null,
  contact_ids jsonb not null,
  recorded_at timestamptz not null default now(),
  started_at timestamptz,
  primary key (workspace, campaign_id)
)
;
create index audiences_started on campaigns.audiences (workspace, started_at)
`,
    },
    {
      // `campaign <id> test <phone>`: the number a person tests on, for next time.
      id: "002_test_phones",
      sql: `
create table campaigns.test_phones (
  workspace text not null,
  person text not null,
  phone text not null,
  updated_at timestamptz not null default now(),
  primary key (workspace, person)
)
`,
    },
    {
      // Whether Switchboard created the campaign (its audience then known, empty included), not only started it.
      id: "003_created",
      sql: "alter table campaigns.audiences add column created boolean",
    },
    {
      // Issue 37 §4: every campaign card posted in a channel, to be finished when a newer one takes its place.
      id: "004_cards",
      sql: `
create table campaigns.cards (
  workspace text not null,
  campaign_id integer not null,
  channel text not null,
  ts text not null,
  role text not null,
  state text not null default 'open' check (state in ('open', 'finished')),
  posted_by text,
  created_at timestamptz not null default now(),
  finished_at timestamptz,
  primary key (workspace, channel, ts)
)
;
create index cards_open on campaigns.cards (workspace, campaign_id) where state = 'open'
`,
    },
  ],
};

/** A campaign's audience as Switchboard chose it. */
export interface Audience {
  groupIds: number[];
  contactIds: number[];
}

export interface KnownCampaign extends Audience {
  campaignId: number;
  name: string;
  startedAt?: Date;
  /** Switchboard created it: the audience is the one it was given, empty included. */
  created: boolean;
}

type Row = Record<string, unknown>;
const ids = (v: unknown): number[] => {
  const list = typeof v === "string" ? JSON.parse(v) : v;
  return Array.isArray(list) ? list.map(Number).filter((n) => Number.isInteger(n) && n > 0) : [];
};
const toCampaign = (r: Row): KnownCampaign => ({
  campaignId: Number(r.campaign_id),
  name: String(r.name),
  groupIds: ids(r.group_ids),
  contactIds: ids(r.contact_ids),
  startedAt: r.started_at ? new Date(r.started_at as string) : undefined,
  created: r.created === true,
});

/** The audiences of the campaigns Switchboard created or sent, in one workspace. */
export class CampaignAudiences extends PerWorkspace {
  /**
   * A campaign Switchboard created, with the audience it was given (again:
   * replaced). Takes a create body as it is (`groupIds`, `contactIds`, ids).
   */
  async record(
    campaignId: number,
    name: string,
    audience: { groupIds?: readonly unknown[]; contactIds?: readonly unknown[] },
  ): Promise<void> {
    await dbOf(this).query(
      `insert into campaigns.audiences (workspace, campaign_id, name, group_ids, contact_ids, created)
       values ($1, $2, $3, $4::jsonb, $5::jsonb, true)
       on conflict (workspace, campaign_id) do update
         set name = excluded.name, group_ids = excluded.group_ids, contact_ids = excluded.contact_ids, created = true`,
      [
        this.workspace,
        campaignId,
        storable(name),
        JSON.stringify([...new Set(ids(audience.groupIds ?? []))]),
        JSON.stringify([...new Set(ids(audience.contactIds ?? []))]),
      ],
    );
  }

  /**
   * A campaign started through Switchboard at `at`. `audience`: as its record
   * showed it, kept for a campaign Switchboard did not create (the one it
   * recorded wins otherwise).
   */
  async started(campaignId: number, name: string, at: Date, audience?: Audience): Promise<void> {
    await dbOf(this).query(
      `insert into campaigns.audiences (workspace, campaign_id, name, group_ids, contact_ids, started_at)
       values ($1, $2, $3, $4::jsonb, $5::jsonb, $6)
       on conflict (workspace, campaign_id) do update set started_at = excluded.started_at`,
      [
        this.workspace,
        campaignId,
        storable(name),
        JSON.stringify(audience?.groupIds ?? []),
        JSON.stringify(audience?.contactIds ?? []),
        at,
      ],
    );
  }

  async get(campaignId: number): Promise<KnownCampaign | undefined> {
    const r = await dbOf(this).query(
      "select * from campaigns.audiences where workspace = $1 and campaign_id = $2",
      [this.workspace, campaignId],
    );
    return r.rows[0] ? toCampaign(r.rows[0] as Row) : undefined;
  }

  /** Campaigns started at or after `since`, newest first, but `except`. */
  async startedSince(since: Date, except?: number): Promise<KnownCampaign[]> {
    const r = await dbOf(this).query(
      `select * from campaigns.audiences
       where workspace = $1 and started_at >= $2 and campaign_id <> $3
       order by started_at desc limit 50`,
      [this.workspace, since, except ?? -1],
    );
    return r.rows.map((row) => toCampaign(row as Row));
  }
}

/** The phone number each person tests campaigns on, in one workspace. */
export class TestPhones extends PerWorkspace {
  async get(person: string): Promise<string | undefined> {
    const r = await dbOf(this).query<{ phone: string }>(
      "select phone from campaigns.test_phones where workspace = $1 and person = $2",
      [this.workspace, person],
    );
    return r.rows[0]?.phone;
  }

  async set(person: string, phone: string): Promise<void> {
    await dbOf(this).query(
      `insert into campaigns.test_phones (workspace, person, phone) values ($1, $2, $3)
       on conflict (workspace, person) do update set phone = excluded.phone, updated_at = now()`,
      [this.workspace, storable(person), storable(phone)],
    );
  }
}
