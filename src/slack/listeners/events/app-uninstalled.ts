// Leaving (many-workspace mode): `app_uninstalled` removes the workspace's
// installation, tokens and API key and stops its background work;
// `tokens_revoked` removes only the tokens it names. Either may come twice, in
// either order, or late after a reinstall: the store ignores an event older
// than the current installation (src/store/installations.ts). Bolt lets both
// through without authorizing them (the tokens are gone by then). The
// listener gets the Lifecycle bound to the request's own team (`ctx.leaving`,
// listeners/on.ts): it cannot make another workspace leave.
import type { EventArgs } from "../on.ts";

type Json = Record<string, unknown>;

/** When Slack says the event happened (`event_time`, seconds), else now. */
function eventTimeOf(body: unknown): Date {
  const t = (body as Json | undefined)?.event_time;
  return typeof t === "number" && Number.isFinite(t) ? new Date(t * 1000) : new Date();
}

export async function appUninstalled({ body, ctx }: EventArgs<"app_uninstalled">): Promise<void> {
  const leaving = ctx.leaving;
  if (!leaving) return; // one workspace from the environment: its operator removes the settings
  const outcome = await leaving.uninstalled(eventTimeOf(body));
  ctx.logger.info({ outcome }, "app_uninstalled");
}

export async function tokensRevoked({ body, event, ctx }: EventArgs<"tokens_revoked">): Promise<void> {
  const leaving = ctx.leaving;
  if (!leaving) return;
  const tokens = (event as { tokens?: { oauth?: string[]; bot?: string[] } }).tokens ?? {};
  const outcome = await leaving.tokensRevoked(
    { botUserIds: tokens.bot ?? [], userIds: tokens.oauth ?? [] },
    eventTimeOf(body),
  );
  ctx.logger.info({ outcome }, "tokens_revoked");
}
