// Schema `media`: the files a writer sends to a customer from an inbox thread
// (docs/inbox.md, "Pictures and files"). The API takes a `mediaUrl`, so
// Switchboard serves each file itself at PUBLIC_URL/media/<id> until it
// expires. The bytes are kept in the database, in chunks, so every replica
// serves every file (PostgreSQL with DATABASE_URL; the embedded PGlite keeps
// its database in DATA_DIR, so there the files are in DATA_DIR too). A file is
// served only once all its chunks are in; expired files are removed at the
// next file stored, when one is asked for, and by the inbox runtime's hourly sweep.
import { randomBytes } from "node:crypto";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Db, Queryable } from "./db.ts";
import type { MigrationSet } from "./migrate.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";
import { storable } from "./text.ts";

export const MEDIA_MIGRATIONS: MigrationSet = {
  schema: "media",
  migrations: [
    {
      id: "001_media",
      sql: `
create table media.files (
  id text primary key,
  name text not null,
  content_type text not null,
  size bigint not null default 0,
  chunks integer not null default 0,
  ready boolean not null default false,
  created_at timestamptz not null,
  expires_at timestamptz not null
)
;
create index files_expiry on media.files (expires_at)
;
create table media.chunks (
  file_id text not null references media.files (id) on delete cascade,
  seq integer not null,
  data bytea not null,
  primary key (file_id, seq)
)`,
    },
    {
      // A file belongs to the workspace whose writer sent it; its chunks follow
      // it (removed with it). Its id stays the one token of its address.
      id: "002_workspace",
      sql: `
alter table media.files add column workspace text not null default 'env'
;
alter table media.files alter column workspace drop default
`,
    },
  ],
};

/** Bytes a chunk row holds (the last one of a file holds less). */
export const CHUNK_BYTES = 512 * 1024;

export interface MediaFile {
  id: string;
  workspace: WorkspaceId;
  name: string;
  contentType: string;
  size: number;
  chunks: number;
  expiresAt: Date;
}

interface FileRow {
  id: string;
  workspace: string;
  name: string;
  content_type: string;
  size: number;
  chunks: number;
  expires_at: Date;
}

const asFile = (r: FileRow): MediaFile => ({
  id: r.id,
  workspace: r.workspace,
  name: r.name,
  contentType: r.content_type,
  size: Number(r.size),
  chunks: r.chunks,
  expiresAt: r.expires_at,
});

export class MediaStore extends PerWorkspace<Db> {
  // The files of one workspace (a file's address is served whoever asks: mediaFile()).
  /**
   * Stores a file from its bytes, chunk by chunk (never one transaction held
   * open for a download), and returns its unguessable id once it is whole.
   * When `bytes` throws, what was stored is removed and the error goes on.
   */
  async put(
    file: { name: string; contentType: string; now: Date; expiresAt: Date },
    bytes: AsyncIterable<Uint8Array>,
  ): Promise<MediaFile> {
    await this.removeExpired(file.now);
    const id = randomBytes(24).toString("base64url");
    await dbOf(this).query(
      `insert into media.files (id, name, content_type, created_at, expires_at, workspace)
       values ($1, $2, $3, $4, $5, $6)`,
      [id, storable(file.name), file.contentType, file.now, file.expiresAt, this.workspace],
    );
    let seq = 0;
    let size = 0;
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async () => {
      if (!pendingBytes) return;
      await dbOf(this).query("insert into media.chunks (file_id, seq, data) values ($1, $2, $3)", [
        id,
        seq++,
        Buffer.concat(pending),
      ]);
      pending = [];
      pendingBytes = 0;
    };
    try {
      for await (const chunk of bytes) {
        size += chunk.length;
        let rest = chunk;
        while (pendingBytes + rest.length >= CHUNK_BYTES) {
          const take = CHUNK_BYTES - pendingBytes;
          pending.push(rest.subarray(0, take));
          pendingBytes += take;
          rest = rest.subarray(take);
          await flush();
        }
        if (rest.length) {
          pending.push(rest);
          pendingBytes += rest.length;
        }
      }
      await flush();
    } catch (err) {
      await this.remove(id);
      throw err;
    }
    const r = await dbOf(this).query<FileRow>(
      "update media.files set size = $2, chunks = $3, ready = true where id = $1 and workspace = $4 returning *",
      [id, size, seq, this.workspace],
    );
    return asFile(r.rows[0] as FileRow);
  }

  /** A whole file of this workspace still served at `now`; an expired one is removed and undefined. */
  async get(id: string, now: Date): Promise<MediaFile | undefined> {
    return servedFile(dbOf(this), id, now, this.workspace);
  }

  /** One chunk of a file's bytes, in order from 0; undefined past the last (or of another workspace's file). */
  async chunk(id: string, seq: number): Promise<Uint8Array | undefined> {
    const r = await dbOf(this).query<{ data: Uint8Array }>(
      `select c.data from media.chunks c join media.files f on f.id = c.file_id
       where c.file_id = $1 and c.seq = $2 and f.workspace = $3`,
      [id, seq, this.workspace],
    );
    return r.rows[0]?.data;
  }

  async remove(id: string): Promise<void> {
    await dbOf(this).query("delete from media.files where id = $1 and workspace = $2", [id, this.workspace]);
  }

  /** Removes the files expired at `now`, and those never finished after a day (a process stopped mid-download). */
  async removeExpired(now: Date): Promise<number> {
    const r = await dbOf(this).query(
      `delete from media.files where workspace = $2
         and (expires_at <= $1 or (not ready and created_at < $1::timestamptz - interval '1 day'))`,
      [now, this.workspace],
    );
    return r.rowCount;
  }

  /** How many files the workspace keeps (tests, bench). */
  async count(): Promise<number> {
    const r = await dbOf(this).query<{ n: number }>(
      "select count(*)::int as n from media.files where workspace = $1",
      [this.workspace],
    );
    return r.rows[0]?.n ?? 0;
  }
}

/**
 * The file an address names, whichever workspace's it is (its id is the
 * address's unguessable token): the media route serves it, and the row says
 * its workspace. Undefined when unknown, unfinished or expired (then removed).
 */
export function mediaFile(db: Queryable, id: string, now: Date): Promise<MediaFile | undefined> {
  return servedFile(db, id, now, null);
}

async function servedFile(
  db: Queryable,
  id: string,
  now: Date,
  workspace: WorkspaceId | null,
): Promise<MediaFile | undefined> {
  const r = await db.query<FileRow & { ready: boolean }>(
    "select * from media.files where id = $1 and ($2::text is null or workspace = $2)",
    [id, workspace],
  );
  const row = r.rows[0];
  if (!row?.ready) return undefined;
  if (row.expires_at.getTime() <= now.getTime()) {
    await db.query("delete from media.files where id = $1", [id]);
    return undefined;
  }
  return asFile(row);
}
