// A person's time zone from their Slack profile (users.info `tz`), for the
// default zone of the report schedules they create. Cached an hour: zones
// rarely change and users.info is a Tier 4 method shared with everything else.
import type { webApi } from "@slack/bolt";
import type { Actor } from "../../../commands/types.ts";
import type { Logger } from "../../../platform/log.ts";

export function createUserTz(
  client: webApi.WebClient,
  opts: { logger: Logger; ttlMs?: number },
): (actor: Actor) => Promise<string | undefined> {
  const ttlMs = opts.ttlMs ?? 60 * 60_000;
  const cache = new Map<string, { at: number; tz: string | undefined }>();
  return async (actor) => {
    if (actor.via !== "slack") return undefined;
    const hit = cache.get(actor.userId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.tz;
    try {
      const res = await client.users.info({ user: actor.userId });
      const tz = typeof res.user?.tz === "string" ? res.user.tz : undefined;
      cache.set(actor.userId, { at: Date.now(), tz });
      return tz;
    } catch (err) {
      // Unknown: the schedule falls back to UTC, and the answer shows the zone it used.
      opts.logger.warn(
        { err: (err as Error).message, user: actor.userId },
        "could not read the user's time zone",
      );
      return hit?.tz;
    }
  };
}
