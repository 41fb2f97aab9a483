import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";

// state: the one reader of a store's private database, set once by PerWorkspace's static block.
let databaseOf: (store: PerWorkspace) => Queryable;

/**
 * A store of one workspace: every statement it makes names the workspace, so
 * another workspace's rows are not found through it.
 */
export abstract class PerWorkspace<D extends Queryable = Queryable> {
  /** ECMAScript-private: a holder of a store, cast as it may, reaches no database (the stores read it with dbOf). */
  readonly #db: D;

  static {
    databaseOf = (store) => store.#db;
  }
  readonly workspace: WorkspaceId;

  constructor(db: D, workspace: WorkspaceId) {
    this.#db = db;
    this.workspace = workspace;
  }

  /** The rows a select of this workspace's finds (`$1` is the workspace, the params follow), each read by `read`. */
  protected async rowsOf<R>(
    sql: string,
    read: (row: Record<string, unknown>) => R,
    ...params: unknown[]
  ): Promise<R[]> {
    return (await this.#db.query(sql, [this.workspace, ...params])).rows.map(read);
  }

  /** The one row such a select finds, read; none when it finds none. */
  protected async rowOf<R>(
    sql: string,
    read: (row: Record<string, unknown>) => R,
    ...params: unknown[]
  ): Promise<R | undefined> {
    const [row] = (await this.#db.query(sql, [this.workspace, ...params])).rows;
    return row ? read(row) : undefined;
  }

  /** One conditional statement (a claim, a move from the state read): true when it took its one row. */
  protected async tookOne(sql: string, params: unknown[]): Promise<boolean> {
    return (await this.#db.query(sql, params)).rows.length === 1;
  }
}

/**
 * The database of a store, for the store's own statements: imported by src/store only (test/architecture/stores.test.ts),
 * so a listener holding a store reaches no database, even cast.
 */
export function dbOf<D extends Queryable>(store: PerWorkspace<D>): D {
  return databaseOf(store as unknown as PerWorkspace) as D;
}
