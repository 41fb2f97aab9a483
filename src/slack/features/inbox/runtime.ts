// What the Slack app runs beside Bolt for the inbox: the engine (src/inbox) on a timer
// (INBOX_POLL_SECONDS), posting through the per-channel queue shared with
// every other post. Made at once (createInbox), started once the app answers
// (start), stopped by stop() or when the switchboard closes.
import type { MessagingClient } from "../../../api/client.ts";
import type { Automations } from "../../../automations/index.ts";
import { customerRecord } from "../../../commands/customer-record.ts";
import type { InboxDeps } from "../../../commands/inbox.ts";
import type { InboxEvent } from "../../../inbox/io.ts";
import type { Config } from "../../../platform/config.ts";
import { ConfigError } from "../../../platform/errors.ts";
import type { Logger } from "../../../platform/log.ts";
import { StartStop, started } from "../../../platform/started.ts";
import type { WorkspaceStores } from "../../../store/workspace-stores.ts";
import type { SlackBridge } from "../../io/bridge.ts";
import { InboxPoller, slackInboxIo } from "./io.ts";

/** How often files sent to customers are looked at for expiry (also removed when asked for, and at the next file). */
const MEDIA_SWEEP_MS = 3_600_000;

/** The deployment's settings an inbox poller reads: no workspace's, no secret. */
export const INBOX_JOB_SETTINGS = ["INBOX_POLL_SECONDS", "INBOX_LOOKBACK_HOURS"] as const;
export type InboxJobConfig = Pick<Config, (typeof INBOX_JOB_SETTINGS)[number]>;

/**
 * What a workspace's inbox poller is given (issue 38 §3): that workspace's stores, API client, bot bridge,
 * the commands' side of its inbox and its automations. No database, no source of other workspaces.
 */
export interface InboxHost {
  slack?: SlackBridge;
  /** The stores of the workspace whose inboxes this runtime polls (one runtime per workspace). */
  stores: Pick<WorkspaceStores, "inbox" | "ownSends" | "cardMarks" | "media">;
  client: MessagingClient;
  /** The commands' side of the inbox: the poller wakes when an inbox is turned on. */
  inbox?: Pick<InboxDeps, "wake" | "workClock" | "away" | "audit">;
  /** The workspace's automations: its inboxes' events go to them (issue 40 §3). */
  eventsTo?: Pick<Automations, "emit">;
  onClose(fn: () => Promise<void>): void;
}

/** An inbox's event as the automations' fields (docs/automations.md). */
export function inboxEventsTo(to: Pick<Automations, "emit">) {
  return (e: InboxEvent) => {
    const conversation = {
      inbox_channel: e.channel,
      chat_user_id: e.chatUserId,
      customer_name: e.customerName,
    };
    switch (e.type) {
      case "message.received":
        return to.emit(e.type, { ...conversation, message_id: e.messageId, message_text: e.text });
      case "rating.received":
        return to.emit(e.type, { ...conversation, rating: e.rating });
      case "reply_target.breached":
        return to.emit(e.type, { ...conversation, target: `${e.target} reply in ${e.targetSecs} s` });
    }
  };
}

export interface InboxRuntime {
  poller: InboxPoller;
  /** Starts the poller; once, however often called. */
  start(): Promise<void>;
  /** Stops it (waiting for a start under way). */
  stop(): Promise<void>;
}

export type InboxRuntimeOptions = { timer?: boolean; now?: () => Date; workerId?: string };

export function createInbox(
  host: InboxHost,
  config: InboxJobConfig,
  logger: Logger,
  opts: InboxRuntimeOptions = {},
): InboxRuntime {
  const bridge = host.slack;
  if (!bridge) throw new ConfigError("the inbox runtime needs the Slack bridge: SLACK_BOT_TOKEN is not set");
  const log = logger.child({ part: "inbox" });
  const poller = new InboxPoller({
    stores: host.stores,
    client: host.client,
    ...slackInboxIo(bridge),
    pollSeconds: config.INBOX_POLL_SECONDS,
    lookbackHours: config.INBOX_LOOKBACK_HOURS,
    now: opts.now,
    workClock: () => host.inbox?.workClock?.(),
    // The away message (issue 40 §1): the rule as set now, filled as a saved reply is, audited.
    away: {
      rule: () => host.inbox?.away?.(),
      record: async (chatUserId) =>
        (await customerRecord(host.client, chatUserId, { lane: "background" })).record,
      audit: async (entry) => host.inbox?.audit?.(entry),
    },
    workerId: opts.workerId,
    logger: log,
    ...(host.eventsTo ? { onEvent: inboxEventsTo(host.eventsTo) } : {}),
  });
  let sweep: NodeJS.Timeout | undefined;
  const begin = async () => {
    if (opts.timer !== false && !once.stopped) {
      const media = host.stores.media;
      sweep = setInterval(() => {
        media
          .removeExpired(new Date())
          .catch((err) => log.warn({ err: (err as Error).message }, "could not remove expired files"));
      }, MEDIA_SWEEP_MS).unref();
      poller.start();
      // A runtime built without a waker (its background work run by hand: the tests' inbox stack) takes this one.
      if (host.inbox && !host.inbox.wake) host.inbox.wake = () => poller.wake();
    }
  };
  const once = new StartStop(begin, async () => {
    clearInterval(sweep);
    await poller.stop();
  });
  const runtime: InboxRuntime = { poller, start: () => once.start(), stop: () => once.stop() };
  host.onClose(() => runtime.stop());
  return runtime;
}

/** The inbox runtime, started (`createInbox`, then its start). */
export const startInbox = (...made: Parameters<typeof createInbox>): Promise<InboxRuntime> =>
  started(createInbox(...made));
