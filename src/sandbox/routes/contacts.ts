import type { OrgStore } from "../../store/sandbox/store.ts";
import type { SandboxContext } from "../context.ts";
import { checkCustomFields } from "../custom-fields.ts";
import { badRequest, found, notFound } from "../http.ts";
import { importContacts } from "../import.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

export const contactHandlers = (ctx: SandboxContext) => {
  const customFields = async (store: OrgStore, values: Record<string, unknown> | undefined) => {
    if (values === undefined) return undefined;
    const r = checkCustomFields(values, await store.fields.list());
    if (r.problems.length) throw badRequest(r.problems);
    return r.values;
  };

  const setOptedOut = async (store: OrgStore, id: number, optedOut: boolean) => {
    const row = await store.contacts.setOptedOut(id, optedOut);
    if (!row) throw notFound("Contact", id);
    return shape.contact(row);
  };

  return {
    listContacts: async ({ store, query }) => {
      const r = await store.contacts.list(query);
      return shape.page(r.rows, r.total, query, shape.contact);
    },

    createContact: async ({ store, body }) => {
      const row = await store.contacts.create({
        ...body,
        custom_fields: await customFields(store, body.custom_fields),
      });
      return shape.contact(row);
    },

    importContacts: async ({ req, store }) => shape.importResult(await importContacts(ctx, store, req)),

    getContact: async ({ store, id }) => shape.contact(found(await store.contacts.get(id), "Contact", id)),

    updateContact: async ({ store, id, body }) => {
      const row = await store.contacts.update(id, {
        ...body,
        custom_fields: await customFields(store, body.custom_fields),
      });
      if (!row) throw notFound("Contact", id);
      return shape.contact(row);
    },

    deleteContact: async ({ store, id }) => {
      if (!(await store.contacts.delete(id))) throw notFound("Contact", id);
      return shape.deleted(id);
    },

    optOutContact: ({ store, id }) => setOptedOut(store, id, true),
    optInContact: ({ store, id }) => setOptedOut(store, id, false),
  } satisfies Partial<Handlers>;
};
