// Slash commands being carried out (schema `switchboard`, 005_commands_in_flight):
// a row from the ack to the answer; a form submission's from before its claim
// to its answer (src/slack/forms/index.ts). A process killed in between leaves
// it, and the next start tells the person (src/slack/recovery/interrupted-commands.ts); on
// PostgreSQL as soon as its owner no longer beats (live-replicas.ts).
import { randomUUID } from "node:crypto";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";

export interface CommandInFlight {
  id: string;
  workspace: WorkspaceId;
  owner: string;
  userId: string;
  line: string;
  responseUrl: string | null;
  startedAt: Date;
}

/** Slash commands between their ack and their answer, over the store. */
export class CommandsInFlight extends PerWorkspace {
  async started(input: {
    owner: string;
    userId: string;
    line: string;
    responseUrl?: string;
  }): Promise<string> {
    const id = randomUUID();
    await dbOf(this).query(
      `insert into switchboard.commands_in_flight (id, owner, user_id, line, response_url, workspace)
       values ($1, $2, $3, $4, $5, $6)`,
      [id, input.owner, input.userId, input.line.slice(0, 500), input.responseUrl ?? null, this.workspace],
    );
    return id;
  }

  async ended(id: string): Promise<void> {
    await dbOf(this).query("delete from switchboard.commands_in_flight where id = $1 and workspace = $2", [
      id,
      this.workspace,
    ]);
  }

  /**
   * Takes (deletes and returns, once across processes) this workspace's rows
   * of other processes started more than `olderThanMs` ago, and with
   * `liveWithinMs`, only those of processes not seen alive within it
   * (live-replicas.ts): commands nobody will answer.
   */
  async takeInterrupted(
    self: string,
    olderThanMs: number,
    liveWithinMs?: number,
  ): Promise<CommandInFlight[]> {
    return take(dbOf(this), self, olderThanMs, this.workspace, liveWithinMs);
  }
}

/** A command noted late (the embedded database's notes written behind: interrupted-commands.ts). */
export interface CommandNote {
  id: string;
  workspace: WorkspaceId;
  owner: string;
  userId: string;
  line: string;
  responseUrl?: string;
  startedAt: Date;
}

/** Notes several commands, of any workspaces (each row says its own), in one statement. */
export async function noteCommands(db: Queryable, notes: readonly CommandNote[]): Promise<void> {
  if (notes.length === 0) return;
  await db.query(
    `insert into switchboard.commands_in_flight (id, owner, user_id, line, response_url, workspace, started_at)
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::timestamptz[])`,
    [
      notes.map((n) => n.id),
      notes.map((n) => n.owner),
      notes.map((n) => n.userId),
      notes.map((n) => n.line.slice(0, 500)),
      notes.map((n) => n.responseUrl ?? null),
      notes.map((n) => n.workspace),
      notes.map((n) => n.startedAt.toISOString()),
    ],
  );
}

/** Removes the notes of answered commands (each by its id and its workspace) in one statement. */
export async function endCommands(
  db: Queryable,
  ended: ReadonlyArray<{ id: string; workspace: WorkspaceId }>,
): Promise<void> {
  if (ended.length === 0) return;
  await db.query(
    `delete from switchboard.commands_in_flight c
      using unnest($1::uuid[], $2::text[]) as e(id, workspace)
      where c.id = e.id and c.workspace = e.workspace`,
    [ended.map((e) => e.id), ended.map((e) => e.workspace)],
  );
}

/**
 * Takes (deletes and returns, once across processes) the rows of other
 * processes started more than `olderThanMs` ago, of every workspace (each row
 * says its own): commands nobody will answer.
 */
export function takeInterruptedCommands(
  db: Queryable,
  self: string,
  olderThanMs: number,
  liveWithinMs?: number,
): Promise<CommandInFlight[]> {
  return take(db, self, olderThanMs, null, liveWithinMs);
}

async function take(
  db: Queryable,
  self: string,
  olderThanMs: number,
  workspace: WorkspaceId | null,
  liveWithinMs?: number,
): Promise<CommandInFlight[]> {
  const r = await db.query<{
    id: string;
    workspace: string;
    owner: string;
    user_id: string;
    line: string;
    response_url: string | null;
    started_at: Date;
  }>(
    `delete from switchboard.commands_in_flight
     where owner <> $1 and started_at < now() - make_interval(secs => $2)
       and ($3::text is null or workspace = $3)
       and ($4::float8 is null or not exists (select 1 from replicas.live l
             where l.id = owner and l.seen_at > now() - make_interval(secs => $4::float8)))
     returning id, workspace, owner, user_id, line, response_url, started_at`,
    [self, olderThanMs / 1000, workspace, liveWithinMs === undefined ? null : liveWithinMs / 1000],
  );
  return r.rows.map((x) => ({
    id: x.id,
    workspace: x.workspace,
    owner: x.owner,
    userId: x.user_id,
    line: x.line,
    responseUrl: x.response_url,
    startedAt: x.started_at,
  }));
}
