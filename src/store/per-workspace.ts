import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";

/**
 * A store of one workspace: every statement it makes names the workspace, so
 * another workspace's rows are not found through it.
 */
export abstract class PerWorkspace<D extends Queryable = Queryable> {
  /** ECMAScript-private, here and in every store: a holder of a store, cast as it may, reaches no database. */
  readonly #db: D;
  readonly workspace: WorkspaceId;

  constructor(db: D, workspace: WorkspaceId) {
    this.#db = db;
    this.workspace = workspace;
  }

  /** One conditional statement (a claim, a move from the state read): true when it took its one row. */
  protected async tookOne(sql: string, params: unknown[]): Promise<boolean> {
    return (await this.#db.query(sql, params)).rows.length === 1;
  }
}
