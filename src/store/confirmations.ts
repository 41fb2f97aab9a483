// Pending confirmations (campaign send and cancel, every delete), kept in the
// store so a Confirm click works once across clicks, processes and restarts.
// Each change of state is one conditional UPDATE … RETURNING: two clicks
// racing, in one process or two, cannot both win. "unknown": the write may
// or may not have happened (no answer came, or the process stopped while it
// ran); it is never run again from here, only checked.
import { randomUUID } from "node:crypto";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";
import { PerWorkspace } from "./per-workspace.ts";
import { storableJson } from "./text.ts";

export type ConfirmationState = "pending" | "running" | "done" | "dismissed" | "failed" | "unknown";

export interface Confirmation {
  id: string;
  actor: string;
  /** What to run: the command id, its raw arguments and the line as typed. */
  command: { id: string; raw: Record<string, unknown>; line: string } & Record<string, unknown>;
  state: ConfirmationState;
  result?: unknown;
  decidedBy?: string;
  decidedAt?: Date;
  createdAt: Date;
  expiresAt: Date;
  /** Pending, but past its expiry. */
  expired: boolean;
}

interface Row {
  id: string;
  actor: string;
  command: unknown;
  state: ConfirmationState;
  result: unknown;
  decided_by: string | null;
  decided_at: Date | string | null;
  created_at: Date | string;
  expires_at: Date | string;
  expired: boolean;
}

const COLUMNS =
  "id, actor, command, state, result, decided_by, decided_at, created_at, expires_at, (expires_at <= now()) as expired";
const json = (v: unknown) => (typeof v === "string" ? JSON.parse(v) : v);

function fromRow(r: Row): Confirmation {
  return {
    id: r.id,
    actor: r.actor,
    command: json(r.command) as Confirmation["command"],
    state: r.state,
    result: json(r.result) ?? undefined,
    decidedBy: r.decided_by ?? undefined,
    decidedAt: r.decided_at ? new Date(r.decided_at) : undefined,
    createdAt: new Date(r.created_at),
    expiresAt: new Date(r.expires_at),
    expired: r.state === "pending" && r.expired,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Where the Confirm click of `id` can be answered: its response_url (when Slack gave one) and who clicked. */
export interface ReplyTarget {
  user: string;
  responseUrl?: string;
  /** When the click came (a response_url is good for 30 minutes). */
  at: string;
  told?: boolean;
}

/** Pending confirmations over the store: each change of state one conditional update. */
export class Confirmations extends PerWorkspace {
  // A confirmation of another workspace is not found here: every statement names the workspace.
  async create(input: {
    actor: string;
    command: Confirmation["command"];
    ttlMs: number;
  }): Promise<Confirmation> {
    const r = await this.db.query<Row>(
      `insert into switchboard.confirmations (id, actor, command, expires_at, workspace)
       values ($1, $2, $3, now() + make_interval(secs => $4), $5) returning ${COLUMNS}`,
      [randomUUID(), input.actor, storableJson(input.command), input.ttlMs / 1000, this.workspace],
    );
    return fromRow(r.rows[0]!);
  }

  async get(id: string): Promise<Confirmation | undefined> {
    if (!UUID.test(id)) return undefined;
    const r = await this.db.query<Row>(
      `select ${COLUMNS} from switchboard.confirmations where id = $1 and workspace = $2`,
      [id, this.workspace],
    );
    return r.rows[0] ? fromRow(r.rows[0]) : undefined;
  }

  /**
   * pending → running, for the user who asked, before it expires. Returns the
   * row when this call won; undefined when it did not (see get for why).
   */
  async claim(id: string, actor: string): Promise<Confirmation | undefined> {
    if (!UUID.test(id)) return undefined;
    const r = await this.db.query<Row>(
      `update switchboard.confirmations set state = 'running', decided_by = $2, decided_at = now()
       where id = $1 and workspace = $3 and state = 'pending' and actor = $2 and expires_at > now()
       returning ${COLUMNS}`,
      [id, actor, this.workspace],
    );
    return r.rows[0] ? fromRow(r.rows[0]) : undefined;
  }

  /**
   * running → done | failed | unknown, with the result. Also unknown → done |
   * failed: a process that started while this one was running the command
   * settled it as unknown (settleInterrupted), and this process,
   * which ran it, knows better.
   */
  async finish(id: string, state: "done" | "failed" | "unknown", result: unknown): Promise<void> {
    await this.db.query(
      `update switchboard.confirmations set state = $2, result = $3
       where id = $1 and workspace = $4 and (state = 'running' or (state = 'unknown' and $2 <> 'unknown'))`,
      [id, state, storableJson(result ?? null), this.workspace],
    );
  }

  /**
   * running → unknown for every confirmation a stopped process left running: the
   * command may or may not have reached the API, so it is neither retried nor
   * called failed. This workspace's. Returns how many.
   */
  async settleInterrupted(): Promise<number> {
    const r = await this.db.query<{ id: string }>(
      `update switchboard.confirmations set state = 'unknown', result = $1
       where state = 'running' and workspace = $2 returning id`,
      [JSON.stringify({ error: "interrupted" }), this.workspace],
    );
    return r.rows.length;
  }

  /**
   * settleInterrupted for every workspace at once (the start, src/host/compose.ts, and
   * a stop): returns the confirmations settled, each with its workspace.
   */
  static async settleInterruptedAll(db: Queryable): Promise<Array<{ id: string; workspace: WorkspaceId }>> {
    const r = await db.query<{ id: string; workspace: string }>(
      `update switchboard.confirmations set state = 'unknown', result = $1
       where state = 'running' returning id, workspace`,
      [JSON.stringify({ error: "interrupted" })],
    );
    return r.rows;
  }

  /** Keeps the click's reply target with a confirmation still pending, before its work starts. */
  async keepReplyTarget(id: string, target: ReplyTarget): Promise<void> {
    await this.db.query(
      "update switchboard.confirmations set reply = $2 where id = $1 and workspace = $3 and state = 'pending'",
      [id, JSON.stringify(target), this.workspace],
    );
  }

  /** Confirmations a stopped process left running (settled unknown at start) whose clicker was not told yet. */
  async untoldInterrupted(): Promise<Array<{ id: string; reply: ReplyTarget }>> {
    const r = await this.db.query<{ id: string; reply: ReplyTarget }>(
      `select id, reply from switchboard.confirmations
       where workspace = $1 and state = 'unknown' and result->>'error' = 'interrupted'
         and reply is not null and coalesce(reply->>'told', 'false') <> 'true'
       order by decided_at`,
      [this.workspace],
    );
    return r.rows;
  }

  /** Marks the clicker of `id` told; false when another process did it first. */
  async markReplyTold(id: string): Promise<boolean> {
    return this.tookOne(
      `update switchboard.confirmations set reply = reply || '{"told": true}'::jsonb
       where id = $1 and workspace = $2 and coalesce(reply->>'told', 'false') <> 'true' returning id`,
      [id, this.workspace],
    );
  }

  /** pending → dismissed, by the user who asked. */
  async dismiss(id: string, actor: string): Promise<Confirmation | undefined> {
    if (!UUID.test(id)) return undefined;
    const r = await this.db.query<Row>(
      `update switchboard.confirmations set state = 'dismissed', decided_by = $2, decided_at = now()
       where id = $1 and workspace = $3 and state = 'pending' and actor = $2 returning ${COLUMNS}`,
      [id, actor, this.workspace],
    );
    return r.rows[0] ? fromRow(r.rows[0]) : undefined;
  }
}
