// Contact fields, contact groups (and their members), conversation tags.
import type { FastifyInstance } from "fastify";
import { z } from "zod";
import {
  createContactFieldSchema,
  createGroupSchema,
  createTagSchema,
  groupMembersSchema,
  updateContactFieldSchema,
  updateGroupSchema,
  updateTagSchema,
} from "../../api/schemas.ts";
import type { SandboxContext } from "../app.ts";
import { badRequest, notFound, parseWith, pathId } from "../http.ts";
import * as shape from "../shapes.ts";

type Params = { id?: string };
// These lists take no query parameters in the spec; unknown ones are refused like unknown members.
const noQuery = z.strictObject({});

export async function catalogRoutes(app: FastifyInstance, ctx: SandboxContext): Promise<void> {
  const { store } = ctx;

  // ------------------------------------------------------------ contact fields
  app.get("/contact-fields", async (req) => {
    parseWith(noQuery, req.query);
    return shape.wholeList(await store.fields.list(), shape.contactField);
  });

  app.post("/contact-fields", async (req, reply) => {
    const body = parseWith(createContactFieldSchema, req.body);
    const row = await store.fields.create({
      ...body,
      type: body.type ?? "text",
      position: body.position ?? 0,
    });
    return reply.code(201).send(shape.contactField(row));
  });

  app.patch<{ Params: Params }>("/contact-fields/:id", async (req) => {
    const id = pathId(req.params.id, "Contact field");
    const body = parseWith(updateContactFieldSchema, req.body);
    const row = await store.fields.update(id, body);
    if (!row) throw notFound("Contact field", id);
    return shape.contactField(row);
  });

  app.delete<{ Params: Params }>("/contact-fields/:id", async (req) => {
    const id = pathId(req.params.id, "Contact field");
    if (!(await store.fields.delete(id))) throw notFound("Contact field", id);
    return shape.deleted(id);
  });

  // ------------------------------------------------------------ groups
  app.get("/contact-groups", async (req) => {
    parseWith(noQuery, req.query);
    return shape.wholeList(await store.groups.list(), shape.group);
  });

  app.post("/contact-groups", async (req, reply) => {
    const body = parseWith(createGroupSchema, req.body);
    return reply.code(201).send(shape.group(await store.groups.create(body)));
  });

  app.get<{ Params: Params }>("/contact-groups/:id", async (req) => {
    const id = pathId(req.params.id, "Group");
    const row = await store.groups.get(id);
    if (!row) throw notFound("Group", id);
    return shape.group(row);
  });

  app.patch<{ Params: Params }>("/contact-groups/:id", async (req) => {
    const id = pathId(req.params.id, "Group");
    const body = parseWith(updateGroupSchema, req.body);
    const row = await store.groups.update(id, body);
    if (!row) throw notFound("Group", id);
    return shape.group(row);
  });

  app.delete<{ Params: Params }>("/contact-groups/:id", async (req) => {
    const id = pathId(req.params.id, "Group");
    if (!(await store.groups.delete(id))) throw notFound("Group", id);
    return shape.deleted(id);
  });

  const members = async (req: { params: Params; body: unknown }) => {
    const id = pathId(req.params.id, "Group");
    const { contactIds } = parseWith(groupMembersSchema, req.body);
    if (!(await store.groups.get(id))) throw notFound("Group", id);
    const missing = await store.contacts.missing(contactIds);
    if (missing.length) {
      throw badRequest(
        missing.map((m) => `contactIds.${contactIds.indexOf(m)} ${m} does not name a contact`),
      );
    }
    return { id, contactIds };
  };

  app.post<{ Params: Params }>("/contact-groups/:id/contacts", async (req, reply) => {
    const { id, contactIds } = await members(req);
    const added = await store.groups.addMembers(id, contactIds);
    return reply.code(201).send(shape.groupMembers(id, { added }, (await store.groups.get(id))!));
  });

  app.delete<{ Params: Params }>("/contact-groups/:id/contacts", async (req) => {
    const { id, contactIds } = await members(req);
    const removed = await store.groups.removeMembers(id, contactIds);
    return shape.groupMembers(id, { removed }, (await store.groups.get(id))!);
  });

  // ------------------------------------------------------------ tags
  app.get("/tags", async (req) => {
    parseWith(noQuery, req.query);
    return shape.wholeList(await store.tags.list(), shape.tag);
  });

  app.post("/tags", async (req, reply) => {
    const body = parseWith(createTagSchema, req.body);
    return reply.code(201).send(shape.tag(await store.tags.create(body)));
  });

  app.get<{ Params: Params }>("/tags/:id", async (req) => {
    const id = pathId(req.params.id, "Tag");
    const row = await store.tags.get(id);
    if (!row) throw notFound("Tag", id);
    return shape.tag(row);
  });

  app.patch<{ Params: Params }>("/tags/:id", async (req) => {
    const id = pathId(req.params.id, "Tag");
    const body = parseWith(updateTagSchema, req.body);
    const row = await store.tags.update(id, body);
    if (!row) throw notFound("Tag", id);
    return shape.tag(row);
  });

  app.delete<{ Params: Params }>("/tags/:id", async (req) => {
    const id = pathId(req.params.id, "Tag");
    if (!(await store.tags.delete(id))) throw notFound("Tag", id);
    return shape.deleted(id);
  });
}
