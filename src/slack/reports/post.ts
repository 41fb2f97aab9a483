// How a report message reaches Slack: chat.postMessage through the per-channel
// queue (1 message a second per channel), then the chart uploaded into the
// channel right after it (files.uploadV2: getUploadURLExternal, the bytes,
// completeUploadExternal with channel_id). Slack refusing the message becomes
// PostRefusedError (nothing went out: the scheduler may retry); anything else
// (a timeout, a reset) goes through as is (it may have posted: never retried).
// The chart is a best effort: once the message is out, a failed upload is
// logged and never makes the report count as failed (that would post it twice).
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../log.ts";
import type { ReportMessage } from "../../reports/render.ts";
import { definitelyNotPosted, type PostFn, PostRefusedError } from "../../reports/scheduler.ts";
import { slackError } from "../deliver.ts";
import type { ChannelPostQueue } from "../post-queue.ts";

export function slackReportPoster(client: webApi.WebClient, posts: ChannelPostQueue, logger: Logger): PostFn {
  return async (channel: string, message: ReportMessage) => {
    let ts: string | undefined;
    try {
      const res = await posts.post(client, {
        channel,
        text: message.text,
        blocks: message.blocks,
        unfurl_links: false,
        unfurl_media: false,
      });
      ts = res.ts;
    } catch (err) {
      if (definitelyNotPosted(err)) {
        throw new PostRefusedError(`Slack refused the report: ${slackError(err) ?? (err as Error).message}`, {
          cause: err,
        });
      }
      throw err;
    }
    if (message.file) {
      const f = message.file;
      try {
        await client.files.uploadV2({
          channel_id: channel,
          file: Buffer.from(f.content),
          filename: f.filename,
          title: f.title,
          alt_text: f.altText,
        });
      } catch (err) {
        logger.warn(
          { channel, err: (err as Error).message, slack: slackError(err) },
          "report chart upload failed (the report itself was posted)",
        );
      }
    }
    return { ref: ts };
  };
}
