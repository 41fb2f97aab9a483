// Slack resends an event it thinks was lost (X-Slack-Retry-Num); the event_id
// stays the same, so the first delivery is handled and the others are dropped.
import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import type { SlackDeps } from "../../deps.ts";

export function dedupeEvents(deps: SlackDeps): Middleware<AnyMiddlewareArgs> {
  return async ({ body, context, next }) => {
    const b = body as { type?: string; event_id?: unknown };
    if (b.type === "event_callback" && typeof b.event_id === "string") {
      if (!(await deps.events.claim(b.event_id))) {
        deps.logger.info({ eventId: b.event_id, retryNum: context.retryNum }, "repeated Slack event dropped");
        return;
      }
    }
    await next();
  };
}
