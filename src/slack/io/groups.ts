// Who is in a Slack user group, for SWITCHBOARD_WRITERS / _BROADCASTERS
// entries naming a group (S…). Cached a few minutes: membership changes
// rarely and usergroups.users.list is a Tier 2 method (about 20 calls a minute).
import type { webApi } from "@slack/bolt";
import type { Logger } from "../../platform/log.ts";

export type ResolveGroupMembers = (groupId: string) => Promise<string[]>;

export function createGroupResolver(
  client: webApi.WebClient,
  opts: { logger: Logger; ttlMs?: number },
): ResolveGroupMembers {
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const cache = new Map<string, { at: number; users: string[] }>();
  const pending = new Map<string, Promise<string[]>>();
  return async (groupId) => {
    const hit = cache.get(groupId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.users;
    const inFlight = pending.get(groupId);
    if (inFlight) return inFlight;
    const load = (async () => {
      try {
        const res = await client.usergroups.users.list({ usergroup: groupId });
        const users = res.users ?? [];
        cache.set(groupId, { at: Date.now(), users });
        return users;
      } catch (err) {
        // Keep using what we knew; with nothing known, nobody is in the group (fail closed).
        opts.logger.warn({ err: (err as Error).message, groupId }, "could not list user group members");
        return hit?.users ?? [];
      } finally {
        pending.delete(groupId);
      }
    })();
    pending.set(groupId, load);
    return load;
  };
}
