// What every listener gets, in Bolt's `context` (set once per request by the
// middleware in listeners/middleware.ts): the command core and the Slack-side
// services, and who is acting. The one place to add what each request carries
// (the workspace, when the app is installed in several).
import type { App, webApi } from "@slack/bolt";
import type { HomeView, ModalView } from "@slack/types";
import type { FormRequest } from "../commands/form-kinds.ts";
import type { Actor, CommandCore, Reply } from "../commands/types.ts";
import type { WorkspaceId } from "../domain/workspace.ts";
import type { Config } from "../platform/config.ts";
import type { Logger } from "../platform/log.ts";
import type { Db } from "../store/db.ts";
import type { InFlight } from "./in-flight.ts";
import type { EventStore } from "./io/event-store.ts";
import type { ChannelPostQueue } from "./io/post-queue.ts";

/** What the app is given by its composer (the reports and the uploads plug in here). */
export interface SlackHooks {
  /** A file was shared where the bot is (CSV/xlsx imports). */
  onFileShared?: (args: {
    fileId: string;
    userId: string;
    channelId?: string;
    eventTs?: string;
    client: webApi.WebClient;
  }) => Promise<void>;
  /** The Home tab of one user. Default: a short welcome. */
  homeView?: (userId: string) => Promise<HomeView>;
  /** Called with a message posted in a channel for an in_channel reply (a launch's live progress). */
  onPosted?: (posted: { channel: string; ts: string; text: string; reply?: Reply }) => void;
}

/**
 * What belongs to the workspace a request comes from: its id, its command
 * core (its API key, settings and records), its hooks and its bot client for
 * work done later. In single-workspace mode it is the one workspace of the
 * environment; with many workspaces, the request's team's (src/workspaces/runtime.ts).
 */
export interface WorkspaceParts {
  /** The workspace's id: its Slack team id, or "env" in single-workspace mode. */
  workspace: WorkspaceId;
  core: CommandCore;
  hooks: SlackHooks;
  /** False when the workspace has no messaging account yet: its core then only says how to connect. */
  connected: boolean;
  /** The workspace's Workflow steps setting (`/sb settings`); unset: WORKFLOW_STEPS. */
  workflowSteps?: "off" | "writers" | "all";
}

/** Which workspace a request is from, as Bolt's authorize sees it. */
export interface RequestTeam {
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall?: boolean;
}

/** The workspaces the app serves: resolves a request's team to its parts (hooks absent: the app's own). */
export interface WorkspaceSource {
  /** A workspace's own bot client when it is built (many workspaces): Bolt's listeners share it. */
  slackClientOf?(teamId: string): webApi.WebClient | undefined;
  resolve(
    team: RequestTeam,
  ): Promise<
    Omit<WorkspaceParts, "hooks" | "workflowSteps"> & Partial<Pick<WorkspaceParts, "hooks" | "workflowSteps">>
  >;
}

/** A workspace leaving (many-workspace mode); each answer says what the store did. */
export interface Lifecycle {
  uninstalled(
    team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
    eventTime: Date,
  ): Promise<string>;
  tokensRevoked(
    team: { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean },
    revoked: { botUserIds: string[]; userIds: string[] },
    eventTime: Date,
  ): Promise<string>;
}

/** The services of the Slack app, the same for every request. */
export interface SlackDeps extends WorkspaceParts {
  /** Each request's workspace (the middleware puts its parts over the defaults above). */
  workspaces?: WorkspaceSource;
  /** Many workspaces: what `app_uninstalled` and `tokens_revoked` do. */
  lifecycle?: Lifecycle;
  config: Config;
  logger: Logger;
  events: EventStore;
  posts: ChannelPostQueue;
  /** Confirmation ids being handled now: a second click waits for the first. */
  inFlight: Set<string>;
  /** Switchboard's database, when the app has one (uploads keep their pending imports there). */
  db?: Db;
  /** The workspace whose records the stores of this request read and write (the Slack team id; "env" alone). */
  workspace: WorkspaceId;
  /** The listeners' work in flight, for a graceful stop (src/slack/shutdown.ts). */
  work: InFlight;
  /** Least time between two progress redraws of an import's message (default 3000 ms). */
  progressEveryMs?: number;
  /** The clock of that throttle (default Date.now): tests drive it instead of sleeping. */
  now?: () => number;
  /** The view of the core's form request (src/slack/forms/index.ts), for deliver() to open. */
  formView: (request: FormRequest, actor: Actor) => ModalView;
}

/** Bolt's `context` of every request: the services, and who acts when the request has a person. */
export interface SlackContext extends SlackDeps {
  /** The person who typed, clicked, submitted or wrote; absent for events without one (a workflow step). */
  actor?: Actor;
  // Bolt's Context is string-indexed: so is ours, for App<SlackContext>.
  [key: string]: unknown;
}

/**
 * The person of a request made by one (a command, a click, a shortcut, a
 * form): the middleware sets it for each of them, so its absence is a bug.
 */
export function personOf(context: Pick<SlackContext, "actor">): Actor {
  if (!context.actor) throw new Error("this request has no person: the context middleware did not run");
  return context.actor;
}

export type SlackBolt = App<SlackContext>;
