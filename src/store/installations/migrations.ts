// Schema `workspaces`'s migrations (docs/workspaces.md), migrated once when
// the store opens (src/store/migrations.ts).
import type { MigrationSet } from "../migrate.ts";

export const WORKSPACES_MIGRATIONS: MigrationSet = {
  schema: "workspaces",
  migrations: [
    {
      id: "001_installations",
      sql: `
        create table workspaces.installations (
          enterprise_id text not null default '',
          team_id text not null default '',
          is_enterprise_install boolean not null,
          enterprise_name text,
          enterprise_url text,
          team_name text,
          app_id text,
          installer_user_id text not null,
          bot_id text,
          bot_user_id text,
          bot_scopes text[],
          bot_token text,
          bot_refresh_token text,
          bot_token_expires_at timestamptz,
          user_scopes text[],
          user_token text,
          user_refresh_token text,
          user_token_expires_at timestamptz,
          metadata text,
          installed_at timestamptz not null,
          updated_at timestamptz not null default now(),
          primary key (enterprise_id, team_id, is_enterprise_install),
          check (is_enterprise_install = (team_id = '')),
          check (not is_enterprise_install or enterprise_id <> '')
        );
        create unique index installations_team on workspaces.installations (team_id) where not is_enterprise_install;
        create table workspaces.connections (
          team_id text primary key,
          enterprise_id text not null default '',
          api_key text not null,
          organization_name text not null,
          key_scopes text[],
          connected_by text not null,
          connected_at timestamptz not null
        );
        create index connections_enterprise on workspaces.connections (enterprise_id);
        create table workspaces.departures (
          enterprise_id text not null default '',
          team_id text not null default '',
          is_enterprise_install boolean not null,
          uninstalled_at timestamptz not null,
          primary key (enterprise_id, team_id, is_enterprise_install)
        );`,
    },
    {
      // Settings a workspace changed from Slack (src/store/workspace-settings.ts), one row per setting.
      id: "002_settings",
      sql: `
        create table workspaces.settings (
          team_id text not null,
          name text not null,
          value jsonb not null,
          changed_by text not null,
          changed_at timestamptz not null,
          primary key (team_id, name)
        );`,
    },
    {
      // An org-wide install's departure names the workspaces whose records go after the retention.
      id: "003_departure_teams",
      sql: "alter table workspaces.departures add column teams text[] not null default '{}'",
    },
  ],
};
