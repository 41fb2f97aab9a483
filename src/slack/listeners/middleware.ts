// The cross-cutting work of every request, once, as Bolt global middleware
// (app.use), in this order:
//   1. context: a slash command acknowledged first; then the request's Reach (src/slack/context.ts: its
//      workspace, who acts, the deployment's services it needs, bound to that workspace) put on Bolt's
//      `context` under a private key, and nothing else of ours: no database, no source of workspaces. on.ts
//      hands it to each listener as `ctx`;
//   2. dedupe: an event Slack delivers again is acknowledged and dropped
//      (events/dedupe.ts);
//   3. guard: the work runs through InFlight (a graceful stop waits for it,
//      or refuses new work with "restarting"), and a failure is logged with
//      a reference and told, where there is a response_url, in words.
// A listener is then a plain callback: ack, read the arguments and `ctx`, do
// its work.
import type { AnyMiddlewareArgs, Middleware, RespondFn } from "@slack/bolt";
import { ACTION } from "../../blocks/actions.ts";
import type { Actor } from "../../commands/types.ts";
import { DEFAULT_SETTINGS } from "../../commands/workspace-admin.ts";
import type { Gesture } from "../../domain/actor.ts";
import { errorRef, hasCode } from "../../platform/errors.ts";
import { bounded, metrics } from "../../platform/metrics.ts";
import {
  ackOnce,
  type Leaving,
  type Lifecycle,
  oneWorkspaceWork,
  putReach,
  type Reach,
  type RequestTeam,
  reachIn,
  type SlackContext,
  type SlackServices,
  type WorkspaceScope,
} from "../context.ts";
import type { Tell } from "../in-flight.ts";
import { slackCode } from "../io/slack-errors.ts";

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (typeof v === "object" && v !== null ? (v as Json) : undefined);
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** Who acts in a request, in the core's terms, when a person does: commands, clicks, shortcuts, forms, events with a user. */
export function actorOf(body: unknown): Actor | undefined {
  const b = obj(body) ?? {};
  if (typeof b.command === "string") {
    const userId = str(b.user_id);
    if (!userId) return undefined;
    return {
      userId,
      userName: str(b.user_name),
      teamId: str(b.team_id),
      channelId: str(b.channel_id),
      via: "slack",
      how: "typed",
    };
  }
  if (b.type === "event_callback") {
    const e = obj(b.event) ?? {};
    const userId = str(e.user) ?? str(e.user_id);
    if (!userId) return undefined;
    return { userId, teamId: str(b.team_id), channelId: str(e.channel) ?? str(e.channel_id), via: "slack" };
  }
  const user = obj(b.user);
  const userId = str(user?.id);
  if (!userId) return undefined;
  return {
    userId,
    userName: str(user?.username) ?? str(user?.name),
    teamId: str(obj(b.team)?.id) ?? str(user?.team_id),
    // Buttons on the Home tab have no channel: answers then go to the app's DM.
    channelId: str(obj(b.channel)?.id) ?? str(obj(b.container)?.channel_id),
    via: "slack",
    how: gestureOf(b),
  };
}

/** The block of the approval card's buttons (campaigns/approval-card.ts): a send from there says so. */
const APPROVAL_ACTIONS = "approval_actions";

/** How a person asked, for the audit: a click on a message or the Home tab, on the approval card, or in a form. */
function gestureOf(b: Json): Gesture {
  if (b.type === "view_submission" || b.type === "view_closed" || b.type === "block_suggestion")
    return "form";
  if (b.type === "block_actions" && str(obj(b.view)?.type) === "modal") return "form";
  const blockId = str(obj((b.actions as unknown[] | undefined)?.[0])?.block_id);
  return blockId === APPROVAL_ACTIONS ? "approval" : "button";
}

/** The team a request is from: Bolt's reading of it (authorize's source), else the body's. */
export function teamOf(body: unknown, context: Partial<RequestTeam>): RequestTeam {
  const b = obj(body) ?? {};
  const teamId =
    context.teamId ??
    str(b.team_id) ??
    str(obj(b.team)?.id) ??
    str(obj(b.user)?.team_id) ??
    str(obj(b.view)?.team_id);
  return {
    ...(teamId ? { teamId } : {}),
    ...(context.enterpriseId ? { enterpriseId: context.enterpriseId } : {}),
    ...(context.isEnterpriseInstall ? { isEnterpriseInstall: true } : {}),
  };
}

