// Deprecated: the middleware (middleware.ts) now names the person and guards
// the work; a button listener is a plain callback (actions/click.ts). Kept
// while the form listeners still use onClick.
import type {
  AllMiddlewareArgs,
  BlockAction,
  BlockElementAction,
  RespondFn,
  SlackActionMiddlewareArgs,
  webApi,
} from "@slack/bolt";
import type { Actor } from "../../commands/types.ts";
import type { SlackDeps } from "../context.ts";
import { guarded } from "../deliver.ts";
import { actionActor } from "./actor.ts";

export interface Clicked<A extends BlockElementAction> {
  actor: Actor;
  action: A;
  body: BlockAction<A>;
  client: webApi.WebClient;
  /** The click's response_url, when it has one (Home tab buttons have none). */
  tell?: RespondFn;
}

/** @deprecated A block-action listener is a plain callback reading `context` (actions/click.ts). */
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
    await guarded(deps, where, tell, () => work({ actor, action, body, client, tell }));
  };
}
