// The one way a listener is registered (issue 38 §3): a typed wrapper around
// Bolt's registration that hands each listener Bolt's own arguments (body, ack,
// client, respond, say…) without Bolt's `context`, and `ctx`, its Reach
// (src/slack/context.ts): the request's workspace as the context middleware
// resolved it (middleware.ts, provideContext: the one place a request's
// workspace is found) and the few deployment services it needs, by name.
// Bolt's `context` is indexed by any string, so a listener reading it could
// name anything and still type-check; `ctx` has no source of other workspaces,
// no database and no index signature (test/architecture/listener-types.ts).
// No listener calls Bolt's app.command/action/view/… itself
// (test/architecture/listeners.test.ts).
import type {
  AllMiddlewareArgs,
  BlockAction,
  SlackAction,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
  SlackEventMiddlewareArgs,
  SlackOptions,
  SlackOptionsMiddlewareArgs,
  SlackShortcut,
  SlackShortcutMiddlewareArgs,
  SlackViewAction,
  SlackViewMiddlewareArgs,
} from "@slack/bolt";
import { DEFAULT_SETTINGS } from "../../commands/workspace-admin.ts";
import type { Leaving, Lifecycle, Reach, SlackBolt, SlackContext } from "../context.ts";
import type { Listeners } from "./routes.ts";

/** Bolt's arguments of a request without its `context`, and the listener's Reach. */
export type Args<A> = A extends unknown ? Omit<A, "context"> & { ctx: Reach } : never;

type Listener<A> = (args: Args<A & AllMiddlewareArgs>) => Promise<void> | void;

type Json = Record<string, unknown>;
const str = (v: unknown): string | undefined => (typeof v === "string" && v ? v : undefined);

/** The request's team as the uninstall events give it: the body's, else Bolt's reading. */
function leavingTeam(body: unknown, context: SlackContext): Parameters<Lifecycle["uninstalled"]>[0] {
  const b = (body ?? {}) as Json;
  return {
    teamId: str(b.team_id) ?? str(context.teamId),
    enterpriseId: str(b.enterprise_id) ?? str(context.enterpriseId),
    isEnterpriseInstall: b.is_enterprise_install === true || context.isEnterpriseInstall === true,
  };
}

/** The Lifecycle, bound to the request's own team: a listener cannot make another workspace leave. */
function leavingOf(
  lifecycle: Lifecycle | undefined,
  body: unknown,
  context: SlackContext,
): Leaving | undefined {
  if (!lifecycle) return undefined;
  return {
    uninstalled: (at) => lifecycle.uninstalled(leavingTeam(body, context), at),
    tokensRevoked: (revoked, at) => lifecycle.tokensRevoked(leavingTeam(body, context), revoked, at),
  };
}

/**
 * A listener's Reach, from Bolt's context as the middleware filled it: each member named, nothing else copied
 * (no `workspaces`, no `db`). `acked` is Bolt's context's own, read and written through.
 */
export function reachOf(context: SlackContext, body: unknown): Reach {
  const ws = context.workspace;
  const confirming = context.inFlight;
  return {
    workspace: ws,
    stores: context.stores,
    core: context.core,
    hooks: context.hooks,
    connected: context.connected,
    // The workspace's effective settings (a workspace not connected has none: its core says how to connect).
    settings: { workflowSteps: context.workflowSteps ?? DEFAULT_SETTINGS.workflowSteps },
    actor: context.actor,
    get acked() {
      return context.acked;
    },
    set acked(value) {
      context.acked = value;
    },
    config: context.config,
    logger: context.logger,
    events: context.events,
    posts: context.posts,
    work: context.work,
    formView: context.formView,
    progressEveryMs: context.progressEveryMs,
    now: context.now,
    noted: (typed) => context.noteCommand({ workspace: ws, stores: context.stores }, typed),
    // Confirmations are the workspace's: the deployment's set, keyed by workspace.
    inFlight: {
      has: (id) => confirming.has(`${ws}:${id}`),
      add: (id) => void confirming.add(`${ws}:${id}`),
      delete: (id) => void confirming.delete(`${ws}:${id}`),
    },
    leaving: leavingOf(context.lifecycle, body, context),
  };
}

