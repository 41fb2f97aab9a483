import type { SandboxContext } from "../context.ts";
import { checkCustomFields } from "../custom-fields.ts";
import { badRequest, notFound } from "../http.ts";
import { importContacts } from "../import.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

export const contactHandlers = (ctx: SandboxContext) => {
  const { store } = ctx;

  const customFields = async (values: Record<string, unknown> | undefined) => {
    if (values === undefined) return undefined;
    const r = checkCustomFields(values, await store.fields.list());
    if (r.problems.length) throw badRequest(r.problems);
    return r.values;
  };

  const setOptedOut = async (id: number, optedOut: boolean) => {
    const row = await store.contacts.setOptedOut(id, optedOut);
    if (!row) throw notFound("Contact", id);
    return shape.contact(row);
  };

  return {
    listContacts: async ({ query }) => {
      const r = await store.contacts.list(query);
      return shape.page(r.rows, r.total, query, shape.contact);
    },

    createContact: async ({ body }) => {
      const row = await store.contacts.create({
        ...body,
        custom_fields: await customFields(body.custom_fields),
      });
      return shape.contact(row);
    },

    importContacts: async ({ req }) => shape.importResult(await importContacts(ctx, req)),

    getContact: async ({ id }) => {
      const row = await store.contacts.get(id);
      if (!row) throw notFound("Contact", id);
      return shape.contact(row);
    },

    updateContact: async ({ id, body }) => {
      const row = await store.contacts.update(id, {
        ...body,
        custom_fields: await customFields(body.custom_fields),
      });
      if (!row) throw notFound("Contact", id);
      return shape.contact(row);
    },

    deleteContact: async ({ id }) => {
      if (!(await store.contacts.delete(id))) throw notFound("Contact", id);
      return shape.deleted(id);
    },

    optOutContact: ({ id }) => setOptedOut(id, true),
    optInContact: ({ id }) => setOptedOut(id, false),
  } satisfies Partial<Handlers>;
};
