// A file shared where the bot is. The imports issue turns CSV/xlsx files into
// contact imports through hooks.onFileShared; without it the event is ignored.
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import { guarded } from "../../deliver.ts";
import type { SlackDeps } from "../../deps.ts";

export function fileShared(deps: SlackDeps) {
  return async ({ event, client }: SlackEventMiddlewareArgs<"file_shared"> & AllMiddlewareArgs) => {
    const handler = deps.hooks.onFileShared;
    if (!handler) {
      deps.logger.debug({ fileId: event.file_id }, "file_shared ignored: no import handler");
      return;
    }
    await guarded(deps, "file_shared", undefined, () =>
      handler({
        fileId: event.file_id,
        userId: event.user_id,
        channelId: event.channel_id,
        eventTs: event.event_ts,
        client,
      }),
    );
  };
}