/** Bolt's listener around `listener`: Bolt's context taken away, the Reach given. */
function wrap<A>(listener: Listener<A>) {
  return (args: A & AllMiddlewareArgs) => {
    const { context, ...rest } = args as A & AllMiddlewareArgs<SlackContext>;
    return listener({ ...rest, ctx: reachOf(context, (rest as { body?: unknown }).body) } as unknown as Args<
      A & AllMiddlewareArgs
    >);
  };
}

// Bolt's constraints of each kind, or an id (string or pattern) as Bolt takes it.
type ActionConstraints = Parameters<Listeners["action"]>[0] | string | RegExp;
type ViewConstraints = Parameters<Listeners["view"]>[0] | string | RegExp;
type OptionsConstraints = Parameters<Listeners["options"]>[0] | string | RegExp;
type ShortcutConstraints = Parameters<Listeners["shortcut"]>[0] | string | RegExp;

type Kind = "command" | "action" | "view" | "options" | "shortcut" | "event" | "function";

/** The registration of one kind: Bolt's (or the routes') own method, the listener wrapped. */
function on(kind: Kind) {
  return (app: Partial<Record<Kind, unknown>>, key: unknown, listener: Listener<never>): void => {
    (app[kind] as (key: never, listener: never) => void).call(app, key as never, wrap(listener) as never);
  };
}

/** A slash command (any name: a workspace may rename /sb). */
export const onCommand: (
  app: Pick<SlackBolt, "command">,
  name: string | RegExp,
  listener: Listener<SlackCommandMiddlewareArgs>,
) => void = on("command");

/** A button or a menu choice (routes.ts matches them). */
export const onAction: <A extends SlackAction = BlockAction>(
  app: Pick<Listeners, "action">,
  constraints: ActionConstraints,
  listener: Listener<SlackActionMiddlewareArgs<A>>,
) => void = on("action");

/** A form's submission. */
export const onView: <V extends SlackViewAction = SlackViewAction>(
  app: Pick<Listeners, "view">,
  constraints: ViewConstraints,
  listener: Listener<SlackViewMiddlewareArgs<V>>,
) => void = on("view");

/** Options loaded as a person types (block_suggestion). */
export const onOptions: <O extends SlackOptions["type"] = "block_suggestion">(
  app: Pick<Listeners, "options">,
  constraints: OptionsConstraints,
  listener: Listener<SlackOptionsMiddlewareArgs<O>>,
) => void = on("options");

/** A global or message shortcut. */
export const onShortcut: <S extends SlackShortcut = SlackShortcut>(
  app: Pick<Listeners, "shortcut">,
  constraints: ShortcutConstraints,
  listener: Listener<SlackShortcutMiddlewareArgs<S>>,
) => void = on("shortcut");

/** An Events API event, by type. */
export const onEvent: <E extends string>(
  app: Pick<SlackBolt, "event">,
  type: E,
  listener: Listener<SlackEventMiddlewareArgs<E>>,
) => void = on("event");

/** A Workflow Builder step (a custom function), by its callback id. */
export const onFunction: (
  app: Pick<SlackBolt, "function">,
  callbackId: string,
  listener: Listener<SlackEventMiddlewareArgs<"function_executed">>,
) => void = on("function");

/** The listener type of each kind, for a listener written in its own file. */
export type CommandArgs = Args<SlackCommandMiddlewareArgs & AllMiddlewareArgs>;
export type ActionArgs<A extends SlackAction = BlockAction> = Args<
  SlackActionMiddlewareArgs<A> & AllMiddlewareArgs
>;
export type ViewArgs<V extends SlackViewAction = SlackViewAction> = Args<
  SlackViewMiddlewareArgs<V> & AllMiddlewareArgs
>;
export type OptionsArgs<O extends SlackOptions["type"] = "block_suggestion"> = Args<
  SlackOptionsMiddlewareArgs<O> & AllMiddlewareArgs
>;
export type ShortcutArgs<S extends SlackShortcut = SlackShortcut> = Args<
  SlackShortcutMiddlewareArgs<S> & AllMiddlewareArgs
>;
export type EventArgs<E extends string> = Args<SlackEventMiddlewareArgs<E> & AllMiddlewareArgs>;
export type FunctionArgs = EventArgs<"function_executed">;
