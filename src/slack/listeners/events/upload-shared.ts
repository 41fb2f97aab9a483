// A file shared where the bot is: CSV and xlsx files get an import preview in
// their thread (src/slack/uploads/flow.ts); other files are left alone.
import type { SlackDeps, SlackHooks } from "../../deps.ts";
import { previewUpload } from "../../uploads/flow.ts";

export function uploadShared(deps: SlackDeps): NonNullable<SlackHooks["onFileShared"]> {
  return ({ fileId, userId, channelId, client }) =>
    previewUpload(deps, client, { fileId, userId, channelId, via: "event" });
}
