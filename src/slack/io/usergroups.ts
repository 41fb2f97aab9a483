// A workspace's user groups (usergroups.list, a Tier 2 method: about 20 calls
// a minute), cached for a few minutes by the workspace's bot client: the settings form lists
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

/** What is known of one workspace's groups, and the read under way. */
interface Known {
  /** The generation it was made in: forgetWorkspaceGroups() starts a new one. */
  generation: number;
  at?: number;
  groups?: WorkspaceGroups;
  pending?: Promise<WorkspaceGroups>;
}

// state: owned: keyed by the workspace's own bot client, gone with it.
/**
 * Held by the workspace's own bot client (issue 38 §3: a cache belongs to its
 * owner): each workspace's client, and each deployment's, has its own, and it
 * goes with the client. Before, one map for the process keyed by the actor's
 * team id (or "single") let two deployments' workspaces of one id share it.
 */
const known = new WeakMap<webApi.WebClient, Known>();
// state: the process's: forgetWorkspaceGroups() (tests) ends every client's cache at once.
let generation = 0;

/** The workspace's user groups (deleted ones left out), from its client's cache when fresh. */
export async function workspaceGroups(
  client: webApi.WebClient,
  now: () => number = Date.now,
): Promise<WorkspaceGroups> {
  let mine = known.get(client);
  if (mine?.generation !== generation) {
    mine = { generation };
    known.set(client, mine);
  }
  const hit = mine.groups;
  if (hit && now() - (mine.at ?? 0) < TTL_MS) return hit;
  if (mine.pending) return mine.pending;
  const remember = (groups: WorkspaceGroups) => {
    mine.groups = groups;
    mine.at = now();
    return groups;
  };
  const load = (async (): Promise<WorkspaceGroups> => {
    try {
      const res = await client.usergroups.list({ include_disabled: false });
      return remember({
        available: true,
        groups: (res.usergroups ?? [])
          .filter((g) => g.id && !g.date_delete)
          .map((g) => ({ id: g.id!, name: g.name || g.handle || g.id!, handle: g.handle || "" })),
      });
    } catch (err) {
      if (slackCode(err) === "plan_upgrade_required") return remember({ available: false });
      // Slack could not answer: what was known, else none to offer now (not cached).
      if (hit) return hit;
      throw err;
    } finally {
      mine.pending = undefined;
    }
  })();
  mine.pending = load;
  return load;
}

/** Forgets what every client knows of its workspace's groups (tests). */
export function forgetWorkspaceGroups(): void {
  generation += 1;
}

/** A group as people read it: "Support team (@support)". */
export const groupLabel = (g: UserGroup): string => (g.handle ? `${g.name} (@${g.handle})` : g.name);
