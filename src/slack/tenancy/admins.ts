// Who may connect a workspace and change its settings (docs/workspaces.md,
// "Connecting and settings"): its admins and owners (users.info), and the
// person who installed the app. Answers are kept a few minutes per person.
import type { webApi } from "@slack/bolt";
import type { Actor } from "../../commands/types.ts";

const KEEP_MS = 5 * 60_000;

export function slackAdminCheck(
  client: webApi.WebClient,
  installerUserId?: string,
  now: () => number = Date.now,
): (actor: Actor) => Promise<boolean> {
  const known = new Map<string, { admin: boolean; at: number }>();
  return async (actor) => {
    if (actor.via === "shell") return true;
    if (installerUserId && actor.userId === installerUserId) return true;
    const kept = known.get(actor.userId);
    if (kept && now() - kept.at < KEEP_MS) return kept.admin;
    const { user } = await client.users.info({ user: actor.userId });
    const admin = Boolean(user?.is_admin || user?.is_owner || user?.is_primary_owner);
    known.set(actor.userId, { admin, at: now() });
    return admin;
  };
}
