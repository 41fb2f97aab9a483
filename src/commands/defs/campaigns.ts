import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { isApiError } from "../../api/errors.ts";
import {
  CAMPAIGN_STATUSES,
  createCampaignSchema,
  isoDateTimeSchema,
  RECIPIENT_STATUSES,
} from "../../api/schemas.ts";
import type { Campaign, MessagingApi, Template } from "../../api/types.ts";
import { context, count, esc, fieldsSection, header, section } from "../../blocks/blocks.ts";
import type { Counts } from "../../domain/reports.ts";
import { CARD_STATUS, campaignCard, FINAL_STATUSES, factsLine } from "../../reports/card.ts";
import { type CampaignSummary, ratesOf, STATUSES, summarizeCampaign } from "../../reports/summary.ts";
import { choice, idArg, idList, limitArg, optionalId, pageArg, requiredText } from "../args.ts";
import { audienceForSend, audienceSummary, recordCreated, recordStarted } from "../campaign-audience.ts";
import { CAMPAIGN_TEST_COMMAND } from "../campaign-test.ts";
import { formReply } from "../forms.ts";
import { loadCampaignData } from "../lookups.ts";
import { type CommandContext, defineCommand, type Preview, UserError } from "../registry.ts";
import { listLine, pageReply, pick, show } from "../render.ts";
import {
  campaignMessageText,
  checkPlaceholderValues,
  PARAM_PREFIX,
  placeholderValues,
} from "./campaign-message.ts";
import { checkBody } from "./check.ts";
import {
  announce,
  channelLabel,
  channelNamesOf,
  contactName,
  nameOf,
  pageLine,
  quoted,
  refId,
  relatedNames,
  resolveChannel,
  templateLabel,
} from "./common.ts";
import { memberCount } from "./groups.ts";

const FIRST = ["id", "name", "status", "integrationId", "templateId", "conversationTagId"];
const NAMES = {
  integrationId: "channel",
  templateId: "template",
  conversationTagId: "tag",
  groupIds: "group",
  contactIds: "contacts",
  scheduledAt: "at",
};

