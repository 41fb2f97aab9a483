// The one mark a card's drawing takes on its thread (schema `inbox`, table
// `inbox.threads`, column window_closed_shown): "the card shows the reply
// window closed". Whoever draws a card with the window closed first (the
// poller's closed-window pass, or the desk's redraw after an assign or a
// resolve) takes it in one statement, so the same card is never drawn twice
// (docs/inbox.md). Kept apart from InboxStore: a small query of its own.
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Queryable } from "./db.ts";

export class CardMarks {
  private readonly db: Queryable;
  readonly workspace: WorkspaceId;

  constructor(db: Queryable, workspace: WorkspaceId) {
    this.db = db;
    this.workspace = workspace;
  }

  /** Takes "the card shows the window closed": true for the one caller that took it. */
  async takeWindowClosed(channel: string, chatUserId: number): Promise<boolean> {
    const { rows } = await this.db.query(
      `update inbox.threads set window_closed_shown = true
       where workspace = $1 and channel = $2 and chat_user_id = $3 and not window_closed_shown
       returning chat_user_id`,
      [this.workspace, channel, chatUserId],
    );
    return rows.length === 1;
  }

  /** The drawing failed: the mark is given back, so the next pass draws it. */
  async releaseWindowClosed(channel: string, chatUserId: number): Promise<void> {
    await this.db.query(
      `update inbox.threads set window_closed_shown = false
       where workspace = $1 and channel = $2 and chat_user_id = $3`,
      [this.workspace, channel, chatUserId],
    );
  }
}
