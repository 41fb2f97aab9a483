// The arguments of a button listener (listeners/on.ts: Bolt's, and its Reach `ctx`, with the person who
// clicked), and where to answer them.
import type { BlockAction, BlockElementAction, RespondFn } from "@slack/bolt";
import type { ActionArgs } from "../on.ts";

export type Click<A extends BlockElementAction = BlockElementAction> = ActionArgs<BlockAction<A>>;

/** The click's response_url, when it has one (Home tab buttons have none: answers go to the app's DM). */
export const tellOf = (body: BlockAction, respond: RespondFn): RespondFn | undefined =>
  body.response_url ? respond : undefined;
