// Slack allows about one message a second per channel. Posts to one channel
// go out in order, each at least `gapMs` after the previous one came back, so
// a burst (several writes, reports, audit lines) is spread instead of refused.
// The WebClient still retries a 429 after Retry-After as a safety net.
import type { webApi } from "@slack/bolt";
import { metrics } from "../../platform/metrics.ts";

type Client = webApi.WebClient;
type PostArgs = webApi.ChatPostMessageArguments;
type PostResult = webApi.ChatPostMessageResponse;

export class ChannelPostQueue {
  private readonly tails = new Map<string, Promise<unknown>>();
  private readonly lastDone = new Map<string, number>();

  private readonly gapMs: number;
  constructor(gapMs = 1000) {
    this.gapMs = gapMs;
  }

  post(client: Client, args: PostArgs): Promise<PostResult> {
    const channel = args.channel;
    const previous = this.tails.get(channel) ?? Promise.resolve();
    metrics.postQueueDepth.inc();
    const run = previous
      .catch(() => {})
      .then(async () => {
        const wait = (this.lastDone.get(channel) ?? 0) + this.gapMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        metrics.postQueueDepth.dec();
        try {
          // Counted in switchboard_slack_calls_total by the client's fetch (bridge.ts).
          return await client.chat.postMessage(args);
        } finally {
          this.lastDone.set(channel, Date.now());
        }
      });
    this.tails.set(channel, run);
    // Forget idle channels so the maps stay small.
    run
      .catch(() => {})
      .finally(() => {
        if (this.tails.get(channel) !== run) return;
        this.tails.delete(channel);
        setTimeout(() => {
          if (!this.tails.has(channel)) this.lastDone.delete(channel);
        }, this.gapMs).unref();
      });
    return run;
  }
}
