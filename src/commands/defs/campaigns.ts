import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { CAMPAIGN_STATUSES, createCampaignSchema, RECIPIENT_STATUSES } from "../../api/schemas.ts";
import type { Campaign } from "../../api/types.ts";
import { context, count, esc, section } from "../../blocks/blocks.ts";
import { approvalGate } from "../../campaigns/approval.ts";
import { audienceSummary, recordCreated } from "../../campaigns/audience.ts";
import { CARD_STATUS } from "../../campaigns/card.ts";
import { cardOf, launchCard } from "../../campaigns/card-of.ts";
import { isDm, startCampaign, startRefusal } from "../../campaigns/road.ts";
import type { HeldStart } from "../../store/held-starts.ts";
import { choice, idArg, idList, limitArg, optionalId, pageArg, requiredText } from "../args.ts";
import { formReply } from "../forms.ts";
import { loadCampaignData } from "../lookups.ts";
import { type CommandContext, UserError } from "../registry.ts";
import { listLine, pageReply, pick, show } from "../render.ts";
import type { Reply } from "../types.ts";
import { APPROVAL_COMMANDS } from "./campaign-approval.ts";
import { campaignPreview, refusedInWords } from "./campaign-launch.ts";
import { checkPlaceholderValues, PARAM_PREFIX, placeholderValues } from "./campaign-message.ts";
import { RECIPIENT_WORDS, recipientNames } from "./campaign-recipients.ts";
import { heldOrNow, holdWithApproval, restoreHeld, startAtOf, withPlannedStart } from "./campaign-start.ts";
import { CAMPAIGN_TEST_COMMAND } from "./campaign-test.ts";
import { checkBody } from "./check.ts";
import {
  announce,
  channelNamesOf,
  nameOf,
  pageLine,
  quoted,
  refId,
  resolveChannel,
  templateLabel,
} from "./common.ts";
import { about, bare, inTopic, onCampaign, showing } from "./shapes.ts";

const command = inTopic("campaigns");

const FIRST = ["id", "name", "status", "integrationId", "templateId", "conversationTagId"];
const NAMES = {
  integrationId: "channel",
  templateId: "template",
  conversationTagId: "tag",
  groupIds: "group",
  contactIds: "contacts",
  scheduledAt: "at",
};

const NO_AUDIENCE =
  "It has no audience (no group= or contacts= was given): the messaging API decides who gets it, and may refuse to send it.";

/** The options of `campaign add`: a placeholder named like one is written `param.<name>=`. */
const CAMPAIGN_ADD_OPTIONS = ["template", "channel", "tag", "group", "contacts", "at"];

