// Slack resends an event it thinks was lost (X-Slack-Retry-Num, or a Socket
// Mode redelivery); the event_id stays the same, so the first delivery is
// handled and the others are dropped, each acknowledged all the same: Bolt
// acks most events before the middleware runs, but leaves `function_executed`
// to the listener, which a dropped repeat never reaches.
import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import { reachIn, type SlackContext } from "../../context.ts";

export const dedupeEvents: Middleware<AnyMiddlewareArgs, SlackContext> = async (args) => {
  const { body, context, next } = args;
  const b = body as { type?: string; event_id?: unknown };
  if (b.type === "event_callback" && typeof b.event_id === "string") {
    const ctx = reachIn(context);
    if (!(await ctx.events.claim(b.event_id))) {
      const ack = (args as { ack?: () => Promise<void> }).ack;
      if (ack) await ack();
      ctx.logger.info({ eventId: b.event_id, retryNum: context.retryNum }, "repeated Slack event dropped");
      return;
    }
  }
  await next();
};
