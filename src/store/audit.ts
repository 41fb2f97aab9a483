// The audit trail: one row per write the API was asked to make (who, when,
// through which front end and how (typed, a button, a form), the command line
// without secrets, the operation, and the API's answer summarized).

import type { Gesture } from "../domain/actor.ts";
import { dbOf, PerWorkspace } from "./per-workspace.ts";
import { storable, storableJson } from "./text.ts";

export interface AuditEntry {
  at: Date;
  /** Slack user id, or `shell`. */
  actor: string;
  actorName?: string;
  via: "slack" | "shell";
  /** How the person asked; unset: nobody asked in person (a held start, a workflow step), or a row kept before it was recorded. */
  how?: Gesture;
  channel?: string;
  /** The command line, secrets removed: as typed only when `how` is `typed`, else a label Switchboard wrote. */
  command: string;
  /** MessagingApi function, for example `createTag`. */
  operation: string;
  ok: boolean;
  /** HTTP status of the answer; undefined when no answer came (network). */
  status?: number;
  /** The API's answer (or error), summarized. */
  answer?: unknown;
}

interface AuditRow {
  at: Date | string;
  actor: string;
  actor_name: string | null;
  via: "slack" | "shell";
  how: Gesture | null;
  channel: string | null;
  command: string;
  operation: string;
  ok: boolean;
  status: number | null;
  answer: unknown;
}

/** The audit trail over the store. */
export class AuditLog extends PerWorkspace {
  async record(e: AuditEntry): Promise<number> {
    const r = await dbOf(this).query<{ id: string }>(
      `insert into switchboard.audit (at, actor, actor_name, via, channel, command, operation, ok, status, answer, workspace, how)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) returning id`,
      [
        e.at.toISOString(),
        e.actor,
        e.actorName === undefined ? null : storable(e.actorName),
        e.via,
        e.channel ?? null,
        storable(e.command),
        e.operation,
        e.ok,
        e.status ?? null,
        e.answer === undefined ? null : storableJson(e.answer),
        this.workspace,
        e.how ?? null,
      ],
    );
    return Number(r.rows[0]!.id);
  }

  /** Newest first. */
  async list(opts: { limit?: number } = {}): Promise<AuditEntry[]> {
    const r = await dbOf(this).query<AuditRow>(
      `select at, actor, actor_name, via, how, channel, command, operation, ok, status, answer from switchboard.audit
        where workspace = $2 order by id desc limit $1`,
      [opts.limit ?? 100, this.workspace],
    );
    return r.rows.map((row) => ({
      at: new Date(row.at),
      actor: row.actor,
      actorName: row.actor_name ?? undefined,
      via: row.via,
      ...(row.how ? { how: row.how } : {}),
      channel: row.channel ?? undefined,
      command: row.command,
      operation: row.operation,
      ok: row.ok,
      status: row.status ?? undefined,
      answer: typeof row.answer === "string" ? JSON.parse(row.answer) : (row.answer ?? undefined),
    }));
  }

  /** Who last launched a campaign through Switchboard (its `campaign <id> send` that reached the API). */
  async lastLaunch(
    campaignId: number,
  ): Promise<{ actor: string; via: "slack" | "shell"; at: Date } | undefined> {
    const r = await dbOf(this).query<{ actor: string; via: "slack" | "shell"; at: Date | string }>(
      `select actor, via, at from switchboard.audit
        where workspace = $2 and operation = 'sendCampaign' and ok and command ~ $1 order by id desc limit 1`,
      // PostgreSQL's \\b is a backspace, not a word's end: the line ends or a space follows.
      [`^campaign\\s+${campaignId}\\s+send(\\s|$)`, this.workspace],
    );
    const row = r.rows[0];
    return row ? { actor: row.actor, via: row.via, at: new Date(row.at) } : undefined;
  }
}
