// Pending contact imports of uploads shared in Slack (schema `imports`): one
// row per upload, keyed by the Slack file id and the content hash, so an
// event delivered twice previews once, and Import clicked twice imports once
// (the pending → running step is one conditional UPDATE). Only a live or
// successful import holds its file + hash: after a failure or a Discard the
// same upload shared again is previewed again (migration 002). An import an
// earlier process left running is "unknown" (settleInterruptedImports), and
// runs again only when a person clicks Try again (unknown → running, once).
import { randomUUID } from "node:crypto";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";

export const IMPORTS_MIGRATIONS: MigrationSet = {
  schema: "imports",
  migrations: [
    {
      id: "001_pending",
      sql: `
create table imports.pending (
  id uuid primary key,
  file_id text not null,
  content_hash text not null,
  file_name text not null,
  user_id text not null,
  channel text,
  message_ts text,
  thread_ts text,
  headers jsonb not null default '[]',
  mapping jsonb,
  group_id integer,
  new_group text,
  update_existing boolean not null default false,
  summary jsonb,
  state text not null default 'pending' check (state in ('pending', 'running', 'done', 'failed', 'discarded')),
  result jsonb,
  decided_by text,
  decided_at timestamptz,
  created_at timestamptz not null default now(),
  unique (file_id, content_hash)
)
`,
    },
    {
      id: "002_retry",
      sql: `
alter table imports.pending drop constraint if exists pending_file_id_content_hash_key;
create unique index pending_live_upload on imports.pending (file_id, content_hash)
  where state in ('pending', 'running', 'done');
alter table imports.pending drop constraint if exists pending_state_check;
alter table imports.pending add constraint pending_state_check
  check (state in ('pending', 'running', 'done', 'failed', 'discarded', 'unknown'));
`,
    },
    {
      // Per workspace: an upload is previewed once in its own workspace.
      id: "003_workspace",
      sql: `
alter table imports.pending add column workspace text not null default 'env'
;
alter table imports.pending alter column workspace drop default
;
drop index imports.pending_live_upload
;
create unique index pending_live_upload on imports.pending (workspace, file_id, content_hash)
  where state in ('pending', 'running', 'done')
`,
    },
  ],
};

export type ImportState = "pending" | "running" | "done" | "failed" | "discarded" | "unknown";

export interface PendingImport {
  id: string;
  workspace: WorkspaceId;
  fileId: string;
  contentHash: string;
  fileName: string;
  userId: string;
  channel?: string;
  messageTs?: string;
  threadTs?: string;
  headers: string[];
  mapping?: unknown;
  groupId?: number;
  newGroup?: string;
  updateExisting: boolean;
  summary?: unknown;
  state: ImportState;
  result?: unknown;
  decidedBy?: string;
  decidedAt?: Date;
}

type Row = Record<string, unknown>;
const toPending = (r: Row): PendingImport => ({
  id: String(r.id),
  workspace: String(r.workspace),
  fileId: String(r.file_id),
  contentHash: String(r.content_hash),
  fileName: String(r.file_name),
  userId: String(r.user_id),
  channel: (r.channel as string | null) ?? undefined,
  messageTs: (r.message_ts as string | null) ?? undefined,
  threadTs: (r.thread_ts as string | null) ?? undefined,
  headers: (r.headers as string[] | null) ?? [],
  mapping: r.mapping ?? undefined,
  groupId: (r.group_id as number | null) ?? undefined,
  newGroup: (r.new_group as string | null) ?? undefined,
  updateExisting: r.update_existing === true,
  summary: r.summary ?? undefined,
  state: r.state as ImportState,
  result: r.result ?? undefined,
  decidedBy: (r.decided_by as string | null) ?? undefined,
  decidedAt: (r.decided_at as Date | null) ?? undefined,
});

/** Pending imports of uploads: one row each, every change of state one conditional statement. */
export class ImportStore extends PerWorkspace {
  // An import of another workspace is not found here: every statement names the workspace.
  /** Stores a new pending import; undefined when this file with these bytes is pending, running or imported. */
  async create(
    p: Pick<PendingImport, "fileId" | "contentHash" | "fileName" | "userId" | "headers" | "updateExisting"> &
      Partial<Pick<PendingImport, "channel" | "threadTs" | "groupId" | "newGroup" | "summary" | "mapping">>,
  ): Promise<PendingImport | undefined> {
    const r = await dbOf(this).query(
      `insert into imports.pending (id, file_id, content_hash, file_name, user_id, channel, thread_ts, headers, mapping,
         group_id, new_group, update_existing, summary, workspace)
       values ($13, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $14)
       on conflict (workspace, file_id, content_hash) where state in ('pending', 'running', 'done') do nothing
       returning *`,
      [
        p.fileId,
        p.contentHash,
        p.fileName,
        p.userId,
        p.channel ?? null,
        p.threadTs ?? null,
        JSON.stringify(p.headers),
        p.mapping === undefined ? null : JSON.stringify(p.mapping),
        p.groupId ?? null,
        p.newGroup ?? null,
        p.updateExisting,
        p.summary === undefined ? null : JSON.stringify(p.summary),
        randomUUID(),
        this.workspace,
      ],
    );
    return r.rows[0] ? toPending(r.rows[0]) : undefined;
  }

