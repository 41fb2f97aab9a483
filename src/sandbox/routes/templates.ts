import { DELETABLE_TEMPLATE_STATUSES } from "../../api/schemas.ts";
import type { OrgStore } from "../../store/sandbox/store.ts";
import type { SandboxContext } from "../context.ts";
import { badRequest, conflict, notFound } from "../http.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

export const templateHandlers = (ctx: SandboxContext) => {
  const channelMustExist = async (store: OrgStore, field: string, id: number) => {
    if (!(await store.account.channel(id)))
      throw badRequest([`${field} ${id} does not name a channel of the organization`]);
  };

  return {
    listTemplates: async ({ store, query }) => {
      // Reviews whose delay is over land before anyone looks, with or without the ticking clock.
      await store.templates.review();
      return shape.wholeList(await store.templates.list(query), shape.template);
    },

    createTemplate: async ({ store, body }) => {
      await channelMustExist(store, "integrationId", body.integrationId);
      const row = await store.templates.create({
        channelId: body.integrationId,
        name: body.name,
        language: body.language,
        category: body.category,
        bodyText: body.bodyText,
        bodyExamples: body.bodyExamples,
        footerText: body.footerText,
        buttons: body.buttons,
        approveAt: new Date(ctx.now().getTime() + ctx.templateApprovalMs),
      });
      return shape.template(row);
    },

    syncTemplates: async ({ store, body: { channelId } }) => {
      await channelMustExist(store, "channelId", channelId);
      const r = await store.templates.review(channelId);
      return shape.templateSync(channelId, { ...r, total: await store.templates.count(channelId) });
    },

    getTemplate: async ({ store, id }) => {
      await store.templates.review();
      const row = await store.templates.get(id);
      if (!row) throw notFound("Template", id);
      return shape.template(row);
    },

    deleteTemplate: async ({ store, id }) => {
      await store.templates.review();
      const row = await store.templates.get(id);
      if (!row) throw notFound("Template", id);
      if (!(DELETABLE_TEMPLATE_STATUSES as readonly string[]).includes(row.status)) {
        throw conflict(
          `template ${id} is ${row.status}: only ${DELETABLE_TEMPLATE_STATUSES.join(", ")} templates can be deleted`,
        );
      }
      await store.templates.delete(id);
      return shape.deleted(id);
    },
  } satisfies Partial<Handlers>;
};
