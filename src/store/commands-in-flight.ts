// Slash commands being carried out (schema `switchboard`, 005_commands_in_flight):
// a row from the ack to the answer. A process killed in between leaves it, and
// the next start tells the person (src/slack/interrupted-commands.ts).
import { randomUUID } from "node:crypto";
import type { Queryable } from "./db.ts";

export interface CommandInFlight {
  id: string;
  owner: string;
  userId: string;
  line: string;
  responseUrl: string | null;
  startedAt: Date;
}

/** Slash commands between their ack and their answer, over the store. */
export class CommandsInFlight {
  private readonly db: Queryable;

  constructor(db: Queryable) {
    this.db = db;
  }

  async started(input: {
    owner: string;
    userId: string;
    line: string;
    responseUrl?: string;
  }): Promise<string> {
    const id = randomUUID();
    await this.db.query(
      "insert into switchboard.commands_in_flight (id, owner, user_id, line, response_url) values ($1, $2, $3, $4, $5)",
      [id, input.owner, input.userId, input.line.slice(0, 500), input.responseUrl ?? null],
    );
    return id;
  }

  async ended(id: string): Promise<void> {
    await this.db.query("delete from switchboard.commands_in_flight where id = $1", [id]);
  }

  /**
   * Takes (deletes and returns, once across processes) the rows of other
   * processes started more than `olderThanMs` ago: commands nobody will answer.
   */
  async takeInterrupted(self: string, olderThanMs: number): Promise<CommandInFlight[]> {
    const r = await this.db.query<{
      id: string;
      owner: string;
      user_id: string;
      line: string;
      response_url: string | null;
      started_at: Date;
    }>(
      `delete from switchboard.commands_in_flight
       where owner <> $1 and started_at < now() - make_interval(secs => $2)
       returning id, owner, user_id, line, response_url, started_at`,
      [self, olderThanMs / 1000],
    );
    return r.rows.map((x) => ({
      id: x.id,
      owner: x.owner,
      userId: x.user_id,
      line: x.line,
      responseUrl: x.response_url,
      startedAt: x.started_at,
    }));
  }
}
