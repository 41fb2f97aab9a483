import type { FastifyInstance } from "fastify";
import { createContactSchema, listContactsQuerySchema, updateContactSchema } from "../../api/schemas.ts";
import type { SandboxContext } from "../app.ts";
import { checkCustomFields } from "../custom-fields.ts";
import { badRequest, notFound, parseWith, pathId } from "../http.ts";
import { importContacts } from "../import.ts";
import * as shape from "../shapes.ts";

type Params = { id?: string };

export async function contactRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const { store } = ctx;

  const customFields = async (values: Record<string, unknown> | undefined) => {
    if (values === undefined) return undefined;
    const r = checkCustomFields(values, await store.fields.list());
    if (r.problems.length) throw badRequest(r.problems);
    return r.values;
  };

  app.get("/contacts", async (req) => {
    const q = parseWith(listContactsQuerySchema, req.query);
    const r = await store.contacts.list(q);
    return shape.page(r.rows, r.total, q, shape.contact);
  });

  app.post("/contacts", async (req, reply) => {
    const body = parseWith(createContactSchema, req.body);
    const row = await store.contacts.create({
      ...body,
      custom_fields: await customFields(body.custom_fields),
    });
    return reply.code(201).send(shape.contact(row));
  });

  app.post("/contacts/import", async (req, reply) => {
    const result = await importContacts(ctx, req);
    return reply.code(201).send(shape.importResult(result));
  });

  app.get<{ Params: Params }>("/contacts/:id", async (req) => {
    const id = pathId(req.params.id, "Contact");
    const row = await store.contacts.get(id);
    if (!row) throw notFound("Contact", id);
    return shape.contact(row);
  });

  app.patch<{ Params: Params }>("/contacts/:id", async (req) => {
    const id = pathId(req.params.id, "Contact");
    const body = parseWith(updateContactSchema, req.body);
    const row = await store.contacts.update(id, {
      ...body,
      custom_fields: await customFields(body.custom_fields),
    });
    if (!row) throw notFound("Contact", id);
    return shape.contact(row);
  });

  app.delete<{ Params: Params }>("/contacts/:id", async (req) => {
    const id = pathId(req.params.id, "Contact");
    if (!(await store.contacts.delete(id))) throw notFound("Contact", id);
    return shape.deleted(id);
  });

  for (const [path, optedOut] of [
    ["opt-out", true],
    ["opt-in", false],
  ] as const) {
    app.post<{ Params: Params }>(`/contacts/:id/${path}`, async (req, reply) => {
      const id = pathId(req.params.id, "Contact");
      if (req.body !== undefined && req.body !== null && Object.keys(req.body).length > 0) {
        throw badRequest(["(body) must be empty: this operation takes no members"]);
      }
      const row = await store.contacts.setOptedOut(id, optedOut);
      if (!row) throw notFound("Contact", id);
      return reply.code(201).send(shape.contact(row));
    });
  }
}
