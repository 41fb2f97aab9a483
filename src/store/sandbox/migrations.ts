// Schema `sandbox`: the data of the embedded stand-in of the messaging API.
// Until 004 one organization per database and rows carried no organization
// id; since 004 every row names its organization (`org_id`) and the keys are
// kept, hashed, per organization (docs/sandbox.md, "Several organizations").
// Statements are separated by a line holding only `;`.
import type { MigrationSet } from "../migrate.ts";

const init = `
create table sandbox.organizations (
  id serial primary key,
  name text not null,
  plan jsonb not null,
  created_at timestamptz not null
)
;
create table sandbox.channels (
  id integer primary key,
  type text not null,
  name text not null,
  phone text,
  created_at timestamptz not null
)
;
create table sandbox.contacts (
  id serial primary key,
  phone text not null,
  first_name text,
  last_name text,
  email text,
  custom_fields jsonb not null default '{}',
  opted_out boolean not null default false,
  opted_out_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz,
  search_text text generated always as (
    lower(coalesce(first_name, '') || ' ' || coalesce(last_name, '') || ' ' || phone || ' ' || coalesce(email, ''))
  ) stored
)
;
create unique index contacts_phone_live on sandbox.contacts (phone) where deleted_at is null
;
do $$
begin
  create extension if not exists pg_trgm;
exception when others then
  raise notice 'pg_trgm is not available: contact search scans the table';
end
$$
;
do $$
begin
  if exists (select 1 from pg_extension where extname = 'pg_trgm') then
    execute 'create index contacts_search_trgm on sandbox.contacts using gin (search_text gin_trgm_ops) where deleted_at is null';
  end if;
end
$$
;
create table sandbox.contact_fields (
  id serial primary key,
  key text not null,
  label text not null,
  type text not null,
  position integer not null default 0,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
)
;
create unique index contact_fields_key_live on sandbox.contact_fields (key) where deleted_at is null
;
create table sandbox.groups (
  id serial primary key,
  name text not null,
  description text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
)
;
create table sandbox.group_members (
  group_id integer not null references sandbox.groups (id),
  contact_id integer not null references sandbox.contacts (id),
  added_at timestamptz not null,
  primary key (group_id, contact_id)
)
;
create index group_members_contact on sandbox.group_members (contact_id)
;
create table sandbox.tags (
  id serial primary key,
  name text not null,
  color text not null,
  description text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
)
;
create unique index tags_name_live on sandbox.tags (lower(name)) where deleted_at is null
;
create table sandbox.templates (
  id serial primary key,
  channel_id integer not null references sandbox.channels (id),
  name text not null,
  language text not null,
  category text not null,
  body_text text not null,
  body_examples jsonb,
  footer_text text,
  buttons jsonb,
  status text not null,
  rejection_reason text,
  approve_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  deleted_at timestamptz
)
;
create unique index templates_name_live on sandbox.templates (channel_id, name, language) where deleted_at is null
;
create index templates_pending on sandbox.templates (approve_at) where status = 'pending' and deleted_at is null
;
create table sandbox.chat_users (
  id serial primary key,
  type text not null,
  channel_id integer references sandbox.channels (id),
  contact_id integer references sandbox.contacts (id),
  name text,
  email text,
  phone text,
  address text,
  avatar text,
  custom_fields jsonb not null default '{}',
  need_human boolean not null default false,
  unread_count integer not null default 0,
  last_login timestamptz,
  last_activity timestamptz,
  last_inbound_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
)
;
create index chat_users_phone on sandbox.chat_users (phone)
;
create index chat_users_activity on sandbox.chat_users (last_activity)
;
create table sandbox.conversations (
  id serial primary key,
  chat_user_id integer not null references sandbox.chat_users (id),
  channel_id integer not null references sandbox.channels (id),
  tag_id integer references sandbox.tags (id),
  status text not null default 'open',
  created_at timestamptz not null,
  last_message_at timestamptz
)
;
create index conversations_chat_user on sandbox.conversations (chat_user_id)
;
create table sandbox.messages (
  id serial primary key,
  conversation_id integer not null references sandbox.conversations (id),
  chat_user_id integer not null references sandbox.chat_users (id),
  channel_id integer not null references sandbox.channels (id),
  direction text not null,
  type text not null,
  text text,
  template jsonb,
  media_url text,
  metadata jsonb,
  status text not null,
  error text,
  created_at timestamptz not null,
  updated_at timestamptz not null
)
;
create index messages_conversation on sandbox.messages (conversation_id, created_at desc, id desc)
;
create index messages_chat_user on sandbox.messages (chat_user_id, created_at desc)
;
create index messages_in_flight on sandbox.messages (status) where direction = 'outbound' and status in ('queued', 'sent', 'delivered')
;
create table sandbox.campaigns (
  id serial primary key,
  name text not null,
  integration_id integer not null references sandbox.channels (id),
  template_id integer not null references sandbox.templates (id),
  conversation_tag_id integer references sandbox.tags (id),
  group_ids integer[] not null default '{}',
  contact_ids integer[] not null default '{}',
  template_parameters jsonb,
  scheduled_at timestamptz,
  status text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  started_at timestamptz,
  completed_at timestamptz,
  cancelled_at timestamptz
)
;
create index campaigns_status on sandbox.campaigns (status)
;
create table sandbox.campaign_recipients (
  id serial primary key,
  campaign_id integer not null references sandbox.campaigns (id),
  contact_id integer not null references sandbox.contacts (id),
  phone text not null,
  status text not null,
  error text,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  sent_at timestamptz,
  delivered_at timestamptz,
  read_at timestamptz
)
;
create index recipients_campaign_status on sandbox.campaign_recipients (campaign_id, status, id)
;
create index recipients_campaign on sandbox.campaign_recipients (campaign_id, id)
;
create index recipients_in_flight on sandbox.campaign_recipients (status) where status in ('sending', 'sent', 'delivered')
`;

