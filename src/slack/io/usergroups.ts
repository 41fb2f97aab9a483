// A workspace's user groups (usergroups.list, a Tier 2 method: about 20 calls
// a minute), cached per workspace for a few minutes: the settings form lists
// them by name. A workspace whose plan has no user groups (Slack answers
// `plan_upgrade_required`) has none to offer: the form hides the field.
import type { webApi } from "@slack/bolt";
import { slackCode } from "./slack-errors.ts";

export interface UserGroup {
  id: string;
  /** "Support team" */
  name: string;
  /** "support", shown as @support */
  handle: string;
}

/** `available: false`: the workspace's plan has no user groups. */
export type WorkspaceGroups = { available: true; groups: UserGroup[] } | { available: false };

const TTL_MS = 5 * 60_000;
/** The most workspaces kept; the oldest is dropped first. */
const MAX_WORKSPACES = 500;
const cache = new Map<string, { at: number; groups: WorkspaceGroups }>();
const pending = new Map<string, Promise<WorkspaceGroups>>();

/** The workspace's user groups (deleted ones left out), from the cache when fresh. */
export async function workspaceGroups(
  client: webApi.WebClient,
  team: string,
  now: () => number = Date.now,
): Promise<WorkspaceGroups> {
  const hit = cache.get(team);
  if (hit && now() - hit.at < TTL_MS) return hit.groups;
  const inFlight = pending.get(team);
  if (inFlight) return inFlight;
  const load = (async (): Promise<WorkspaceGroups> => {
    try {
      const res = await client.usergroups.list({ include_disabled: false });
      const groups: WorkspaceGroups = {
        available: true,
        groups: (res.usergroups ?? [])
          .filter((g) => g.id && !g.date_delete)
          .map((g) => ({ id: g.id!, name: g.name || g.handle || g.id!, handle: g.handle || "" })),
      };
      remember(team, groups, now());
      return groups;
    } catch (err) {
      if (slackCode(err) === "plan_upgrade_required") {
        const none: WorkspaceGroups = { available: false };
        remember(team, none, now());
        return none;
      }
      // Slack could not answer: what was known, else none to offer now (not cached).
      if (hit) return hit.groups;
      throw err;
    } finally {
      pending.delete(team);
    }
  })();
  pending.set(team, load);
  return load;
}

function remember(team: string, groups: WorkspaceGroups, at: number): void {
  cache.delete(team);
  cache.set(team, { at, groups });
  while (cache.size > MAX_WORKSPACES) cache.delete(cache.keys().next().value!);
}

/** Forgets every workspace's groups (tests). */
export function forgetWorkspaceGroups(): void {
  cache.clear();
}

/** A group as people read it: "Support team (@support)". */
export const groupLabel = (g: UserGroup): string => (g.handle ? `${g.name} (@${g.handle})` : g.name);
