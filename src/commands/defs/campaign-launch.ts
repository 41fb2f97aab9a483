// Sending or cancelling a campaign: the preview to confirm (what is sent, to
// how many people), a status that already answers (completed, cancelled),
// and the API's refusals in words.

import type { KnownBlock } from "@slack/types";
import { isApiError } from "../../api/errors.ts";
import type { Campaign, MessagingApi, Template } from "../../api/types.ts";
import { esc, fieldsSection, header, section } from "../../blocks/blocks.ts";
import { audienceForSend } from "../../campaigns/audience.ts";
import { CARD_STATUS, FINAL_STATUSES } from "../../campaigns/card.ts";
import { stateWords } from "../../campaigns/road.ts";
import { type CommandContext, type Preview, UserError } from "../registry.ts";
import { pick, show } from "../render.ts";
import { campaignMessageText } from "./campaign-message.ts";
import { nameOf, quoted } from "./common.ts";
import { memberCount } from "./groups.ts";

async function templateOf(api: MessagingApi, c: Campaign): Promise<Template | undefined> {
  const id = Number(pick(c, "templateId", "template_id"));
  if (!Number.isInteger(id) || id <= 0) return undefined;
  try {
    return await api.getTemplate(id);
  } catch (err) {
    if (isApiError(err) && err.kind === "not_found") return { id, name: "(template not found)" };
    throw err;
  }
}

/**
 * How many people a send reaches: the campaign's recipients when it has them
 * (a page of one, read for its total), else its own counts, else its audience
 * (contacts named plus the member counts of its groups).
 */
export async function audienceOf(api: MessagingApi, id: number, c: Campaign): Promise<string> {
  const recipients = await api.listCampaignRecipients(id, { limit: 1 });
  if (recipients.total !== undefined && recipients.total > 0) return `${recipients.total} recipients`;
  const own = pick(c, "totalRecipients", "recipientCount", "recipients_count", "audienceSize", "total");
  if (typeof own === "number") return `${own} recipients`;
  const contacts = (pick(c, "contactIds") as number[] | undefined) ?? [];
  const groups = (pick(c, "groupIds") as number[] | undefined) ?? [];
  if (!contacts.length && !groups.length)
    return recipients.total === 0 ? "none: the campaign names no group or contact" : "unknown";
  let n = contacts.length;
  let exact = true;
  for (const g of groups) {
    const count = memberCount(await api.getGroup(g));
    if (typeof count === "number") n += count;
    else exact = false;
  }
  const parts = [
    groups.length ? `group${groups.length > 1 ? "s" : ""} ${groups.map((g) => `#${g}`).join(", ")}` : "",
    contacts.length ? `${contacts.length} contact(s)` : "",
  ].filter(Boolean);
  return `${exact ? "" : "at least "}${n} recipients (${parts.join(" + ")}; opted-out contacts are skipped)`;
}

/**
 * A send or cancel the campaign's status already answers: said at once, with
 * the next useful action, instead of a prompt the API would refuse.
 */
function finalStateRefusal(action: "send" | "cancel", id: number, c: Campaign): UserError | undefined {
  const status = String(pick(c, "status") ?? "");
  if (!FINAL_STATUSES.has(status)) return undefined;
  const name = `*${esc(nameOf(c, `Campaign ${id}`))}*`;
  const was =
    status === "completed"
      ? "has already completed"
      : status === "cancelled"
        ? "was cancelled"
        : "has failed";
  const text =
    action === "cancel"
      ? `${name} ${was}; there is nothing to cancel.`
      : `${name} ${was}; a campaign is sent once, so it cannot be sent again. To send the message again, create a new campaign with the same template.`;
  return new UserError(text, false, [
    { text: "Report", line: `report now ${id}`, style: "primary" },
    ...(action === "send" ? [{ text: "New campaign", line: "campaign new" }] : []),
    { text: "Open", line: `campaign ${id}` },
  ]);
}

/** The API refused a send or cancel the spec leaves open (a paused or scheduled campaign): its reason, in words. */
export async function refusedInWords<T>(
  action: "send" | "cancel",
  id: number,
  ctx: CommandContext,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isApiError(err) || err.kind !== "conflict") throw err;
    const c = await ctx.api.getCampaign(id).catch(() => undefined);
    const name = `*${esc(nameOf(c, `Campaign ${id}`))}*`;
    const status = c ? CARD_STATUS[String(pick(c, "status"))]?.label.toLowerCase() : undefined;
    // `campaign 5 is paused: only draft or scheduled campaigns can be sent` → `it is paused: …`.
    const reason = esc(err.message.replace(/^campaign\s+\d+\s+/i, "it "));
    throw new UserError(
      `The messaging API would not ${action} ${name}${status ? ` (${esc(status)})` : ""}: ${reason}`,
      false,
      [{ text: "Open", line: `campaign ${id}` }],
    );
  }
}

export async function campaignPreview(
  action: "send" | "cancel",
  id: number,
  ctx: CommandContext,
  read?: Campaign,
): Promise<Preview> {
  const c = read ?? (await ctx.api.getCampaign(id));
  const refusal = finalStateRefusal(action, id, c);
  if (refusal) throw refusal;
  // A stale Send… (a card drawn before it started): refused by state at once, saying where it is now.
  if (action === "send" && String(pick(c, "status") ?? "") === "running")
    throw new UserError(stateWords(`*${esc(nameOf(c, `Campaign ${id}`))}*`, "running"), false, [
      { text: "Report", line: `report now ${id}`, style: "primary" },
      { text: "Open", line: `campaign ${id}` },
    ]);
  const t = await templateOf(ctx.api, c);
  const counted = action === "send" ? await audienceForSend(ctx, id, c, 2) : undefined;
  const audience = counted ? counted.text : await audienceOf(ctx.api, id, c);
  const verb = action === "send" ? "Send" : "Cancel";
  const title = `${verb} campaign #${id}${quoted(c) ? ` ${show(pick(c, "name"))}` : ""}?`.replace(
    /\s+\?$/,
    "?",
  );
  const pairs: Array<[string, string]> = [
    ["Status", esc(show(pick(c, "status")))],
    [
      "Template",
      t
        ? `#${esc(show(t.id))} ${esc(show(t.name))} (${esc(show(pick(t, "language")))}, ${esc(show(pick(t, "status")))})`
        : "—",
    ],
    ...(counted ? [] : [["Audience", esc(audience)] as [string, string]]),
  ];
  const message = action === "send" ? campaignMessageText(t, c) : "";
  const blocks: KnownBlock[] = [header(title), ...fieldsSection(pairs), ...(counted?.blocks ?? [])];
  if (message) blocks.push(section(message));
  if (action === "cancel")
    blocks.push(section("Cancelling stops what is still pending; messages already sent stay sent."));
  return {
    text: `${title} Template: ${t ? show(t.name) : "—"}. Audience: ${audience}.`,
    blocks,
    confirm:
      action === "send"
        ? { text: "Send campaign", style: "primary" }
        : { text: "Cancel campaign", style: "danger", dismiss: "Keep it" },
  };
}
