// `/sb campaign new`: the campaign form. Name, channel, an approved template
// (searched as the user types), one input per placeholder of that template,
// the conversation tag (existing, or a new one made here), the audience
// (groups and contacts) and an optional start time. The audience, parameters
// and start time go as the members CAMPAIGN_EXTRA_MEMBERS names
// (docs/modals.md). Submitted: checked before any request, then (a new tag
// first, when asked) the draft campaign is created and posted with buttons to
// send it (through the core's confirmation) or open it.
import type { KnownBlock, ModalView, PlainTextOption } from "@slack/types";
import {
  type CreateCampaignInput,
  type CreateTagInput,
  createCampaignSchema,
  createTagSchema,
  describeIssues,
  type FieldProblem,
} from "../../api/schemas.ts";
import type { Group, Tag } from "../../api/types.ts";
import { actions, esc } from "../../blocks/blocks.ts";
import { mrkdwnToText } from "../../blocks/text.ts";
import type { CampaignFormData } from "../../commands/form-kinds.ts";
import { loadCampaignData, textOfRecord } from "../../commands/lookups.ts";
import { UserError } from "../../commands/registry.ts";
import { ACTION } from "../../commands/types.ts";
import { dateToken } from "../../domain/start-time.ts";
import { campaignCardPosted } from "../features/campaign-cards.ts";
import { withApi } from "../perform.ts";
import { recipientSuggestions } from "./choices.ts";
import { fieldErrors } from "./field-errors.ts";
import { askedIn, SHORTCUTS, type SlackForm } from "./form.ts";
import {
  context,
  dateTimeOf,
  input,
  modal,
  option,
  plain,
  type StateValues,
  sectionText,
  selectedListOf,
  selectedOf,
  selectedOptionOf,
  selectedOptionsOf,
  staticSelect,
  textInput,
  textOf,
} from "./kit.ts";
import {
  channelInput,
  chosenTemplateMeta,
  paramValues,
  TEMPLATE_MENU,
  type TemplateChoice,
  templateMenu,
  templateOptions,
  templateParams,
} from "./parts.ts";
import { postOutcome, refusalErrors, refused } from "./submission.ts";

export const CAMPAIGN_CALLBACK = "sb_campaign";
export const A = {
  template: TEMPLATE_MENU,
  tag: "sb_tag",
  contacts: "sb_contacts",
} as const;
export const NEW_TAG = "new";

export interface CampaignMeta {
  /** Slack channel the form was opened from: the result is posted there. */
  ch?: string;
  /** The chosen template (its placeholders give the parameter inputs). */
  tpl?: TemplateChoice;
  def?: number;
}

export type CampaignData = CampaignFormData;