/** The request's team as the uninstall events give it: the body's, else Bolt's reading. */
function leavingTeam(body: unknown, bolt: Partial<RequestTeam>): Parameters<Lifecycle["uninstalled"]>[0] {
  const b = obj(body) ?? {};
  return {
    teamId: str(b.team_id) ?? str(bolt.teamId),
    enterpriseId: str(b.enterprise_id) ?? str(bolt.enterpriseId),
    isEnterpriseInstall: b.is_enterprise_install === true || bolt.isEnterpriseInstall === true,
  };
}

/** The Lifecycle, bound to the request's own team: a listener cannot make another workspace leave. */
function leavingOf(lifecycle: Lifecycle | undefined, team: () => Parameters<Lifecycle["uninstalled"]>[0]) {
  if (!lifecycle) return undefined;
  const leaving: Leaving = {
    uninstalled: (at) => lifecycle.uninstalled(team(), at),
    tokensRevoked: (revoked, at) => lifecycle.tokensRevoked(team(), revoked, at),
  };
  return leaving;
}

/**
 * A request's Reach: its workspace's work (context.ts, oneWorkspaceWork: each member named, the event store
 * bound to the workspace, the deployment's own settings only), its settings, who acts, and the services
 * bound to it. No source of workspaces, no database.
 */
export function reachOf(
  services: SlackServices,
  resolved: WorkspaceScope,
  request: { body: unknown; bolt: Partial<RequestTeam>; acked: boolean },
): Reach {
  const work = oneWorkspaceWork(services, resolved);
  const ws = resolved.workspace;
  const confirming = services.inFlight;
  const leaving = leavingOf(services.lifecycle, () => leavingTeam(request.body, request.bolt));
  const actor = actorOf(request.body);
  return {
    ...work,
    // The workspace's effective settings (a workspace not connected has none: its core says how to connect).
    settings: { workflowSteps: resolved.workflowSteps ?? DEFAULT_SETTINGS.workflowSteps },
    ...(actor ? { actor } : {}),
    acked: request.acked,
    noted: (typed) => services.noteCommand({ workspace: ws, stores: resolved.stores }, typed),
    // Confirmations are the workspace's: the deployment's set, keyed by workspace.
    inFlight: {
      has: (id) => confirming.has(`${ws}:${id}`),
      add: (id) => void confirming.add(`${ws}:${id}`),
      delete: (id) => void confirming.delete(`${ws}:${id}`),
    },
    ...(leaving ? { leaving } : {}),
  };
}

/**
 * 1. The request's Reach (its workspace's core, stores, hooks and id: every record the request reads or
 * writes is that workspace's, resolved from the request's team by the workspace source and nowhere else;
 * who acts; the services it needs, bound to it) into Bolt's context, under a private key, and nothing
 * else: the services themselves (the source of every workspace, the database) stay here. A request from a
 * team the deployment does not serve is answered in words (an event: logged and acknowledged) and goes no
 * further.
 */
export function provideContext(services: SlackServices): Middleware<AnyMiddlewareArgs, SlackContext> {
  return async (args) => {
    const { body, context, next } = args;
    const acked = { acked: false };
    // A slash command is acknowledged first: its answers go to its response_url, so its ack waits on nothing of
    // ours (the workspace's resolution, the guard, Bolt's matching of every listener: bench/slack-ack.bench.ts).
    if (typeof obj(body)?.command === "string")
      await ackOnce(acked, (args as { ack?: () => Promise<void> }).ack);
    const bolt = context as Partial<RequestTeam>;
    const team = teamOf(body, bolt);
    let resolved: WorkspaceScope;
    try {
      resolved = await services.workspaces.resolve(team);
    } catch (err) {
      if (!hasCode(err, "unknown_workspace")) throw err;
      services.logger.warn(
        { teamId: team.teamId, where: whereOf(body) },
        "request from a workspace not served",
      );
      await refuseUnknown(args, acked, err.message);
      return;
    }
    putReach(context, reachOf(services, resolved, { body, bolt, acked: acked.acked }));
    await next();
  };
}