// Campaign sends write conversation messages (docs/sandbox.md): each message
// names its recipient, whose status it follows, and the tick finds the chat
// user of each recipient by contact or phone.
const campaignMessages = `
alter table sandbox.messages add column campaign_recipient_id integer references sandbox.campaign_recipients (id)
;
create unique index messages_campaign_recipient on sandbox.messages (campaign_recipient_id) where campaign_recipient_id is not null
;
create index chat_users_contact on sandbox.chat_users (contact_id)
`;

// Several organizations in one database (docs/sandbox.md, "Several
// organizations"). Every table gets `org_id`; the rows already there belong to
// the first organization (one is made when rows exist without any). The
// column's default is the first organization, so SQL written for one
// organization (tests and benches that insert rows by hand) keeps its meaning;
// the sandbox's own store always names the organization. Ids stay global
// sequences (channels get one too: a new organization's channels are 3 and 4…);
// what is unique today becomes unique per organization. Keys live in
// `api_keys` as SHA-256 hashes, never in the clear.
const organizations = `
create function sandbox.first_org_id() returns integer language sql stable as 'select min(id) from sandbox.organizations'
;
insert into sandbox.organizations (name, plan, created_at)
select 'Acme Retail (sandbox)', '{"name":"Business","monthlyMessages":100000,"contacts":250000,"channels":3}', now()
where not exists (select 1 from sandbox.organizations)
  and (exists (select 1 from sandbox.channels) or exists (select 1 from sandbox.contacts)
    or exists (select 1 from sandbox.contact_fields) or exists (select 1 from sandbox.groups)
    or exists (select 1 from sandbox.tags) or exists (select 1 from sandbox.chat_users))
;
alter table sandbox.channels add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.contacts add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.contact_fields add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.groups add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.group_members add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.tags add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.templates add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.chat_users add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.conversations add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.messages add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.campaigns add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
alter table sandbox.campaign_recipients add column org_id integer not null default sandbox.first_org_id() references sandbox.organizations (id)
;
create sequence sandbox.channels_id_seq owned by sandbox.channels.id
;
select setval('sandbox.channels_id_seq', coalesce((select max(id) from sandbox.channels), 0) + 1, false)
;
alter table sandbox.channels alter column id set default nextval('sandbox.channels_id_seq')
;
create index channels_org on sandbox.channels (org_id, id)
;
drop index sandbox.contacts_phone_live
;
create unique index contacts_phone_live on sandbox.contacts (org_id, phone) where deleted_at is null
;
create index contacts_org on sandbox.contacts (org_id, id) where deleted_at is null
;
drop index sandbox.contact_fields_key_live
;
create unique index contact_fields_key_live on sandbox.contact_fields (org_id, key) where deleted_at is null
;
create index groups_org on sandbox.groups (org_id) where deleted_at is null
;
drop index sandbox.tags_name_live
;
create unique index tags_name_live on sandbox.tags (org_id, lower(name)) where deleted_at is null
;
drop index sandbox.templates_name_live
;
create unique index templates_name_live on sandbox.templates (org_id, channel_id, name, language) where deleted_at is null
;
create index templates_org on sandbox.templates (org_id, id) where deleted_at is null
;
drop index sandbox.chat_users_phone
;
create index chat_users_phone on sandbox.chat_users (org_id, phone)
;
drop index sandbox.chat_users_activity
;
create index chat_users_activity on sandbox.chat_users (org_id, last_activity)
;
create index campaigns_org on sandbox.campaigns (org_id, id)
;
create table sandbox.api_keys (
  id serial primary key,
  org_id integer not null references sandbox.organizations (id),
  name text not null,
  key_hash text not null unique,
  scopes text[] not null,
  from_start boolean not null default false,
  created_at timestamptz not null
)
;
create index api_keys_org on sandbox.api_keys (org_id)
`;

/** The sandbox's own list, migrated by its start (src/sandbox/index.ts), also when it runs alone. */
export const SANDBOX_MIGRATIONS: MigrationSet = {
  schema: "sandbox",
  migrations: [
    { id: "001_init", sql: init },
    { id: "002_campaign_messages", sql: campaignMessages },
    { id: "003_message_file_name", sql: "alter table sandbox.messages add column file_name text" },
    { id: "004_organizations", sql: organizations },
  ],
};
