import { placeholdersOf } from "../../api/schemas.ts";
import type { SandboxContext } from "../context.ts";
import { badRequest, conflict, found, notFound } from "../http.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

/** Campaign transitions of the sandbox (docs/sandbox.md): send starts these… */
export const SENDABLE_STATUSES = ["draft", "scheduled"] as const;
/** …and cancel stops these. */
export const CANCELLABLE_STATUSES = ["draft", "scheduled", "running", "paused"] as const;

export const campaignHandlers = (ctx: SandboxContext) => {
  return {
    listCampaigns: async ({ store, query }) => {
      const r = await store.campaigns.list(query);
      return shape.page(r.rows, r.total, query, shape.campaign);
    },

    createCampaign: async ({ store, body }) => {
      const problems: string[] = [];
      if (!(await store.account.channel(body.integrationId))) {
        problems.push(`integrationId ${body.integrationId} does not name a channel of the organization`);
      }
      await store.templates.review();
      const t = await store.templates.get(body.templateId);
      if (t?.status !== "approved" || t.channel_id !== body.integrationId) {
        problems.push(
          `templateId ${body.templateId} must name an approved template of channel ${body.integrationId}${
            !t
              ? ": there is no such template"
              : t.channel_id !== body.integrationId
                ? `: it belongs to channel ${t.channel_id}`
                : `: it is ${t.status}`
          }`,
        );
      }
      if (body.conversationTagId !== undefined && !(await store.tags.get(body.conversationTagId))) {
        problems.push(`conversationTagId ${body.conversationTagId} does not name a tag`);
      }
      const groupIds = body.groupIds ?? [];
      const contactIds = body.contactIds ?? [];
      for (const id of await store.groups.missing(groupIds)) {
        problems.push(`groupIds.${groupIds.indexOf(id)} ${id} does not name a group`);
      }
      for (const id of await store.contacts.missing(contactIds)) {
        problems.push(`contactIds.${contactIds.indexOf(id)} ${id} does not name a contact`);
      }
      if (t && body.templateParameters) {
        const names = placeholdersOf(t.body_text);
        for (const key of Object.keys(body.templateParameters)) {
          if (!names.includes(key)) {
            problems.push(
              `templateParameters.${key} is not a placeholder of template ${t.name} (placeholders: ${names.join(", ") || "none"})`,
            );
          }
        }
        // Values are given for all placeholders or not at all (then the real API's own way is assumed).
        for (const name of names) {
          if (!body.templateParameters[name]?.trim())
            problems.push(`templateParameters.${name} needs a value`);
        }
      }
      const scheduledAt = body.scheduledAt ? new Date(body.scheduledAt) : undefined;
      if (scheduledAt && scheduledAt.getTime() <= ctx.now().getTime())
        problems.push("scheduledAt must be in the future");
      if (problems.length) throw badRequest(problems);
      const row = await store.campaigns.create({
        name: body.name,
        integrationId: body.integrationId,
        templateId: body.templateId,
        conversationTagId: body.conversationTagId,
        groupIds: [...new Set(groupIds)],
        contactIds: [...new Set(contactIds)],
        templateParameters: body.templateParameters,
        scheduledAt,
      });
      return shape.campaign(row);
    },

    getCampaign: async ({ store, id }) =>
      shape.campaign(found(await store.campaigns.get(id), "Campaign", id)),

    listCampaignRecipients: async ({ store, id, query }) => {
      if (!(await store.campaigns.get(id))) throw notFound("Campaign", id);
      const r = await store.campaigns.recipients(id, query);
      return shape.page(r.rows, r.total, query, shape.recipient);
    },

    sendCampaign: async ({ store, id }) => {
      const before = await store.campaigns.get(id);
      if (!before) throw notFound("Campaign", id);
      const sendable = (SENDABLE_STATUSES as readonly string[]).includes(before.status);
      if (sendable && !before.group_ids.length && !before.contact_ids.length) {
        throw conflict(
          `campaign ${id} has no audience: it names no group and no contact, so there is nobody to send it to. Create the campaign again with groups or contacts.`,
        );
      }
      if (!(await store.campaigns.start(id, SENDABLE_STATUSES))) {
        throw conflict(
          `campaign ${id} is ${before.status}: only ${SENDABLE_STATUSES.join(" or ")} campaigns can be sent`,
        );
      }
      return shape.campaign((await store.campaigns.get(id))!);
    },

    cancelCampaign: async ({ store, id }) => {
      const before = await store.campaigns.get(id);
      if (!before) throw notFound("Campaign", id);
      if (!(await store.campaigns.cancel(id, CANCELLABLE_STATUSES))) {
        throw conflict(
          `campaign ${id} is ${before.status}: only ${CANCELLABLE_STATUSES.join(", ")} campaigns can be cancelled`,
        );
      }
      return shape.campaign((await store.campaigns.get(id))!);
    },
  } satisfies Partial<Handlers>;
};
