// A campaign as its card (`/sb campaign <id>`): the facts by name (template,
// tag, channel, groups) and the recipients by status.
import type { Campaign } from "../api/types.ts";
import { type CampaignSummary, ratesOf, STATUSES, summarizeCampaign } from "../domain/campaign-summary.ts";
import { channelLabel, nameOf, pick, refId, relatedNames, show, templateLabel } from "../domain/records.ts";
import type { Counts } from "../domain/reports.ts";
import { approvalMark } from "./approval.ts";
import { campaignCard, factsLine } from "./card.ts";
import type { CampaignContext } from "./context.ts";
import { heldButtons, heldLine } from "./held-starts.ts";

/** The card's facts: template, tag and channel by name, and who launched it. */
export async function factsOf(ctx: CampaignContext, c: Campaign, launchedBy?: string): Promise<string> {
  const templateId = refId(c, "templateId", "template_id");
  const tagId = refId(c, "conversationTagId", "conversation_tag_id");
  const channelId = refId(c, "integrationId", "integration_id");
  const groups = ((pick(c, "groupIds", "group_ids") as unknown[] | undefined) ?? []).filter(
    (g): g is number => typeof g === "number",
  );
  const names = await relatedNames({
    template: templateId ? async () => templateLabel(await ctx.api.getTemplate(templateId)) : undefined,
    tag: tagId ? async () => show(pick(await ctx.api.getTag(tagId), "name") ?? "") : undefined,
    channel: channelId ? () => channelLabel(ctx, channelId) : undefined,
    audience: groups.length
      ? async () => {
          const named = await Promise.all(
            groups.slice(0, 3).map((g) => ctx.api.getGroup(g).then((r) => nameOf(r, `group ${g}`))),
          );
          return [...named, ...(groups.length > 3 ? [`${groups.length - 3} more groups`] : [])].join(", ");
        }
      : undefined,
    launchedBy: async () => launchedBy ?? (c.id !== undefined ? ctx.launchedBy(Number(c.id)) : undefined),
  });
  // A name that could not be read leaves the number, never a gap.
  return factsLine({
    ...names,
    template: names.template ?? (templateId ? `#${templateId}` : undefined),
    tag: names.tag ?? (tagId ? `#${tagId}` : undefined),
  });
}

/** Recipients by status from the campaign's own counts (`stats`), else read (7 small reads). */
async function summaryOf(
  ctx: CampaignContext,
  id: number,
  c: Campaign,
): Promise<CampaignSummary | undefined> {
  const stats = pick(c, "stats");
  if (stats && typeof stats === "object") {
    const counts = Object.fromEntries(
      STATUSES.map((s) => [s, Number((stats as Record<string, unknown>)[s] ?? 0) || 0]),
    ) as Counts;
    const total = STATUSES.reduce((n, s) => n + counts[s], 0);
    return {
      id,
      name: nameOf(c),
      status: String(pick(c, "status") ?? ""),
      counts,
      total,
      ...ratesOf(counts),
      partial: false,
      method: "totals",
      requests: 0,
    };
  }
  if (pick(c, "status") === "draft") return undefined;
  return summarizeCampaign(ctx.api, id, { lane: "interactive", campaign: c });
}

export async function cardOf(ctx: CampaignContext, id: number, c: Campaign) {
  const [facts, summary, held, approval] = await Promise.all([
    factsOf(ctx, c),
    summaryOf(ctx, id, c),
    ctx.heldStarts?.ofCampaign(id).catch(() => undefined),
    approvalMark(ctx, id, c).catch(() => undefined),
  ]);
  const status = String(pick(c, "status") ?? "unknown");
  // A held start's line while the campaign waits for it (a draft): "Starts at …", "Start cancelled by …".
  const waiting = held && (status === "draft" || status === "scheduled") && held.state !== "sent";
  const live = waiting && (held.state === "held" || held.state === "asked");
  return campaignCard({
    id,
    name: nameOf(c, `Campaign ${id}`),
    status,
    summary: summary && summary.total > 0 ? summary : undefined,
    facts,
    ...(waiting ? { startLine: heldLine(held, ctx.startRules) } : {}),
    ...(live ? { buttons: heldButtons(held) } : {}),
    ...(approval ? { approval } : {}),
  });
}

/** The launch's live card (one event, one message: it then updates in place), and its facts line. */
export async function launchCard(ctx: CampaignContext, id: number, c: Campaign) {
  const facts = await factsOf(ctx, c, ctx.who);
  const card = campaignCard({
    id,
    name: nameOf(c, `Campaign ${id}`),
    status: String(pick(c, "status") ?? "running"),
    facts,
    footer: ":hourglass_flowing_sand: Starting; the figures follow here.",
  });
  return { card, facts };
}
