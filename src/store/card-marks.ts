import { dbOf, PerWorkspace } from "./per-workspace.ts";

export class CardMarks extends PerWorkspace {
  /** Takes "the card shows the window closed": true for the one caller that took it. */
  async takeWindowClosed(channel: string, chatUserId: number): Promise<boolean> {
    return this.tookOne(
      `update inbox.threads set window_closed_shown = true
       where workspace = $1 and channel = $2 and chat_user_id = $3 and not window_closed_shown
       returning chat_user_id`,
      [this.workspace, channel, chatUserId],
    );
  }

  /** The drawing failed: the mark is given back, so the next pass draws it. */
  async releaseWindowClosed(channel: string, chatUserId: number): Promise<void> {
    await dbOf(this).query(
      `update inbox.threads set window_closed_shown = false
       where workspace = $1 and channel = $2 and chat_user_id = $3`,
      [this.workspace, channel, chatUserId],
    );
  }
}