export const tagOptions = (tags: Tag[]): PlainTextOption[] => [
  ...tags
    .filter((t) => t.id !== undefined)
    .slice(0, 99)
    .map((t) =>
      option(`${textOfRecord(t, "name") || `#${t.id}`} ${textOfRecord(t, "color")}`.trim(), String(t.id)),
    ),
  option("➕ New tag…", NEW_TAG),
];

const groupOptions = (groups: Group[]): PlainTextOption[] =>
  groups
    .filter((g) => g.id !== undefined)
    .slice(0, 100)
    .map((g) => {
      const count = Number(g.memberCount ?? g.member_count ?? g.contactsCount ?? g.contacts_count);
      return option(
        `${textOfRecord(g, "name") || `#${g.id}`}${Number.isFinite(count) ? ` (${count} contacts)` : ""}`,
        String(g.id),
      );
    });

/** The form, built from its data and what the user already entered (kept on every rebuild). */
export function campaignModal(
  data: CampaignData,
  meta: CampaignMeta,
  state?: StateValues,
  notice?: string,
): ModalView {
  const blocks: KnownBlock[] = [];
  if (notice) blocks.push(context(`:warning: ${notice}`, "notice"));
  blocks.push(
    input(
      "name",
      "Campaign name",
      textInput("name", { initial: textOf(state, "name"), max: 200, placeholder: "Spring sale" }),
    ),
  );
  blocks.push(
    channelInput(data, state, {
      preferred: meta.tpl?.channel,
      hint: "The messaging channel that sends it: the channels people named and those its templates use.",
      idHint:
        "This workspace has no default messaging channel (an admin sets one in Settings) and no template names one.",
    }),
  );
  blocks.push(
    templateMenu(state, "Only approved templates can start conversations."),
    ...templateParams(meta.tpl, state, "The same value for every recipient."),
  );
  const tag = selectedOf(state, "tag");
  const tagInitial = selectedOptionOf(state, "tag");
  blocks.push(
    input(
      "tag",
      "Conversation tag",
      {
        ...staticSelect(A.tag, tagOptions(data.tags), { placeholder: "Choose a tag" }),
        ...(tagInitial ? { initial_option: tagInitial } : {}),
      },
      {
        optional: true,
        dispatch: true,
        hint: "Stamped on every conversation the campaign starts, so agents can filter by it.",
      },
    ),
  );
  if (tag === NEW_TAG) {
    blocks.push(
      input(
        "tag_name",
        "New tag name",
        textInput("tag_name", { initial: textOf(state, "tag_name"), max: 100 }),
      ),
      input(
        "tag_color",
        "New tag colour",
        textInput("tag_color", { initial: textOf(state, "tag_color") ?? "#1D9BD1", max: 7 }),
        {
          hint: "Hexadecimal #RRGGBB, for example #1D9BD1",
        },
      ),
    );
  }
  const groupInitial = selectedOptionsOf(state, "groups");
  const groupOpts = groupOptions(data.groups);
  if (groupOpts.length) {
    blocks.push(
      input(
        "groups",
        "Audience: groups",
        {
          type: "multi_static_select",
          action_id: "groups",
          options: groupOpts,
          placeholder: plain("Choose groups"),
          ...(groupInitial.length ? { initial_options: groupInitial } : {}),
        },
        { optional: true },
      ),
    );
  }
  const contactInitial = selectedOptionsOf(state, "contacts");
  blocks.push(
    input(
      "contacts",
      "Audience: contacts",
      {
        type: "multi_external_select",
        action_id: A.contacts,
        min_query_length: 1,
        placeholder: plain("Search contacts by name, phone or e-mail"),
        ...(contactInitial.length ? { initial_options: contactInitial } : {}),
      },
      {
        optional: true,
        hint: "Groups and contacts are optional: the messaging API may refuse to send a campaign without them. Opted-out contacts are skipped.",
      },
    ),
  );
  const at = dateTimeOf(state, "start");
  blocks.push(
    input(
      "start",
      "Start time",
      { type: "datetimepicker", action_id: "start", ...(at ? { initial_date_time: at } : {}) },
      {
        optional: true,
        hint: "Switchboard starts it then. Leave empty to keep it a draft you send yourself.",
      },
    ),
  );
  blocks.push(
    context(
      "The campaign is created as a draft: you send it from the message that follows, after a confirmation.",
    ),
  );
  return modal({
    callbackId: CAMPAIGN_CALLBACK,
    title: "New campaign",
    submit: "Create draft",
    blocks,
    metadata: meta,
  });
}

/** The request the form describes; with `newTag`, that tag is created first and its id goes in the body. */
export interface CampaignPlan {
  body: CreateCampaignInput;
  newTag?: CreateTagInput;
  /** The start time (seconds): Switchboard holds the start until then (no guessed `scheduledAt`). */
  startAt?: number;
}

const CAMPAIGN_BLOCKS: Record<string, string> = {
  name: "name",
  integrationId: "channel",
  templateId: "template",
  conversationTagId: "tag",
  groupIds: "groups",
  contactIds: "contacts",
  scheduledAt: "start",
};

/** Where an API member's problem is shown. */
export function campaignBlockFor(field: string): string | undefined {
  const [top, key] = field.split(".");
  if (top === "templateParameters" && key) return `param:${key}`;
  if (top === "templateParameters") return "template";
  return CAMPAIGN_BLOCKS[top ?? ""];
}

/** The request the form describes, or its problems at their fields (no request is made for those). */
export function planCampaign(
  state: StateValues,
  meta: CampaignMeta,
  now = Date.now(),
): { plan: CampaignPlan } | { errors: Record<string, string> } {
  const problems: FieldProblem[] = [];
  const channelRaw = selectedOf(state, "channel") ?? textOf(state, "channel");
  const templateId = selectedOf(state, "template");
  // The placeholders shown are those of the template chosen last; another one's values cannot be asked for.
  if (templateId !== undefined && meta.tpl !== undefined && String(meta.tpl.id) !== templateId)
    problems.push({ field: "templateId", rule: "changed while its placeholders loaded: choose it again" });
  else if (templateId !== undefined && meta.tpl === undefined)
    problems.push({ field: "templateId", rule: "its placeholders are not loaded yet: choose it again" });
  const { values: params, problems: missing } = paramValues(
    state,
    meta.tpl,
    (p) => `templateParameters.${p}`,
  );
  problems.push(...missing);
  const tag = selectedOf(state, "tag");
  let newTag: CampaignPlan["newTag"];
  const errors: Record<string, string> = {};
  if (tag === NEW_TAG) {
    const t = { name: textOf(state, "tag_name") ?? "", color: textOf(state, "tag_color") ?? "" };
    const parsed = createTagSchema.safeParse(t);
    if (parsed.success) newTag = { name: parsed.data.name, color: parsed.data.color };
    else
      Object.assign(
        errors,
        fieldErrors(
          describeIssues(parsed.error, t),
          (f) => (f === "name" ? "tag_name" : f === "color" ? "tag_color" : undefined),
          "tag",
        ),
      );
  }
  const startAt = dateTimeOf(state, "start");
  if (startAt !== undefined && startAt * 1000 < now)
    problems.push({ field: "scheduledAt", rule: "is in the past: choose a later time, or leave it empty" });
  const body: Record<string, unknown> = {
    name: textOf(state, "name")?.trim() ?? "",
    integrationId: channelRaw === undefined ? undefined : Number(channelRaw),
    templateId: templateId === undefined ? undefined : Number(templateId),
    ...(tag && tag !== NEW_TAG ? { conversationTagId: Number(tag) } : {}),
    ...(selectedListOf(state, "groups").length
      ? { groupIds: selectedListOf(state, "groups").map(Number) }
      : {}),
    ...(selectedListOf(state, "contacts").length
      ? { contactIds: selectedListOf(state, "contacts").map((v) => Number(v.replace(/^contact:/, ""))) }
      : {}),
    ...(Object.keys(params).length ? { templateParameters: params } : {}),
  };
  // The tag is created first, so the body is checked with a stand-in id for it.
  const check = newTag ? { ...body, conversationTagId: 1 } : body;
  const parsed = createCampaignSchema.safeParse(check);
  if (!parsed.success) problems.push(...describeIssues(parsed.error, check));
  if (problems.length || Object.keys(errors).length || !parsed.success) {
    const mapped = fieldErrors(problems, campaignBlockFor, "name");
    return { errors: { ...mapped, ...errors } };
  }
  const start = startAt !== undefined ? { startAt } : {};
  if (!newTag) return { plan: { body: parsed.data, ...start } };
  const { conversationTagId: _standIn, ...rest } = parsed.data;
  return { plan: { body: rest, newTag, ...start } };
}

export const campaignForm: SlackForm<"campaign", CampaignMeta, CampaignPlan> = {
  ...askedIn("campaign", CAMPAIGN_CALLBACK, campaignModal),
  name: "campaign form",
  refresh: {
    actions: [A.template, A.tag],
    view: async ({ ctx, actor, meta, state, action }) => {
      if (action.action_id === A.template) meta.tpl = await chosenTemplateMeta(ctx, actor, state);
      const data = await withApi(ctx, actor, "read", "form", (api) =>
        loadCampaignData(api, ctx.core.defaultChannelId, ctx.core.channelNames),
      );
      return campaignModal(data, meta, state);
    },
  },
  options: {
    [A.template]: templateOptions,
    [A.contacts]: (api, { query }) => recipientSuggestions(api, query),
  },
  submit: {
    check: ({ state, meta, ctx }) => {
      const checked = planCampaign(state, meta);
      // The start time passes the rule `at=` passes (a date that exists, at most a year away, outside the
      // quiet hours), refused at its field in the same words; one already refused (the past) is not asked twice.
      const at = dateTimeOf(state, "start");
      if (at === undefined || ("errors" in checked && checked.errors.start)) return checked;
      const problem = ctx.core.startTimeProblem?.(new Date(at * 1000));
      if (!problem) return checked;
      const start = mrkdwnToText(problem); // a field error is plain text
      return "errors" in checked ? { errors: { ...checked.errors, start } } : { errors: { start } };
    },
    run: async (plan, { ctx, client, view, meta, state, actor }) => {
      const name = plan.body.name;
      let createdTag: Tag | undefined;
      try {
        const c = await withApi(ctx, actor, "write", `campaign new (form) "${name}"`, async (api) => {
          if (!plan.newTag) return api.createCampaign(plan.body);
          createdTag = await api.createTag(plan.newTag);
          return api.createCampaign({ ...plan.body, conversationTagId: createdTag.id });
        });
        // Its audience kept for the send prompt's overlap (no API read); a failure here loses only that flag.
        if (ctx.stores && c.id !== undefined)
          await ctx.stores.campaignAudiences
            .record(Number(c.id), name, plan.body)
            .catch((err) => ctx.logger.warn({ err: String(err) }, "could not keep the campaign's audience"));
        // The start time: a held start Switchboard runs then (docs/campaigns.md), audited.
        const at = plan.startAt !== undefined ? new Date(plan.startAt * 1000) : undefined;
        // Set as every start is (core.setStart: who may send campaigns, the approval), or said why not.
        let notSet = "";
        const held =
          at && c.id !== undefined && ctx.core.setStart
            ? await ctx.core
                .setStart(actor, Number(c.id), at, `campaign new (form) "${name}"`)
                .catch((err: unknown) => {
                  if (!(err instanceof UserError)) throw err;
                  notSet = err.message;
                  return undefined;
                })
            : undefined;
        return {
          after: async () => {
            const id = c.id ?? "?";
            const text = `Draft campaign #${id} “${esc(name)}” created`;
            const blocks = [
              sectionText(
                `:memo: ${text}${createdTag ? `, with the new tag “${esc(plan.newTag?.name)}”` : ""}.${held ? `\n:alarm_clock: Starts at ${dateToken(held.at)}.` : ""}${notSet ? `\n:warning: Its start was not set: ${notSet}` : ""}`,
              ),
            ];
            if (c.id !== undefined && held)
              blocks.push(
                actions([
                  { text: "Open", actionId: ACTION.run, value: `campaign ${c.id}` },
                  {
                    text: "Cancel start",
                    actionId: `${ACTION.run}:2`,
                    value: `campaign ${c.id} cancel start`,
                  },
                ]),
              );
            else if (c.id !== undefined)
              blocks.push(
                actions([
                  { text: "Send…", actionId: ACTION.run, value: `campaign ${c.id} send`, style: "primary" },
                  { text: "Open", actionId: `${ACTION.run}:2`, value: `campaign ${c.id}` },
                ]),
              );
            const posted = await postOutcome(
              ctx,
              client,
              { channel: meta.ch, userId: actor.userId },
              { text, blocks },
            );
            // The post is the start's card: edited when it runs, is cancelled or skipped (its buttons with it).
            if (held && posted.ts && ctx.stores)
              await ctx.stores.heldStarts
                .setCard(held.id, posted.channel, posted.ts)
                .catch((err) => ctx.logger.warn({ err: String(err) }, "could not keep the start's card"));
            // The campaign's current card: finished when a newer one is posted (the launch's live card).
            if (posted.ts && c.id !== undefined)
              await campaignCardPosted(ctx, client, {
                channel: posted.channel,
                ts: posted.ts,
                text,
                reply: {
                  visibility: "in_channel",
                  text,
                  blocks,
                  origin: {
                    command: "campaign.new",
                    id: Number(c.id),
                    card: { role: held ? "held" : "card", name, status: "draft" },
                  },
                },
                by: actor.userId,
              });
          },
        };
      } catch (err) {
        if (!createdTag) return refused(err, campaignBlockFor, "name", view);
        // The tag exists now: show the form again with it chosen, so a second try does not make it twice.
        const why = Object.values(refusalErrors(err, campaignBlockFor, "name", view)).join("; ");
        const data = await withApi(ctx, actor, "read", "campaign new (form)", (api) =>
          loadCampaignData(api, ctx.core.defaultChannelId, ctx.core.channelNames),
        );
        const chosen = tagOptions(data.tags).find((o) => o.value === String(createdTag?.id));
        const kept = { ...state, tag: { [A.tag]: { type: "static_select", selected_option: chosen } } };
        return {
          answer: {
            response_action: "update",
            view: campaignModal(
              data,
              meta,
              kept,
              `The tag “${plan.newTag?.name}” was created (#${createdTag.id}) and is now chosen, but the campaign was refused: ${why}`,
            ),
          },
        };
      }
    },
  },
  shortcuts: [
    { callbackId: SHORTCUTS.newCampaign, type: "global", line: "campaign new", title: "New campaign" },
  ],
};
