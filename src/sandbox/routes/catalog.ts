// Contact fields, contact groups (and their members), conversation tags.
import type { OrgStore } from "../../store/sandbox/store.ts";
import type { SandboxContext } from "../context.ts";
import { badRequest, found, notFound } from "../http.ts";
import type { Handlers } from "../serve.ts";
import * as shape from "../shapes.ts";

export const catalogHandlers = (_ctx: SandboxContext) => {
  /** The group and the contacts to add or remove, each of which must exist. */
  const members = async (store: OrgStore, id: number, contactIds: number[]) => {
    if (!(await store.groups.get(id))) throw notFound("Group", id);
    const missing = await store.contacts.missing(contactIds);
    if (missing.length) {
      throw badRequest(
        missing.map((m) => `contactIds.${contactIds.indexOf(m)} ${m} does not name a contact`),
      );
    }
  };

  return {
    // ------------------------------------------------------------ contact fields
    listContactFields: async ({ store }) => shape.wholeList(await store.fields.list(), shape.contactField),

    createContactField: async ({ store, body }) => {
      const row = await store.fields.create({
        ...body,
        type: body.type ?? "text",
        position: body.position ?? 0,
      });
      return shape.contactField(row);
    },

    updateContactField: async ({ store, id, body }) =>
      shape.contactField(found(await store.fields.update(id, body), "Contact field", id)),

    deleteContactField: async ({ store, id }) => {
      if (!(await store.fields.delete(id))) throw notFound("Contact field", id);
      return shape.deleted(id);
    },

    // ------------------------------------------------------------ groups
    listGroups: async ({ store }) => shape.wholeList(await store.groups.list(), shape.group),

    createGroup: async ({ store, body }) => shape.group(await store.groups.create(body)),

    getGroup: async ({ store, id }) => shape.group(found(await store.groups.get(id), "Group", id)),

    updateGroup: async ({ store, id, body }) =>
      shape.group(found(await store.groups.update(id, body), "Group", id)),

    deleteGroup: async ({ store, id }) => {
      if (!(await store.groups.delete(id))) throw notFound("Group", id);
      return shape.deleted(id);
    },

    addGroupContacts: async ({ store, id, body: { contactIds } }) => {
      await members(store, id, contactIds);
      const added = await store.groups.addMembers(id, contactIds);
      return shape.groupMembers(id, { added }, (await store.groups.get(id))!);
    },

    removeGroupContacts: async ({ store, id, body: { contactIds } }) => {
      await members(store, id, contactIds);
      const removed = await store.groups.removeMembers(id, contactIds);
      return shape.groupMembers(id, { removed }, (await store.groups.get(id))!);
    },

    // ------------------------------------------------------------ tags
    listTags: async ({ store }) => shape.wholeList(await store.tags.list(), shape.tag),

    createTag: async ({ store, body }) => shape.tag(await store.tags.create(body)),

    getTag: async ({ store, id }) => shape.tag(found(await store.tags.get(id), "Tag", id)),

    updateTag: async ({ store, id, body }) => shape.tag(found(await store.tags.update(id, body), "Tag", id)),

    deleteTag: async ({ store, id }) => {
      if (!(await store.tags.delete(id))) throw notFound("Tag", id);
      return shape.deleted(id);
    },
  } satisfies Partial<Handlers>;
};
