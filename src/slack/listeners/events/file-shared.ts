// A file shared where the bot is: the app's own handler when it was given one
// (hooks.onFileShared), else CSV and xlsx files get an import preview in their
// thread (src/slack/features/uploads/flow.ts) when there is a database; otherwise ignored.
import { previewUpload } from "../../features/uploads/flow.ts";
import type { EventArgs } from "../on.ts";

export async function fileShared({ event, client, ctx }: EventArgs<"file_shared">): Promise<void> {
  const share = { fileId: event.file_id, userId: event.user_id, channelId: event.channel_id };
  const handler = ctx.hooks.onFileShared;
  if (handler) return handler({ ...share, eventTs: event.event_ts, client });
  if (ctx.stores) return previewUpload(ctx, client, { ...share, via: "event" });
  ctx.logger.debug({ fileId: event.file_id }, "file_shared ignored: no import handler");
}
