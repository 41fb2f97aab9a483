// Schema `inbox`'s migrations (docs/inbox.md), migrated once when the store
// opens (src/store/migrations.ts).
import type { MigrationSet } from "../migrate.ts";

export const INBOX_MIGRATIONS: MigrationSet = {
  schema: "inbox",
  migrations: [
    {
      id: "001_inbox",
      sql: `
create table inbox.inboxes (
  channel text primary key,
  filter text not null check (filter in ('all', 'need_human')),
  created_by text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  activity_cursor timestamptz,
  primed boolean not null default false,
  failures integer not null default 0,
  lease_owner text,
  lease_until timestamptz
)
;
create table inbox.threads (
  channel text not null,
  chat_user_id integer not null,
  conversation_id integer,
  thread_ts text,
  last_activity timestamptz,
  last_message_at timestamptz,
  last_direction text,
  last_text text,
  card jsonb,
  created_at timestamptz not null,
  primary key (channel, chat_user_id)
)
;
create unique index threads_by_ts on inbox.threads (channel, thread_ts) where thread_ts is not null
;
create table inbox.mirrored (
  channel text not null,
  message_id bigint not null,
  chat_user_id integer not null,
  direction text,
  ts text,
  mirrored_at timestamptz not null,
  primary key (channel, message_id)
)
;
create table inbox.replies (
  channel text not null,
  message_ts text not null,
  chat_user_id integer not null,
  user_id text not null,
  state text not null check (state in ('sending', 'sent', 'failed', 'unknown')),
  api_message_id bigint,
  created_at timestamptz not null,
  primary key (channel, message_ts)
)
`,
    },
    {
      // A burst read over several polls (the list's resume page, a
      // thread's history read oldest part first), the card claimed before it is
      // posted, claims that never became a post found again after a crash, and
      // the text of a reply a crash interrupted, to tell its writer.
      id: "002_inbox_reliability",
      sql: `
alter table inbox.inboxes add column list_page integer, add column activity_top timestamptz
;
alter table inbox.threads add column card_claimed_by text, add column card_claimed_at timestamptz,
  add column behind boolean not null default false, add column history_before timestamptz
;
alter table inbox.mirrored add column claimed_by text
;
alter table inbox.replies add column text text
`,
    },
    {
      // The thread as a desk. Its state (open or resolved; "waiting
      // for the customer" is an open one answered last), who has it, and the
      // customer's last message (the 24-hour window), kept by Switchboard.
      id: "003_desk",
      sql: `
alter table inbox.threads add column desk_state text not null default 'open' check (desk_state in ('open', 'resolved')),
  add column assignee text, add column desk_changed_by text, add column desk_changed_at timestamptz,
  add column customer_wrote_at timestamptz, add column window_closed_shown boolean not null default false
`,
    },
    {
      // Routing: an inbox takes some chat types (empty: every one) and may
      // make every thread reply a note; a conversation is mirrored into one
      // inbox (its route, one row per chat user), first the one its oldest
      // thread is in.
      id: "004_routing",
      sql: `
alter table inbox.inboxes add column types text[] not null default '{}',
  add column replies text not null default 'send' check (replies in ('send', 'notes'))
;
create table inbox.routes (
  chat_user_id integer primary key,
  channel text not null,
  routed_at timestamptz not null
)
;
insert into inbox.routes (chat_user_id, channel, routed_at)
  select distinct on (chat_user_id) chat_user_id, channel, created_at from inbox.threads
  where thread_ts is not null or card_claimed_by is not null
  order by chat_user_id, created_at, channel
`,
    },
    {
      // Per workspace: an inbox by (workspace, channel), a conversation by its
      // chat user of that workspace's API account. The rows kept before belong to "env".
      id: "005_workspace",
      sql: `
alter table inbox.inboxes add column workspace text not null default 'env'
;
alter table inbox.inboxes alter column workspace drop default
;
alter table inbox.inboxes drop constraint inboxes_pkey, add primary key (workspace, channel)
;
alter table inbox.threads add column workspace text not null default 'env'
;
alter table inbox.threads alter column workspace drop default
;
alter table inbox.threads drop constraint threads_pkey, add primary key (workspace, channel, chat_user_id)
;
drop index inbox.threads_by_ts
;
create unique index threads_by_ts on inbox.threads (workspace, channel, thread_ts) where thread_ts is not null
;
alter table inbox.mirrored add column workspace text not null default 'env'
;
alter table inbox.mirrored alter column workspace drop default
;
alter table inbox.mirrored drop constraint mirrored_pkey, add primary key (workspace, channel, message_id)
;
alter table inbox.replies add column workspace text not null default 'env'
;
alter table inbox.replies alter column workspace drop default
;
alter table inbox.replies drop constraint replies_pkey, add primary key (workspace, channel, message_ts)
;
alter table inbox.routes add column workspace text not null default 'env'
;
alter table inbox.routes alter column workspace drop default
;
alter table inbox.routes drop constraint routes_pkey, add primary key (workspace, chat_user_id)
`,
    },
    {
      // Issue 29 §3 and §4: a conversation snoozed (until a time, or until
      // the customer writes; woken by the one statement that clears it) and
      // its rating after Resolve (the template sent, the answers it offers,
      // the one recorded); an inbox's rating template.
      id: "006_snooze_rating",
      sql: `
alter table inbox.threads add column snoozed_until timestamptz,
  add column snooze_until_reply boolean not null default false, add column snoozed_by text,
  add column rating_asked_at timestamptz, add column rating_options text[] not null default '{}',
  add column rating text, add column rated_at timestamptz
;
alter table inbox.inboxes add column rating_template text
`,
    },
    {
      // Reply targets and the desk's report (issue 29 §2, §5): an inbox's
      // targets (its own table: the inbox's other settings stay as they are);
      // a clock per customer message that waits for a reply (its due time,
      // its warning and breach each claimed once, how it ended); the state
      // changes the report counts (resolved, reopened).
      id: "007_reply_targets",
      sql: `
create table inbox.targets (
  workspace text not null,
  channel text not null,
  first_secs integer,
  next_secs integer,
  here boolean not null default false,
  set_by text not null,
  set_at timestamptz not null,
  primary key (workspace, channel)
)
;
create table inbox.clocks (
  workspace text not null,
  channel text not null,
  chat_user_id integer not null,
  started_at timestamptz not null,
  kind text not null check (kind in ('first', 'next')),
  target_secs integer,
  warn_at timestamptz,
  due_at timestamptz,
  warned_at timestamptz,
  breached_at timestamptz,
  ended_at timestamptz,
  ended_by text check (ended_by in ('reply', 'resolve', 'snooze', 'off')),
  replied_by text,
  reply_secs integer,
  assignee text,
  primary key (workspace, channel, chat_user_id, started_at)
)
;
create unique index clocks_running on inbox.clocks (workspace, channel, chat_user_id) where ended_at is null
;
create index clocks_due on inbox.clocks (workspace, channel, due_at) where ended_at is null
;
create table inbox.desk_events (
  workspace text not null,
  channel text not null,
  chat_user_id integer not null,
  kind text not null check (kind in ('resolved', 'reopened')),
  at timestamptz not null,
  by_user text,
  assignee text
)
;
create index desk_events_at on inbox.desk_events (workspace, channel, at)
`,
    },
    {
      // The desk's report counts snoozes and ratings too (issue 29 §5): a
      // snooze set and a rating recorded are desk events, the rating with
      // its words.
      id: "008_desk_events_snoozed_rated",
      sql: `
alter table inbox.desk_events drop constraint if exists desk_events_kind_check,
  add constraint desk_events_kind_check check (kind in ('resolved', 'reopened', 'snoozed', 'rated')),
  add column rating text
`,
    },
    {
      // The away message (issue 40 §1): an inbox may turn it off for itself
      // (not through `inbox on`, which leaves it as it is); one row per
      // conversation and closed period, claimed before the send (at most
      // once across restarts and replicas), its outcome kept; when the team
      // last wrote to the customer (a conversation answered in the last hour gets none).
      id: "009_away",
      sql: `
alter table inbox.inboxes add column away boolean not null default true
;
alter table inbox.threads add column team_wrote_at timestamptz
;
create table inbox.away_sends (
  workspace text not null,
  conversation_id bigint not null,
  period_start timestamptz not null,
  channel text not null,
  chat_user_id integer not null,
  claimed_by text,
  claimed_at timestamptz not null,
  state text not null default 'sending' check (state in ('sending', 'sent', 'unknown', 'refused')),
  message_id bigint,
  settled_at timestamptz,
  primary key (workspace, conversation_id, period_start)
)
`,
    },
  ],
};