/** The card's facts: template, tag and channel by name, and who launched it. */
async function factsOf(ctx: CommandContext, c: Campaign, launchedBy?: string): Promise<string> {
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
async function summaryOf(ctx: CommandContext, id: number, c: Campaign): Promise<CampaignSummary | undefined> {
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

async function cardOf(ctx: CommandContext, id: number, c: Campaign) {
  const [facts, summary] = await Promise.all([factsOf(ctx, c), summaryOf(ctx, id, c)]);
  return campaignCard({
    id,
    name: nameOf(c, `Campaign ${id}`),
    status: String(pick(c, "status") ?? "unknown"),
    summary: summary && summary.total > 0 ? summary : undefined,
    facts,
  });
}

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
async function audienceOf(api: MessagingApi, id: number, c: Campaign): Promise<string> {
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

/** A recipient's status as an icon and a word. */
const RECIPIENT_WORDS: Record<string, { icon: string; label: string }> = {
  pending: { icon: ":hourglass_flowing_sand:", label: "Waiting" },
  sending: { icon: ":outbox_tray:", label: "Sending" },
  sent: { icon: ":outbox_tray:", label: "Sent" },
  delivered: { icon: ":white_check_mark:", label: "Delivered" },
  read: { icon: ":eyes:", label: "Read" },
  failed: { icon: ":x:", label: "Failed" },
  skipped: { icon: ":fast_forward:", label: "Skipped" },
};

/**
 * Names of contacts read lately, by workspace and id (`T123:42`; ids are the
 * API account's, so two workspaces may both have a contact 42): a page of
 * recipients is named from here first.
 */
const CONTACT_NAMES = new Map<string, string>();
const CONTACT_NAMES_MAX = 5_000;
/** Contacts read per page at most: the spec cannot read contacts by a list of ids. */
const NAME_READS = 20;

/**
 * The names of a page's recipients that carry none themselves: from the
 * cache first, then one read per contact, at most NAME_READS (a page is at
 * most its page size). `unread`: recipients left with their phone.
 */
async function recipientNames(
  ctx: CommandContext,
  items: Array<Record<string, unknown>>,
): Promise<Map<number, string> & { unread: number }> {
  const names = Object.assign(new Map<number, string>(), { unread: 0 });
  const wanted = new Set<number>();
  for (const r of items) {
    const id = refId(r, "contactId", "contact_id");
    if (id === undefined || show(pick(r, "name") ?? "")) continue;
    const known = CONTACT_NAMES.get(`${ctx.workspace}:${id}`);
    if (known !== undefined) names.set(id, known);
    else wanted.add(id);
  }
  const reads = [...wanted].slice(0, NAME_READS);
  const read = await Promise.all(
    reads.map((id) =>
      ctx.api.getContact(id).then(
        (c) => [id, contactName(c)] as const,
        () => [id, ""] as const,
      ),
    ),
  );
  for (const [id, name] of read) {
    if (!name) continue;
    names.set(id, name);
    if (CONTACT_NAMES.size >= CONTACT_NAMES_MAX)
      CONTACT_NAMES.delete(CONTACT_NAMES.keys().next().value as string);
    CONTACT_NAMES.set(`${ctx.workspace}:${id}`, name);
  }
  names.unread = items.filter((r) => {
    const id = refId(r, "contactId", "contact_id");
    return id !== undefined && !show(pick(r, "name") ?? "") && !names.has(id) && !reads.includes(id);
  }).length;
  return names;
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
async function refusedInWords<T>(
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

async function campaignPreview(action: "send" | "cancel", id: number, ctx: CommandContext): Promise<Preview> {
  const c = await ctx.api.getCampaign(id);
  const refusal = finalStateRefusal(action, id, c);
  if (refusal) throw refusal;
  const counted = action === "send" ? await audienceForSend(ctx, id, c, 2) : undefined;
  const t = await templateOf(ctx.api, c);
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

const NO_AUDIENCE =
  "It has no audience (no group= or contacts= was given): the messaging API decides who gets it, and may refuse to send it.";

/** The options of `campaign add`: a placeholder named like one is written `param.<name>=`. */
const CAMPAIGN_ADD_OPTIONS = ["template", "channel", "tag", "group", "contacts", "at"];

export const CAMPAIGN_COMMANDS = [
  defineCommand({
    id: "campaigns.list",
    words: ["campaigns"],
    options: {
      status: `one of ${CAMPAIGN_STATUSES.join(", ")}`,
      page: "page number",
      limit: "campaigns per page, 1 to 100",
    },
    schema: z.object({ status: choice(CAMPAIGN_STATUSES).optional(), page: pageArg, limit: limitArg }),
    scope: "read",
    usage: "campaigns [status=] [page=] [limit=]",
    summary: "List campaigns",
    example: "campaigns status=running",
    topic: "campaigns",
    operations: ["listCampaigns", "listTemplates"],
    run: async (a, ctx) => {
      // One read of the templates names them all (never one read per row); without it, ids.
      const [page, templates] = await Promise.all([
        ctx.api.listCampaigns({ status: a.status, page: a.page, limit: a.limit }),
        ctx.api.listTemplates({}).then(
          (p) => p.items,
          () => [],
        ),
      ]);
      const names = new Map(templates.map((t) => [Number(t.id), templateLabel(t)]));
      const templateOf = (c: Campaign) => {
        const id = refId(c, "templateId", "template_id");
        if (id === undefined) return "";
        return names.get(id) ?? `template ${id}`;
      };
      // `:white_check_mark: #1 Spring sale 2026 · Completed · spring_sale (es)`: the card's status words.
      const statusOf = (c: Campaign) => {
        const s = CARD_STATUS[String(c.status)];
        return s ? s.label : c.status;
      };
      return pageReply({
        title: a.status ? `Campaigns (${a.status})` : "Campaigns",
        plural: "campaigns",
        page,
        pageLine: pageLine(ctx),
        line: (c) =>
          `${CARD_STATUS[String(c.status)]?.icon ?? ""} ${listLine(c.id, c.name, statusOf(c), templateOf(c))}`.trim(),
      });
    },
  }),
  defineCommand({
    id: "campaign.show",
    words: ["campaign"],
    positionals: [{ name: "id" }],
    schema: z.object({ id: idArg }),
    scope: "read",
    usage: "campaign <id>",
    summary: "Show one campaign",
    example: "campaign 2",
    topic: "campaigns",
    noun: "campaign",
    operations: ["getCampaign", "getTemplate", "getTag"],
    run: async (a, ctx) => {
      const c = await ctx.api.getCampaign(a.id);
      const card = await cardOf(ctx, a.id, c);
      return { visibility: "ephemeral", ...card };
    },
  }),
  defineCommand({
    id: "campaign.recipients",
    words: ["campaign", "<id>", "recipients"],
    options: {
      status: `one of ${RECIPIENT_STATUSES.join(", ")}`,
      page: "page number",
      limit: "recipients per page, 1 to 100 (default 50)",
    },
    schema: z.object({
      id: idArg,
      status: choice(RECIPIENT_STATUSES).optional(),
      page: pageArg,
      limit: limitArg,
    }),
    scope: "read",
    usage: "campaign <id> recipients [status=] [page=] [limit=]",
    summary: "Recipients of a campaign and their status",
    example: "campaign 2 recipients status=failed",
    topic: "campaigns",
    noun: "campaign",
    operations: ["listCampaignRecipients"],
    run: async (a, ctx) => {
      const [page, c] = await Promise.all([
        ctx.api.listCampaignRecipients(a.id, { status: a.status, page: a.page, limit: a.limit }),
        ctx.api.getCampaign(a.id).catch(() => undefined),
      ]);
      const names = await recipientNames(ctx, page.items);
      const reply = pageReply({
        title: `Recipients of ${c ? nameOf(c, `campaign ${a.id}`) : `campaign ${a.id}`}${a.status ? ` (${a.status})` : ""}`,
        plural: "recipients",
        page,
        pageLine: pageLine(ctx),
        // `❌ *Ana Lopez* · +14155550200 · Failed: the number is not on the network`: a person, a status in words.
        line: (r) => {
          const status = String(r.status ?? "");
          const contactId = refId(r, "contactId", "contact_id");
          const name =
            show(pick(r, "name") ?? "") || (contactId !== undefined ? names.get(contactId) : "") || "";
          const phone = show(pick(r, "phone", "to") ?? "");
          const reason = show(pick(r, "error", "errorMessage", "failureReason") ?? "", 200);
          const word = RECIPIENT_WORDS[status] ?? { icon: "", label: status };
          return [
            `${word.icon} ${name ? `*${esc(name)}*` : esc(phone)}`.trim(),
            ...(name && phone ? [esc(phone)] : []),
            `${esc(word.label)}${reason ? `: ${esc(reason)}` : ""}`,
          ].join(" · ");
        },
      });
      if (names.unread > 0) {
        reply.blocks.push(
          context(
            `The names of ${count(names.unread, "recipient")} were not read now (to spare the API's read budget); their phone stands in.`,
          ),
        );
      }
      return reply;
    },
  }),
  defineCommand({
    id: "campaign.send",
    words: ["campaign", "<id>", "send"],
    schema: z.object({ id: idArg }),
    scope: "broadcast",
    usage: "campaign <id> send",
    summary: "Start sending a campaign (shows it and its audience, asks to confirm)",
    help: 'The prompt counts whom it reaches, the opted-out left out ("at most" where groups may share people, "at least" where a count was not read, within 10 reads), flags a group another campaign got in the last 24 hours, and refuses a campaign with no audience or whose group no longer exists.',
    example: "campaign 2 send",
    topic: "campaigns",
    noun: "campaign",
    operations: [
      "sendCampaign",
      "getCampaign",
      "getTemplate",
      "listGroups",
      "getGroup",
      "listContacts",
      "getContact",
    ],
    preview: (a, ctx) => campaignPreview("send", a.id, ctx),
    run: async (a, ctx) => {
      const c = await refusedInWords("send", a.id, ctx, () => ctx.api.sendCampaign(a.id));
      await recordStarted(ctx, a.id, c);
      // One event, one message: the launch is the campaign's card, which then updates in place.
      const facts = await factsOf(ctx, c, ctx.who);
      const card = campaignCard({
        id: a.id,
        name: nameOf(c, `Campaign ${a.id}`),
        status: String(pick(c, "status") ?? "running"),
        facts,
        footer: ":hourglass_flowing_sand: Starting; the figures follow here.",
      });
      return { visibility: "in_channel", ...card, origin: { command: "campaign.send", facts } };
    },
  }),
  CAMPAIGN_TEST_COMMAND,
  defineCommand({
    id: "campaign.cancel",
    words: ["campaign", "<id>", "cancel"],
    schema: z.object({ id: idArg }),
    scope: "broadcast",
    usage: "campaign <id> cancel",
    summary: "Cancel a campaign (asks to confirm)",
    example: "campaign 2 cancel",
    topic: "campaigns",
    noun: "campaign",
    operations: ["cancelCampaign", "getCampaign"],
    preview: (a, ctx) => campaignPreview("cancel", a.id, ctx),
    run: async (a, ctx) => {
      const c = await refusedInWords("cancel", a.id, ctx, () => ctx.api.cancelCampaign(a.id));
      // The campaign's card, now 🚫 Cancelled, with its figures so far: not a line of raw status.
      const card = await cardOf(ctx, a.id, c);
      return {
        visibility: "in_channel",
        ...card,
        text: `${card.text} (campaign #${a.id} cancelled by ${ctx.actor.via === "shell" ? "the shell" : ctx.who})`,
      };
    },
  }),
  defineCommand({
    id: "campaign.add",
    words: ["campaign", "add"],
    positionals: [{ name: "name", rest: "text" }],
    options: {
      template: "id of an approved template",
      channel: "channel id; default: the template's channel",
      tag: "id of the tag stamped on every conversation it starts",
      group: "audience (optional): group ids, comma separated",
      contacts: "audience (optional): contact ids, comma separated",
      at: "start time, ISO 8601 (for a scheduled campaign)",
    },
    extraOptions: `a value for each placeholder of the template: first_name=Ana (${PARAM_PREFIX}tag= for a placeholder named like an option)`,
    schema: z.object({
      name: requiredText("the campaign's name"),
      template: idArg,
      channel: optionalId,
      tag: optionalId,
      group: idList.optional(),
      contacts: idList.optional(),
      at: isoDateTimeSchema.optional(),
      extra: z.record(z.string(), z.string()).default({}),
    }),
    scope: "write",
    usage:
      "campaign add <name…> template=<id> [group=<id,…>] [contacts=<id,…>] [tag=<id>] [channel=<id>] [at=<ISO time>] [<placeholder>=<value>…]",
    summary: "Create a draft campaign (send it with `campaign <id> send`)",
    help: "Every placeholder of the template needs a value, the same for every recipient: `first_name=Ana`. A placeholder named like one of this command's options is written `param.tag=…`.",
    example: "campaign add Spring sale template=3 group=2 tag=1 first_name=friend discount=20%",
    topic: "campaigns",
    noun: "template",
    operations: [
      "createCampaign",
      "getTemplate",
      "listTemplates",
      "listGroups",
      "getGroup",
      "listContacts",
      "getContact",
    ],
    run: async (a, ctx) => {
      const values = placeholderValues(a.extra);
      const body = {
        name: a.name,
        integrationId: a.channel ?? ctx.defaultChannelId ?? 1,
        templateId: a.template,
        ...(a.tag !== undefined ? { conversationTagId: a.tag } : {}),
        ...(a.group?.length ? { groupIds: a.group } : {}),
        ...(a.contacts?.length ? { contactIds: a.contacts } : {}),
        ...(Object.keys(values).length ? { templateParameters: values } : {}),
        ...(a.at ? { scheduledAt: a.at } : {}),
      };
      checkBody(createCampaignSchema, body, NAMES);
      const t = await ctx.api.getTemplate(a.template);
      checkPlaceholderValues(t, values, CAMPAIGN_ADD_OPTIONS);
      if (a.channel === undefined) {
        // The template belongs to one channel: that is the one to send on.
        const own = Number(pick(t, "integrationId", "integration_id"));
        body.integrationId = Number.isInteger(own) && own > 0 ? own : await resolveChannel(ctx, undefined);
      }
      const c = await ctx.api.createCampaign(body);
      await recordCreated(ctx, c, { groupIds: a.group ?? [], contactIds: a.contacts ?? [] });
      if (c.id === undefined) {
        const reply = announce(ctx, `Draft campaign${quoted(c)} created`, c, FIRST);
        if (!a.group?.length && !a.contacts?.length) reply.blocks.push(section(NO_AUDIENCE));
        return reply;
      }
      // The draft's card (template by name, audience and its size, Send…), as `/sb campaign` shows it.
      const id = Number(c.id);
      const card = await cardOf(ctx, id, c);
      const size = await audienceSummary(ctx, id, c, 6).catch(() => "");
      const line = `:memo: Draft campaign *${esc(nameOf(c, `Campaign ${id}`))}* created${size ? `. ${size}` : ""}`;
      const blocks: KnownBlock[] = [section(line), ...card.blocks];
      if (!a.group?.length && !a.contacts?.length) blocks.push(section(NO_AUDIENCE));
      blocks.push(context(`Campaign #${id}`));
      return { visibility: "in_channel", text: `${line} (campaign #${id})`, blocks };
    },
  }),
  defineCommand({
    id: "campaign.new",
    words: ["campaign", "new"],
    schema: z.object({}),
    scope: "write",
    usage: "campaign new",
    summary: "Create a draft campaign with a form (Slack); in the shell, use `campaign add`",
    example: "campaign new",
    topic: "campaigns",
    operations: ["listTemplates", "listTags", "listGroups", "createCampaign", "createTag"],
    run: async (_a, ctx) => {
      const load = () => loadCampaignData(ctx.api, ctx.defaultChannelId, channelNamesOf(ctx));
      return formReply(
        ctx,
        { kind: "campaign", load, instead: "campaign.add" },
        "Opening the campaign form…",
      );
    },
  }),
];
