// What every listener gets: the command core and the Slack-side helpers.
import type { App, webApi } from "@slack/bolt";
import type { HomeView, ModalView } from "@slack/types";
import type { FormRequest } from "../commands/form-kinds.ts";
import type { Actor, CommandCore, Reply } from "../commands/types.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { Db } from "../store/db.ts";
import type { EventStore } from "./event-store.ts";
import type { ChannelPostQueue } from "./post-queue.ts";
import type { InFlight } from "./shutdown.ts";

/** Extension points for the next issues (uploads, App Home). */
export interface SlackHooks {
  /** A file was shared where the bot is (issue 4: CSV/xlsx imports). */
  onFileShared?: (args: {
    fileId: string;
    userId: string;
    channelId?: string;
    eventTs?: string;
    client: webApi.WebClient;
  }) => Promise<void>;
  /** The Home tab of one user (issue 5). Default: a short welcome. */
  homeView?: (userId: string) => Promise<HomeView>;
  /** Called with a message posted in a channel for an in_channel reply (issue 5 updates it live). */
  onPosted?: (posted: { channel: string; ts: string; text: string; reply?: Reply }) => void;
}

export interface SlackDeps {
  core: CommandCore;
  config: Config;
  logger: Logger;
  events: EventStore;
  posts: ChannelPostQueue;
  hooks: SlackHooks;
  /** Confirmation ids being handled now: a second click waits for the first. */
  inFlight: Set<string>;
  /** Switchboard's database, when the app has one (uploads keep their pending imports there). */
  db?: Db;
  /** The listeners' work in flight, for a graceful stop (src/slack/shutdown.ts). */
  work?: InFlight;
  /** Least time between two progress redraws of an import's message (default 3000 ms). */
  progressEveryMs?: number;
  /** The clock of that throttle (default Date.now): tests drive it instead of sleeping. */
  now?: () => number;
  /** The view of the core's form request (src/slack/forms/index.ts), for deliver() to open. */
  formView: (request: FormRequest, actor: Actor) => ModalView;
}

export type RegisterFn = (app: App, deps: SlackDeps) => void;
