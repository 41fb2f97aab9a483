// What every button listener does before its own work: ack at once (Slack
// waits 3 s), name the person who clicked in the core's terms, and run the
// work guarded (a failure is logged with a reference, and the person is told
// where there is a response_url).
import type {
  AllMiddlewareArgs,
  BlockAction,
  BlockElementAction,
  RespondFn,
  SlackActionMiddlewareArgs,
  webApi,
} from "@slack/bolt";
import { ACTION } from "../../blocks/actions.ts";
import type { Actor } from "../../commands/types.ts";
import { bounded, metrics } from "../../metrics.ts";
import { guarded } from "../deliver.ts";
import type { SlackDeps } from "../deps.ts";
import { actionActor } from "./actor.ts";

const KNOWN_ACTIONS: ReadonlySet<string> = new Set(Object.values(ACTION));

export interface Clicked<A extends BlockElementAction> {
  actor: Actor;
  action: A;
  body: BlockAction<A>;
  client: webApi.WebClient;
  /** The click's response_url, when it has one (Home tab buttons have none). */
  tell?: RespondFn;
}

/** A block-action listener: ack, actor, and the work guarded under `where`. */
export function onClick<A extends BlockElementAction>(
  deps: SlackDeps,
  where: string,
  work: (c: Clicked<A>) => Promise<void>,
) {
  return async ({
    ack,
    body,
    action,
    client,
    respond,
  }: SlackActionMiddlewareArgs<BlockAction<A>> & AllMiddlewareArgs) => {
    await ack();
    const actor = actionActor(body);
    const tell = body.response_url ? respond : undefined;
    const clicked = bounded(action.action_id, KNOWN_ACTIONS);
    try {
      await guarded(deps, where, tell, () => work({ actor, action, body, client, tell }));
      metrics.clicks.inc({ action: clicked, outcome: "handled" });
    } catch (err) {
      metrics.clicks.inc({ action: clicked, outcome: "failed" });
      throw err;
    }
  };
}
