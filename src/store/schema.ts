// Switchboard's own tables, in schema `switchboard` (the sandbox keeps its
// data apart, in `sandbox`). Forward-only: add a migration, never edit an
// applied one. Migrated with the rest when the store opens (migrations.ts).
import type { MigrationSet } from "./migrate.ts";

export const SWITCHBOARD_MIGRATIONS: MigrationSet = {
  schema: "switchboard",
  migrations: [
    {
      id: "001_audit",
      sql: `
create table switchboard.audit (
  id bigserial primary key,
  at timestamptz not null default now(),
  actor text not null,
  actor_name text,
  via text not null,
  channel text,
  command text not null,
  operation text not null,
  ok boolean not null,
  status integer,
  answer jsonb
)
;
create index audit_at on switchboard.audit (at desc)
`,
    },
    {
      id: "002_confirmations",
      sql: `
create table switchboard.confirmations (
  id uuid primary key,
  actor text not null,
  command jsonb not null,
  state text not null default 'pending' check (state in ('pending', 'running', 'done', 'dismissed', 'failed')),
  result jsonb,
  decided_by text,
  decided_at timestamptz,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
)
`,
    },
    {
      // "unknown": a confirmed write whose outcome is not known (no answer, or
      // the process stopped while it ran). The check of 002 is the column's,
      // named by PostgreSQL's rule: <table>_<column>_check.
      id: "003_confirmation_unknown",
      sql: `
alter table switchboard.confirmations drop constraint confirmations_state_check
;
alter table switchboard.confirmations add constraint confirmations_state_check
  check (state in ('pending', 'running', 'done', 'dismissed', 'failed', 'unknown'))
`,
    },
    {
      // Where a Confirm click can be answered (its response_url, good 30 minutes, or the
      // person by DM) and whether it was: a process killed while it ran tells them at start.
      id: "004_confirmation_reply",
      sql: "alter table switchboard.confirmations add column reply jsonb",
    },
    {
      // Slash commands being carried out, with their response_url: a process killed
      // before answering leaves its rows, and the next start tells those people (commands-in-flight.ts).
      id: "005_commands_in_flight",
      sql: `
create table switchboard.commands_in_flight (
  id uuid primary key,
  owner text not null,
  user_id text not null,
  line text not null,
  response_url text,
  started_at timestamptz not null default now()
)
`,
    },
    {
      // Every record belongs to a workspace (docs/workspaces.md): the rows kept
      // before belong to the single-workspace mode's "env", and every insert names it.
      id: "006_workspace",
      sql: `
alter table switchboard.audit add column workspace text not null default 'env'
;
alter table switchboard.audit alter column workspace drop default
;
create index audit_workspace on switchboard.audit (workspace, id desc)
;
alter table switchboard.confirmations add column workspace text not null default 'env'
;
alter table switchboard.confirmations alter column workspace drop default
;
alter table switchboard.commands_in_flight add column workspace text not null default 'env'
;
alter table switchboard.commands_in_flight alter column workspace drop default
`,
    },
    {
      // How the person asked (typed, a button, a form): the audit shows a typed line only when one was typed.
      id: "007_audit_how",
      sql: `
alter table switchboard.audit add column how text
`,
    },
  ],
};
