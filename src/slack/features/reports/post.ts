// How a report message reaches Slack: one message, the chart inside it.
// The chart is uploaded first, privately (files.uploadV2 without a channel:
// getUploadURLExternal, the bytes, completeUploadExternal), and the message
// shows it as an image block pointing at that file (`slack_file: { id }`), so
// the figures and the picture are one post, not two. An image block needs a
// public URL or a file of the app's; there is no public URL here, so the file.
// Then chat.postMessage through the per-channel queue (1 message a second per
// channel). Slack refusing the message becomes PostRefusedError (nothing went
// out: the scheduler may retry); anything else (a timeout, a reset) goes
// through as is (it may have posted: never retried).
// The chart is a best effort, never lost silently: a failed upload leaves it
// out (logged). A file Slack has not finished processing makes it refuse the
// image block ("invalid slack file"); the message is tried once more with
// the image after a short wait (CHART_RETRY_MS), then posted without it and
// the chart uploaded into the report's thread instead. All of this is safe:
// a refused message was never posted.
import type { webApi } from "@slack/bolt";
import type { KnownBlock } from "@slack/types";
import type { Logger } from "../../../platform/log.ts";
import type { ReportFile, ReportMessage } from "../../../reports/render.ts";
import { type PostFn, PostRefusedError } from "../../../reports/scheduler.ts";
import type { ChannelPostQueue } from "../../io/post-queue.ts";
import { certainlyRefused, channelClosed, slackCode } from "../../io/slack-errors.ts";

const MAX_BLOCKS = 50;
/** The wait before the one retry of a message whose chart Slack was still processing. */
export const CHART_RETRY_MS = 2000;

async function uploadChart(
  client: webApi.WebClient,
  f: ReportFile,
  logger: Logger,
  channel: string,
): Promise<string | undefined> {
  try {
    const res = (await client.files.uploadV2({
      file: Buffer.from(f.content),
      filename: f.filename,
      title: f.title,
      alt_text: f.altText,
    })) as { files?: Array<{ files?: Array<{ id?: string }> }> };
    return res.files?.[0]?.files?.[0]?.id;
  } catch (err) {
    logger.warn(
      { channel, err: (err as Error).message, slack: slackCode(err) },
      "report chart upload failed (the report goes without it)",
    );
    return undefined;
  }
}

/** The chart as a file in the report's thread, when Slack would not show it inside the message. */
async function chartInThread(
  client: webApi.WebClient,
  f: ReportFile,
  logger: Logger,
  channel: string,
  threadTs: string,
): Promise<void> {
  try {
    await client.files.uploadV2({
      channel_id: channel,
      thread_ts: threadTs,
      file: Buffer.from(f.content),
      filename: f.filename,
      title: f.title,
      alt_text: f.altText,
    });
  } catch (err) {
    logger.warn(
      { channel, err: (err as Error).message, slack: slackCode(err) },
      "report chart could not be added to the report's thread",
    );
  }
}

export function slackReportPoster(
  client: webApi.WebClient,
  posts: ChannelPostQueue,
  logger: Logger,
  opts: { chartRetryMs?: number } = {},
): PostFn {
  const retryMs = opts.chartRetryMs ?? CHART_RETRY_MS;
  return async (channel: string, message: ReportMessage) => {
    const fileId = message.file ? await uploadChart(client, message.file, logger, channel) : undefined;
    const image: KnownBlock | undefined =
      fileId && message.file && message.blocks.length < MAX_BLOCKS
        ? {
            type: "image",
            block_id: "chart",
            slack_file: { id: fileId },
            alt_text: message.file.altText.slice(0, 2000),
          }
        : undefined;
    const send = (blocks: KnownBlock[]) =>
      posts.post(client, {
        channel,
        text: message.text,
        blocks,
        unfurl_links: false,
        unfurl_media: false,
      });
    try {
      let res: { ts?: string };
      const refusedChart = (err: unknown) =>
        image !== undefined && certainlyRefused(err) && slackCode(err) === "invalid_blocks";
      try {
        res = await send(image ? [...message.blocks, image] : message.blocks);
      } catch (err) {
        if (!refusedChart(err)) throw err;
        // Most often the file is still being processed: once more, a little later.
        await new Promise((resolve) => setTimeout(resolve, retryMs));
        try {
          res = await send([...message.blocks, image as KnownBlock]);
        } catch (again) {
          if (!refusedChart(again)) throw again;
          logger.warn(
            { channel, slack: slackCode(again) },
            "report refused with its chart; posted without it, the chart in its thread",
          );
          res = await send(message.blocks);
          if (res.ts && message.file) await chartInThread(client, message.file, logger, channel, res.ts);
        }
      }
      return { ref: res.ts };
    } catch (err) {
      if (certainlyRefused(err)) {
        throw new PostRefusedError(`Slack refused the report: ${slackCode(err) ?? (err as Error).message}`, {
          cause: err,
          reason: channelClosed(err) ? "channel_closed" : "refused",
        });
      }
      throw err;
    }
  };
}