  async get(id: string): Promise<PendingImport | undefined> {
    if (!/^[0-9a-f-]{36}$/i.test(id)) return undefined;
    const r = await dbOf(this).query("select * from imports.pending where id = $1 and workspace = $2", [
      id,
      this.workspace,
    ]);
    return r.rows[0] ? toPending(r.rows[0]) : undefined;
  }

  /** Changes the choices of a pending import; undefined when it is no longer pending. */
  async update(
    id: string,
    change: Partial<
      Pick<PendingImport, "channel" | "messageTs" | "mapping" | "summary" | "updateExisting">
    > & {
      group?: { id?: number; newName?: string };
    },
  ): Promise<PendingImport | undefined> {
    const sets: string[] = [];
    const params: unknown[] = [id, this.workspace];
    const set = (col: string, v: unknown) => {
      params.push(v);
      sets.push(`${col} = $${params.length}`);
    };
    if (change.channel !== undefined) set("channel", change.channel);
    if (change.messageTs !== undefined) set("message_ts", change.messageTs);
    if (change.mapping !== undefined) set("mapping", JSON.stringify(change.mapping));
    if (change.summary !== undefined) set("summary", JSON.stringify(change.summary));
    if (change.updateExisting !== undefined) set("update_existing", change.updateExisting);
    if (change.group !== undefined) {
      set("group_id", change.group.id ?? null);
      set("new_group", change.group.newName ?? null);
    }
    if (!sets.length) return this.get(id);
    // Where the preview message is can be recorded at any time (an Import click
    // may beat it); the user's choices only while the import is pending.
    const choices = change.mapping ?? change.summary ?? change.updateExisting ?? change.group;
    const r = await dbOf(this).query(
      `update imports.pending set ${sets.join(", ")} where id = $1 and workspace = $2${choices === undefined ? "" : " and state = 'pending'"} returning *`,
      params,
    );
    return r.rows[0] ? toPending(r.rows[0]) : undefined;
  }

  /**
   * pending → running, once: the caller that gets the row does the import.
   * `from: "unknown"`: Try again on an import whose outcome is unknown.
   */
  async claim(
    id: string,
    by: string,
    from: "pending" | "unknown" = "pending",
  ): Promise<PendingImport | undefined> {
    const r = await dbOf(this).query(
      `update imports.pending p set state = 'running', decided_by = $2, decided_at = now(), result = null
       where id = $1 and workspace = $4 and state = $3
         and not exists (select 1 from imports.pending o where o.workspace = p.workspace and o.file_id = p.file_id
           and o.content_hash = p.content_hash and o.id <> p.id and o.state in ('pending', 'running', 'done'))
       returning *`,
      [id, by, from, this.workspace],
    );
    return r.rows[0] ? toPending(r.rows[0]) : undefined;
  }

  async discard(id: string, by: string): Promise<PendingImport | undefined> {
    const r = await dbOf(this).query(
      `update imports.pending set state = 'discarded', decided_by = $2, decided_at = now()
       where id = $1 and workspace = $3 and state = 'pending' returning *`,
      [id, by, this.workspace],
    );
    return r.rows[0] ? toPending(r.rows[0]) : undefined;
  }

  async finish(id: string, state: "done" | "failed" | "unknown", result: unknown): Promise<void> {
    // Over "unknown" too: a process still running it when another one's start settled it knows the outcome.
    await dbOf(this).query(
      `update imports.pending set state = $2, result = $3
       where id = $1 and workspace = $4 and state in ('running', 'unknown')`,
      [id, state, JSON.stringify(result ?? null), this.workspace],
    );
  }

  /**
   * At start: imports an earlier process left running (killed mid-import) are
   * "unknown": some, all or none of their rows may have been imported. Returns
   * them, for their messages to say so. `ids`: only these (a graceful stop
   * settles the imports of its own process). This workspace's only.
   */
  async settleInterrupted(ids?: string[]): Promise<PendingImport[]> {
    if (ids && ids.length === 0) return [];
    const r = await dbOf(this).query(
      `update imports.pending set state = 'unknown', result = '{"interrupted":true}'
       where workspace = $2 and state = 'running' and ($1::uuid[] is null or id = any($1::uuid[])) returning *`,
      [ids ?? null, this.workspace],
    );
    return r.rows.map(toPending);
  }

  /** settleInterrupted of every workspace (the start): each import says its `workspace`. */
  static async settleInterruptedAll(db: Queryable): Promise<PendingImport[]> {
    const r = await db.query(
      `update imports.pending set state = 'unknown', result = '{"interrupted":true}'
       where state = 'running' returning *`,
    );
    return r.rows.map(toPending);
  }
}
