import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";

/**
 * A store of one workspace: every statement it makes names the workspace, so
 * another workspace's rows are not found through it.
 */
export abstract class PerWorkspace<D extends Queryable = Queryable> {
  protected readonly db: D;
  readonly workspace: WorkspaceId;

  constructor(db: D, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
  }

  /** The rows a select of this workspace's finds (`$1` is the workspace, the params follow), each read by `read`. */
  protected async rowsOf<R>(
    sql: string,
    read: (row: Record<string, unknown>) => R,
    ...params: unknown[]
  ): Promise<R[]> {
    return (await this.db.query(sql, [this.workspace, ...params])).rows.map(read);
  }

  /** The one row such a select finds, read; none when it finds none. */
  protected async rowOf<R>(
    sql: string,
    read: (row: Record<string, unknown>) => R,
    ...params: unknown[]
  ): Promise<R | undefined> {
    const [row] = (await this.db.query(sql, [this.workspace, ...params])).rows;
    return row ? read(row) : undefined;
  }

  /** One conditional statement (a claim, a move from the state read): true when it took its one row. */
  protected async tookOne(sql: string, params: unknown[]): Promise<boolean> {
    return (await this.db.query(sql, params)).rows.length === 1;
  }
}