/** The answer to a request from a workspace the deployment does not serve: in words, nothing done. */
async function refuseUnknown(
  args: AnyMiddlewareArgs,
  acked: { acked?: boolean },
  words: string,
): Promise<void> {
  const b = obj(args.body) ?? {};
  const ack = (args as { ack?: (answer?: unknown) => Promise<void> }).ack;
  const respond = (args as { respond?: RespondFn }).respond;
  if (b.type === "view_submission")
    await ack?.({
      response_action: "update",
      view: {
        type: "modal",
        title: { type: "plain_text", text: "Switchboard" },
        close: { type: "plain_text", text: "Close" },
        blocks: [{ type: "section", text: { type: "mrkdwn", text: `:warning: ${words}` } }],
      },
    });
  else if (b.type === "block_suggestion")
    await ack?.({
      options: [{ text: { type: "plain_text", text: words.slice(0, 75) }, value: "sb_unavailable" }],
    });
  else await ackOnce(acked, ack);
  if (typeof b.response_url === "string" && respond)
    await respond({ response_type: "ephemeral", replace_original: false, text: words }).catch(() => {});
}

const KNOWN_ACTIONS: ReadonlySet<string> = new Set(Object.values(ACTION));
const actionIdOf = (b: Json): string => str(obj((b.actions as unknown[] | undefined)?.[0])?.action_id) ?? "?";

/** What a request is, for the log and the stop's hand-back list: "command /sb", "action sb_run", … */
export function whereOf(body: unknown): string {
  const b = obj(body) ?? {};
  if (typeof b.command === "string") return `command ${b.command}`;
  if (b.type === "event_callback") return `event ${str(obj(b.event)?.type) ?? "?"}`;
  if (b.type === "block_actions") return `action ${actionIdOf(b)}`;
  if (b.type === "block_suggestion") return `options ${str(b.action_id) ?? "?"}`;
  if (b.type === "view_submission" || b.type === "view_closed")
    return `form ${str(obj(b.view)?.callback_id) ?? "?"}`;
  if (b.type === "shortcut" || b.type === "message_action") return `shortcut ${str(b.callback_id) ?? "?"}`;
  return String(b.type ?? "request");
}

export { errorRef };

/** Runs `work`; a failure is logged with a reference, and the person told "something went wrong (ref …)" when they can be. */
export async function reported(
  deps: Pick<SlackServices, "logger"> & { work?: { stopped?: boolean } },
  where: string,
  tell: Tell,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (err) {
    const ref = errorRef();
    const detail = (err as { data?: { response_metadata?: unknown } }).data?.response_metadata;
    deps.logger.error({ err, ref, where, slack: slackCode(err), detail }, "Slack handler failed");
    // Handed back at a stop (in-flight.ts): the person was told the outcome is unknown; a failure now comes from the closing.
    if (!tell || deps.work?.stopped) return;
    const text = `Something went wrong (ref ${ref}). Try again; if it keeps happening, give this reference to whoever runs Switchboard.`;
    try {
      await tell({ response_type: "ephemeral", replace_original: false, text });
    } catch (again) {
      deps.logger.error({ err: again, ref, where }, "could not tell the user about the failure");
    }
  }
}

/**
 * 3. Every request's work in flight and reported. Work nobody could be told
 * about when refused runs even while stopping (a workflow step, a thread
 * reply to a customer: refusing would drop it without a word).
 */
export function guard(): Middleware<AnyMiddlewareArgs, SlackContext> {
  return async (args) => {
    const { body, context, next } = args;
    const reach = reachIn(context);
    const b = obj(body) ?? {};
    const where = whereOf(body);
    const tell = typeof b.response_url === "string" ? (args as { respond?: RespondFn }).respond : undefined;
    const eventType = b.type === "event_callback" ? str(obj(b.event)?.type) : undefined;
    const ack = (args as { ack?: () => Promise<void> }).ack;
    // Clicks counted by action and outcome (labels bounded: the known action ids, else "other").
    const clicked = b.type === "block_actions" ? bounded(actionIdOf(b), KNOWN_ACTIONS) : undefined;
    const counted = async () => {
      if (!clicked) return next();
      try {
        await next();
        metrics.clicks.inc({ action: clicked, outcome: "handled" });
      } catch (err) {
        metrics.clicks.inc({ action: clicked, outcome: "failed" });
        throw err;
      }
    };
    await reach.work.run(where, tell, () => reported(reach, where, tell, counted), {
      always: eventType === "function_executed" || eventType === "message",
      // Refused while stopping: acknowledged all the same (Bolt acks other events itself).
      refused: ack ? () => ackOnce(reach, ack) : undefined,
    });
  };
}
