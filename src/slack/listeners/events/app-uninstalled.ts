// Leaving (many-workspace mode): `app_uninstalled` removes the workspace's
// installation, tokens and API key and stops its background work;
// `tokens_revoked` removes only the tokens it names. Either may come twice, in
// either order, or late after a reinstall: the store ignores an event older
// than the current installation (src/store/installations.ts). Bolt lets both
// through without authorizing them (the tokens are gone by then).
import type { AllMiddlewareArgs, SlackEventMiddlewareArgs } from "@slack/bolt";
import type { SlackContext } from "../../context.ts";

type Json = Record<string, unknown>;

/** When Slack says the event happened (`event_time`, seconds), else now. */
function eventTimeOf(body: unknown): Date {
  const t = (body as Json | undefined)?.event_time;
  return typeof t === "number" && Number.isFinite(t) ? new Date(t * 1000) : new Date();
}

function teamOfBody(
  body: unknown,
  context: SlackContext,
): { teamId?: string; enterpriseId?: string; isEnterpriseInstall: boolean } {
  const b = (body ?? {}) as Json;
  const org = b.is_enterprise_install === true || context.isEnterpriseInstall === true;
  const enterpriseId =
    (typeof b.enterprise_id === "string" && b.enterprise_id) || (context.enterpriseId as string | undefined);
  const teamId = (typeof b.team_id === "string" && b.team_id) || (context.teamId as string | undefined);
  return { teamId: teamId || undefined, enterpriseId: enterpriseId || undefined, isEnterpriseInstall: org };
}

export async function appUninstalled({
  body,
  context,
}: SlackEventMiddlewareArgs<"app_uninstalled"> & AllMiddlewareArgs<SlackContext>): Promise<void> {
  const leaving = context.lifecycle;
  if (!leaving) return; // one workspace from the environment: its operator removes the settings
  const outcome = await leaving.uninstalled(teamOfBody(body, context), eventTimeOf(body));
  context.logger.info({ outcome }, "app_uninstalled");
}

export async function tokensRevoked({
  body,
  event,
  context,
}: SlackEventMiddlewareArgs<"tokens_revoked"> & AllMiddlewareArgs<SlackContext>): Promise<void> {
  const leaving = context.lifecycle;
  if (!leaving) return;
  const tokens = (event as { tokens?: { oauth?: string[]; bot?: string[] } }).tokens ?? {};
  const outcome = await leaving.tokensRevoked(
    teamOfBody(body, context),
    { botUserIds: tokens.bot ?? [], userIds: tokens.oauth ?? [] },
    eventTimeOf(body),
  );
  context.logger.info({ outcome }, "tokens_revoked");
}
