// The one way a listener is registered (issue 38 §3): a typed wrapper around
// Bolt's registration that hands each listener Bolt's own arguments (body, ack,
// client, respond, say…) without Bolt's `context`, and `ctx`, its Reach
// (src/slack/context.ts): the request's workspace as the context middleware
// resolved it (middleware.ts, provideContext: the one place a request's
// workspace is found) and the few deployment services it needs, by name,
// bound to that workspace. Bolt's `context` is indexed by any string, so a
// listener reading it could name anything and still type-check; `ctx` has no
// source of other workspaces, no database and no index signature
// (test/architecture/listener-types.ts), and Bolt's `context` holds nothing of
// ours but the Reach, under a private key (test/slack/reach-runtime.test.ts).
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
import { type Reach, reachIn, type SlackBolt } from "../context.ts";
import type { Listeners } from "./routes.ts";

/** Bolt's arguments of a request without its `context`, and the listener's Reach. */
export type Args<A> = A extends unknown ? Omit<A, "context"> & { ctx: Reach } : never;

type Listener<A> = (args: Args<A & AllMiddlewareArgs>) => Promise<void> | void;

/** Bolt's listener around `listener`: Bolt's context taken away, the request's Reach given. */
function wrap<A>(listener: Listener<A>) {
  return (args: A & AllMiddlewareArgs) => {
    const { context, ...rest } = args;
    return listener({ ...rest, ctx: reachIn(context) } as unknown as Args<A & AllMiddlewareArgs>);
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