export const CAMPAIGN_COMMANDS = [
  command({
    id: "campaigns.list",
    words: ["campaigns"],
    options: {
      status: `one of ${CAMPAIGN_STATUSES.join(", ")}`,
      page: "page number",
      limit: "campaigns per page, 1 to 100",
    },
    schema: z.object({ status: choice(CAMPAIGN_STATUSES).optional(), page: pageArg, limit: limitArg }),
    access: "read",
    ...about("List campaigns", "campaigns status=running"),
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
        one: "campaign",
        plural: "campaigns",
        page,
        pageLine: pageLine(ctx),
        line: (c) =>
          `${CARD_STATUS[String(c.status)]?.icon ?? ""} ${listLine(c.id, c.name, statusOf(c), templateOf(c))}`.trim(),
      });
    },
  }),
  command({
    ...showing("campaign", 2),
    operations: ["getCampaign", "getTemplate", "getTag"],
    run: async (a, ctx) => {
      const c = await ctx.api.getCampaign(a.id);
      const card = await cardOf(ctx, a.id, c);
      return { visibility: "ephemeral", ...card };
    },
  }),
  command({
    ...onCampaign(["recipients"], "read"),
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
    ...about("Recipients of a campaign and their status", "campaign 2 recipients status=failed"),
    operations: ["listCampaignRecipients"],
    run: async (a, ctx) => {
      const [page, c] = await Promise.all([
        ctx.api.listCampaignRecipients(a.id, { status: a.status, page: a.page, limit: a.limit }),
        ctx.api.getCampaign(a.id).catch(() => undefined),
      ]);
      const names = await recipientNames(ctx, page.items);
      const reply = pageReply({
        title: `Recipients of ${c ? nameOf(c, `campaign ${a.id}`) : `campaign ${a.id}`}${a.status ? ` (${a.status})` : ""}`,
        one: "recipient",
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
  command({
    ...onCampaign(["send"], "broadcast"),
    options: {
      at: 'when to start it: 09:00 (the next 09:00), "2026-12-01 09:00" (in the workspace\'s time zone) or 2026-12-01T09:00:00+01:00',
    },
    flags: { now: "send at once, even in the quiet hours" },
    schema: z.object({ id: idArg, at: z.string().optional(), now: z.boolean().optional() }),
    usage: "campaign <id> send [at=<time>] [now]",
    ...about("Start sending a campaign (shows it and its audience, asks to confirm)", "campaign 2 send"),
    help: 'The prompt counts whom it reaches, the opted-out left out ("at most" where groups may share people, "at least" where a count was not read, to keep the prompt quick), flags a group another campaign got in the last 24 hours, and refuses a campaign with no audience or whose group no longer exists.',
    operations: [
      "sendCampaign",
      "getCampaign",
      "getTemplate",
      "listGroups",
      "getGroup",
      "listContacts",
      "getContact",
    ],
    preview: async (a, ctx) => {
      // Approval (issue 28 §3): refused in words when it is needed and not given, or no longer good.
      // One read of the campaign and one count of its audience serve both (at most 10 reads a prompt).
      const c = await ctx.api.getCampaign(a.id);
      if (ctx.approvals?.policy.approvers.length) await approvalGate(ctx, a.id, c);
      return withPlannedStart(a, ctx, await campaignPreview("send", a.id, ctx, c));
    },
    run: async (a, ctx) => {
      // Held until a time (asked for, or the quiet hours' end): its approval taken as it is set; the road runs it then.
      const given: { start?: HeldStart } = {};
      const held = await heldOrNow(a, ctx, () => ctx.api.getCampaign(a.id), given);
      if (held) return held;
      // The one road (campaigns/road.ts): every rail as it stands at this moment, then the send.
      const outcome = await refusedInWords("send", a.id, ctx, () =>
        startCampaign(ctx, a.id, a.now ? "anyway" : "confirm"),
      ).catch(async (err: unknown) => {
        await restoreHeld(ctx, given);
        throw err;
      });
      if (outcome.kind !== "sent") await restoreHeld(ctx, given);
      if (outcome.kind === "quiet") {
        // The quiet hours began since the prompt: held to their end, as the prompt would have said.
        const c = await ctx.api.getCampaign(a.id);
        return holdWithApproval(ctx, a.id, c, outcome.until, "quiet");
      }
      if (outcome.kind === "refused") throw startRefusal(ctx, a.id, outcome);
      const c = outcome.campaign;
      // One event, one message: the launch is the campaign's card, which then updates in place.
      const { card, facts } = await launchCard(ctx, a.id, c);
      return {
        visibility: "in_channel",
        ...card,
        origin: {
          command: "campaign.send",
          facts,
          // The live card: followed while it sends; every older card of the campaign is finished, pointing here
          // (a held start it replaced, the form's post, an earlier card).
          card: {
            role: "live",
            name: nameOf(c, `Campaign ${a.id}`),
            status: String(pick(c, "status") ?? "running"),
          },
          // Started from a DM (the approval message): the cards go where the approval was asked from.
          ...(isDm(ctx.actor.channelId) ? await askedIn(ctx, a.id) : {}),
        },
      };
    },
  }),
  CAMPAIGN_TEST_COMMAND,
  ...APPROVAL_COMMANDS,
  command({
    ...onCampaign(["cancel"], "broadcast"),
    ...about("Cancel a campaign (asks to confirm)", "campaign 2 cancel"),
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
        // Not a new current card: the live card, which shows 🚫 Cancelled at once, stays the campaign's card.
        origin: { command: "campaign.cancel" },
      };
    },
  }),
  command({
    words: ["campaign", "add"],
    positionals: [{ name: "name", rest: "text" }],
    options: {
      template: "id of an approved template",
      channel: "channel id; default: the template's channel",
      tag: "id of the tag stamped on every conversation it starts",
      group: "audience (optional): group ids, comma separated",
      contacts: "audience (optional): contact ids, comma separated",
      at: 'when Switchboard starts it: 09:00, "2026-12-01 09:00" (the workspace\'s time zone) or ISO 8601 with its offset',
    },
    extraOptions: `a value for each placeholder of the template: first_name=Ana (${PARAM_PREFIX}tag= for a placeholder named like an option)`,
    schema: z.object({
      name: requiredText("the campaign's name"),
      template: idArg,
      channel: optionalId,
      tag: optionalId,
      group: idList.optional(),
      contacts: idList.optional(),
      at: z.string().optional(),
      extra: z.record(z.string(), z.string()).default({}),
    }),
    access: "write",
    usage:
      "campaign add <name…> template=<id> [group=<id,…>] [contacts=<id,…>] [tag=<id>] [channel=<id>] [at=<time>] [<placeholder>=<value>…]",
    ...about(
      "Create a draft campaign (send it with `campaign <id> send`)",
      "campaign add Spring sale template=3 group=2 tag=1 first_name=friend discount=20%",
    ),
    help: "Every placeholder of the template needs a value, the same for every recipient: `first_name=Ana`. A placeholder named like one of this command's options is written `param.tag=…`.",
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
      };
      // Switchboard holds the start itself (no guessed `scheduledAt`): nothing can start twice.
      const startAt = a.at !== undefined ? startAtOf(a.at, ctx) : undefined;
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
      // The start is set as any start is: by someone who may send campaigns, on an approval when one is needed.
      let held: Reply | undefined;
      let notHeld = "";
      if (startAt) {
        if (!(await ctx.may("broadcast")))
          notHeld = "Its start was not set: only those who may send campaigns set one.";
        else
          held = await holdWithApproval(ctx, id, c, startAt, "created").catch((err: unknown) => {
            if (!(err instanceof UserError)) throw err;
            notHeld = `Its start was not set: ${err.message}`;
            return undefined;
          });
      }
      const card = await cardOf(ctx, id, c);
      const size = await audienceSummary(ctx, id, c, 6).catch(() => "");
      const line = `:memo: Draft campaign *${esc(nameOf(c, `Campaign ${id}`))}* created${size ? `. ${size}` : ""}`;
      const blocks: KnownBlock[] = [section(line), ...card.blocks];
      if (!a.group?.length && !a.contacts?.length) blocks.push(section(NO_AUDIENCE));
      if (notHeld) blocks.push(section(`:warning: ${notHeld}`));
      blocks.push(context(`Campaign #${id}`));
      return {
        visibility: "in_channel",
        text: `${line} (campaign #${id})`,
        blocks,
        origin: {
          ...(held?.origin ?? { command: "campaign.add" }),
          id,
          card: {
            role: held ? "held" : "card",
            name: nameOf(c, `Campaign ${id}`),
            status: String(pick(c, "status") ?? "draft"),
          },
        },
      };
    },
  }),
  command({
    ...bare(["campaign", "new"], "write"),
    summary: "Create a draft campaign with a form (Slack); in the shell, use `campaign add`",
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

/** The channel a campaign's approval was asked from, as a reply's `postIn`; none when unknown. */
async function askedIn(ctx: CommandContext, id: number): Promise<{ postIn?: string }> {
  const channel = (await ctx.approvals?.store.latest(id).catch(() => undefined))?.channel;
  if (channel && !isDm(channel)) return { postIn: channel };
  // Asked for in a DM (or the request does not say where): the audit channel, where the team sees the sends.
  const settings = await ctx.admin?.settings().catch(() => undefined);
  const audit = settings?.auditChannel.value;
  return typeof audit === "string" && audit ? { postIn: audit } : {};
}
