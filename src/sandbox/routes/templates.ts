import type { FastifyInstance } from "fastify";
import {
  createTemplateSchema,
  DELETABLE_TEMPLATE_STATUSES,
  listTemplatesQuerySchema,
  syncTemplatesSchema,
} from "../../api/schemas.ts";
import type { SandboxContext } from "../app.ts";
import { badRequest, conflict, notFound, parseWith, pathId } from "../http.ts";
import * as shape from "../shapes.ts";

type Params = { id?: string };

export async function templateRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const { store } = ctx;
  const channelMustExist = async (field: string, id: number) => {
    if (!(await store.account.channel(id)))
      throw badRequest([`${field} ${id} does not name a channel of the organization`]);
  };

  app.get("/templates", async (req) => {
    const q = parseWith(listTemplatesQuerySchema, req.query);
    // Reviews whose delay is over land before anyone looks, with or without the ticking clock.
    await store.templates.review();
    return shape.wholeList(await store.templates.list(q), shape.template);
  });

  app.post("/templates", async (req, reply) => {
    const body = parseWith(createTemplateSchema, req.body);
    await channelMustExist("integrationId", body.integrationId);
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
    return reply.code(201).send(shape.template(row));
  });

  app.post("/templates/sync", async (req, reply) => {
    const { channelId } = parseWith(syncTemplatesSchema, req.body);
    await channelMustExist("channelId", channelId);
    const r = await store.templates.review(channelId);
    return reply
      .code(201)
      .send(shape.templateSync(channelId, { ...r, total: await store.templates.count(channelId) }));
  });

  app.get<{ Params: Params }>("/templates/:id", async (req) => {
    const id = pathId(req.params.id, "Template");
    await store.templates.review();
    const row = await store.templates.get(id);
    if (!row) throw notFound("Template", id);
    return shape.template(row);
  });

  app.delete<{ Params: Params }>("/templates/:id", async (req) => {
    const id = pathId(req.params.id, "Template");
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
  });
}
