// The listeners of actions, options, views and shortcuts, matched by
// Switchboard rather than each registered with Bolt. Bolt runs every
// registered listener's middleware for every request (App.processEvent maps
// over all of them: a copy of its chain, its matchers' promises), so each of
// the ~80 forms' and buttons' listeners cost every slash command ~1 KB of
// garbage and its CPU: 79 KB of the 225 KB a `/sb help` allocated, whose
// collections then paused the acks of the requests after it
// (bench/slack-ack.bench.ts, docs/benchmarks.md). `Routes` takes the same
// registrations as the App (`routes.action(constraints, listener)`, Bolt's
// types), keeps them in lists, and `mount` gives Bolt one listener per kind
// that runs the routes whose constraints match, as Bolt's matchConstraints
// would: the same payload and body fields, the same RegExp matches in the
// context, every matching route run, one error thrown as it is, several as
// Bolt's MultipleListenerError. A request that no route matches is left as
// Bolt leaves it (not acknowledged).
import { type AnyMiddlewareArgs, type Context, MultipleListenerError } from "@slack/bolt";
import type { SlackBolt } from "../context.ts";

type Kind = "action" | "options" | "view" | "shortcut";

interface Constraints {
  type?: string;
  block_id?: string | RegExp;
  action_id?: string | RegExp;
  callback_id?: string | RegExp;
}

type Args = AnyMiddlewareArgs & { context: Context; next: () => Promise<void> };
// biome-ignore lint/suspicious/noExplicitAny: a listener of any kind's arguments; Bolt's own signatures type the callers.
type Listener = (args: any) => Promise<void> | void;

interface Route {
  constraints: Constraints;
  listeners: Listener[];
}

/** What a register function may take: the App's own methods for these kinds (Routes, or the App itself). */
export type Listeners = Pick<SlackBolt, "action" | "options" | "view" | "shortcut">;

/** Bolt's defaults for a bare id or pattern: an action's and an option's is the action_id, a view's the callback_id of a submission. */
function normalize(kind: Kind, c: string | RegExp | Constraints): Constraints {
  if (typeof c !== "string" && !(c instanceof RegExp)) return c;
  if (kind === "view") return { callback_id: c, type: "view_submission" };
  if (kind === "shortcut") return { callback_id: c };
  return { action_id: c };
}

/** Bolt's matchConstraints, as a test: the matches of RegExp constraints go into the context as Bolt puts them. */
export function matches(c: Constraints, args: { payload: unknown; body: unknown; context: object }): boolean {
  const payload = args.payload as { block_id?: string; action_id?: string };
  const body = args.body as { type?: string; callback_id?: string; view?: { callback_id?: string } };
  const found: Partial<Record<"blockIdMatches" | "actionIdMatches" | "callbackIdMatches", RegExpMatchArray>> =
    {};
  const test = (want: string | RegExp, value: string, key: keyof typeof found): boolean => {
    if (typeof want === "string") return value === want;
    const m = value.match(want);
    if (m) found[key] = m;
    return m !== null;
  };
  if (c.block_id !== undefined || c.action_id !== undefined) {
    if (payload?.action_id === undefined) return false;
    if (c.block_id !== undefined && !test(c.block_id, payload.block_id ?? "", "blockIdMatches")) return false;
    if (c.action_id !== undefined && !test(c.action_id, payload.action_id, "actionIdMatches")) return false;
  }
  if (c.callback_id !== undefined) {
    const callbackId = body.view !== undefined ? body.view.callback_id : body.callback_id;
    if (callbackId === undefined) return false;
    if (!test(c.callback_id, callbackId, "callbackIdMatches")) return false;
  }
  if (c.type !== undefined && body.type !== c.type) return false;
  Object.assign(args.context, found);
  return true;
}

/** A route's listeners as Bolt chains them: each but the last calls `next` for the one after it. */
async function runChain(listeners: Listener[], args: Args): Promise<void> {
  const step = async (i: number): Promise<void> => {
    const listener = listeners[i];
    if (!listener) return;
    const last = i === listeners.length - 1;
    await listener({ ...args, next: last ? () => {} : () => step(i + 1) });
  };
  await step(0);
}

export class Routes {
  private readonly routes: Record<Kind, Route[]> = { action: [], options: [], view: [], shortcut: [] };

  private add(kind: Kind, c: string | RegExp | Constraints, listeners: Listener[]): void {
    this.routes[kind].push({ constraints: normalize(kind, c), listeners });
  }

  readonly action = ((c: string | RegExp | Constraints, ...ls: Listener[]) =>
    this.add("action", c, ls)) as SlackBolt["action"];
  readonly options = ((c: string | RegExp | Constraints, ...ls: Listener[]) =>
    this.add("options", c, ls)) as SlackBolt["options"];
  readonly view = ((c: string | RegExp | Constraints, ...ls: Listener[]) =>
    this.add("view", c, ls)) as SlackBolt["view"];
  readonly shortcut = ((c: string | RegExp | Constraints, ...ls: Listener[]) =>
    this.add("shortcut", c, ls)) as SlackBolt["shortcut"];

  /** How many routes of each kind (tests). */
  count(kind: Kind): number {
    return this.routes[kind].length;
  }

  /** Runs the routes of `kind` whose constraints match, as Bolt runs its listeners. */
  async dispatch(kind: Kind, args: Args): Promise<void> {
    const matched = this.routes[kind].filter((r) => matches(r.constraints, args));
    if (matched.length === 0) return;
    if (matched.length === 1) return runChain((matched[0] as Route).listeners, args);
    const settled = await Promise.allSettled(matched.map((r) => runChain(r.listeners, args)));
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === "rejected");
    if (failed.length === 1) throw failed[0]?.reason;
    if (failed.length > 1) throw new MultipleListenerError(failed.map((f) => f.reason));
  }

  /** One Bolt listener per kind, each running this kind's routes. */
  mount(app: SlackBolt): void {
    app.action({}, (args) => this.dispatch("action", args as unknown as Args));
    app.options({}, (args) => this.dispatch("options", args as unknown as Args));
    app.view({}, (args) => this.dispatch("view", args as unknown as Args));
    app.shortcut({}, (args) => this.dispatch("shortcut", args as unknown as Args));
  }
}
