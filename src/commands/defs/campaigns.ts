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
import { actions, esc, fieldsSection, header, section } from "../../blocks/blocks.ts";
import { choice, idArg, idList, limitArg, optionalId, pageArg, requiredText } from "../args.ts";
import { formReply } from "../forms.ts";
import { loadCampaignData } from "../lookups.ts";
import { type CommandContext, defineCommand, type Preview } from "../registry.ts";
import { listLine, pageReply, pick, recordPairs, show } from "../render.ts";
import { ACTION } from "../types.ts";
import {
  campaignMessageText,
  checkPlaceholderValues,
  PARAM_PREFIX,
  placeholderValues,
} from "./campaign-message.ts";
import { checkBody } from "./check.ts";
import { announce, pageLine, quoted, refId, relatedNames, resolveChannel, templateLabel } from "./common.ts";
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

async function campaignPreview(action: "send" | "cancel", id: number, ctx: CommandContext): Promise<Preview> {
  const c = await ctx.api.getCampaign(id);
  const t = await templateOf(ctx.api, c);
  const audience = await audienceOf(ctx.api, id, c);
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
    ["Audience", esc(audience)],
  ];
  const message = action === "send" ? campaignMessageText(t, c) : "";
  const blocks: KnownBlock[] = [header(title), ...fieldsSection(pairs)];
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

/** `16 total · 8 read · 3 delivered · 1 failed`: the counts that are not zero, biggest first. */
function statsLine(stats: unknown): string {
  if (!stats || typeof stats !== "object") return "";
  const entries = Object.entries(stats as Record<string, unknown>).filter(
    (e): e is [string, number] => typeof e[1] === "number",
  );
  const total = entries.find(([k]) => k === "total")?.[1];
  const parts = entries
    .filter(([k, n]) => k !== "total" && n > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, n]) => `${n} ${esc(k)}`);
  if (total === 0) return "none yet";
  return [total !== undefined ? `${total} total` : "", ...parts].filter(Boolean).join(" · ");
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
        const name = names.get(id);
        return `template #${id}${name ? ` ${name}` : ""}`;
      };
      return pageReply({
        title: a.status ? `Campaigns (${a.status})` : "Campaigns",
        plural: "campaigns",
        page,
        pageLine: pageLine(ctx),
        line: (c) => listLine(c.id, c.name, c.status, templateOf(c)),
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
      const templateId = refId(c, "templateId", "template_id");
      const tagId = refId(c, "conversationTagId", "conversation_tag_id");
      const names = await relatedNames({
        templateId: templateId ? async () => templateLabel(await ctx.api.getTemplate(templateId)) : undefined,
        conversationTagId: tagId
          ? async () => show(pick(await ctx.api.getTag(tagId), "name") ?? "")
          : undefined,
        integrationId: async () =>
          refId(c, "integrationId", "integration_id") === ctx.defaultChannelId ? "(default)" : undefined,
      });
      // The header names it; the counts read better as one line than as JSON.
      const pairs = recordPairs(c, FIRST, ["name", "stats"], names);
      const stats = statsLine(pick(c, "stats"));
      if (stats) pairs.splice(Math.min(pairs.length, 1), 0, ["Recipients", stats]);
      const title = `Campaign #${a.id}${quoted(c)}`;
      const status = pick(c, "status");
      const buttons = [{ text: "Recipients", actionId: ACTION.run, value: `campaign ${a.id} recipients` }];
      if (status === "draft" || status === "scheduled")
        buttons.push({ text: "Send…", actionId: ACTION.run, value: `campaign ${a.id} send` });
      if (status === "running" || status === "paused" || status === "scheduled")
        buttons.push({ text: "Cancel…", actionId: ACTION.run, value: `campaign ${a.id} cancel` });
      return {
        visibility: "ephemeral",
        text: `${title}\n${pairs.map(([k, v]) => `${k}: ${v}`).join("\n")}`,
        blocks: [header(title.replace(/[“”]/g, "")), ...fieldsSection(pairs), actions(buttons)],
      };
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
    run: async (a, ctx) =>
      pageReply({
        title: `Recipients of campaign #${a.id}${a.status ? ` (${a.status})` : ""}`,
        plural: "recipients",
        page: await ctx.api.listCampaignRecipients(a.id, { status: a.status, page: a.page, limit: a.limit }),
        pageLine: pageLine(ctx),
        line: (r) =>
          listLine(
            r.id,
            pick(r, "phone", "to"),
            pick(r, "contactId", "contact_id") !== undefined
              ? `contact #${pick(r, "contactId", "contact_id")}`
              : "",
            r.status,
            pick(r, "error", "errorMessage", "failureReason"),
          ),
      }),
  }),
  defineCommand({
    id: "campaign.send",
    words: ["campaign", "<id>", "send"],
    schema: z.object({ id: idArg }),
    scope: "broadcast",
    usage: "campaign <id> send",
    summary: "Start sending a campaign (shows it and its audience, asks to confirm)",
    example: "campaign 2 send",
    topic: "campaigns",
    noun: "campaign",
    operations: ["sendCampaign", "getCampaign", "getTemplate", "listCampaignRecipients"],
    preview: (a, ctx) => campaignPreview("send", a.id, ctx),
    run: async (a, ctx) => {
      const c = await ctx.api.sendCampaign(a.id);
      return announce(
        ctx,
        `Campaign #${a.id}${quoted(c)} launched${pick(c, "status") ? ` (status ${esc(show(pick(c, "status")))})` : ""}`,
      );
    },
  }),
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
      const c = await ctx.api.cancelCampaign(a.id);
      return announce(
        ctx,
        `Campaign #${a.id}${quoted(c)} cancelled${pick(c, "status") ? ` (status ${esc(show(pick(c, "status")))})` : ""}`,
      );
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
    operations: ["createCampaign", "getTemplate", "listTemplates"],
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
      const reply = announce(ctx, `Draft campaign #${c.id ?? "?"}${quoted(c)} created`, c, FIRST);
      if (!a.group?.length && !a.contacts?.length) reply.blocks.push(section(NO_AUDIENCE));
      if (c.id !== undefined) {
        reply.blocks.push(
          actions([
            { text: "Send…", actionId: ACTION.run, value: `campaign ${c.id} send`, style: "primary" },
            { text: "Open", actionId: ACTION.run, value: `campaign ${c.id}` },
          ]),
        );
      }
      return reply;
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
      const load = () => loadCampaignData(ctx.api, ctx.defaultChannelId);
      return formReply(
        ctx,
        { kind: "campaign", load, instead: "campaign.add" },
        "Opening the campaign form…",
      );
    },
  }),
];
