// The arguments of a button listener, with the person who clicked in the
// context (listeners/middleware.ts), and where to answer them.
import type {
  AllMiddlewareArgs,
  BlockAction,
  BlockElementAction,
  RespondFn,
  SlackActionMiddlewareArgs,
} from "@slack/bolt";
import type { SlackContext } from "../../context.ts";

export type Click<A extends BlockElementAction = BlockElementAction> = SlackActionMiddlewareArgs<
  BlockAction<A>
> &
  AllMiddlewareArgs<SlackContext>;

/** The click's response_url, when it has one (Home tab buttons have none: answers go to the app's DM). */
export const tellOf = (body: BlockAction, respond: RespondFn): RespondFn | undefined =>
  body.response_url ? respond : undefined;
