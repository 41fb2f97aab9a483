// A file shared where the bot is: the app's own handler when it was given one
// (hooks.onFileShared), else CSV and xlsx files get an import preview in their
// thread (src/slack/features/uploads/flow.ts) when there is a database; otherwise ignored.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";
import { previewUpload } from "../../features/uploads/flow.ts";

export async function fileShared({
  event,
  client,
  context,
}: SlackEventMiddlewareArgs<"file_shared"> & AllMiddlewareArgs<SlackContext>): Promise<void> {
  const share = { fileId: event.file_id, userId: event.user_id, channelId: event.channel_id };
  const handler = context.hooks.onFileShared;
  if (handler) return handler({ ...share, eventTs: event.event_ts, client });
  if (context.db) return previewUpload(context, client, { ...share, via: "event" });
  context.logger.debug({ fileId: event.file_id }, "file_shared ignored: no import handler");
}
