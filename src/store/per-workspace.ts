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
}
