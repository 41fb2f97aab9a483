// Contact fields, groups and tags.
import { z } from "zod";
import { FIELD_TYPES } from "./enums.ts";
import { atLeastOne, enumOf, nonEmpty, nothingToUpdate } from "./rules.ts";
import { colorSchema, fieldKeySchema, idSchema } from "./scalars.ts";

export const createContactFieldSchema = z.strictObject({
  key: fieldKeySchema,
  label: nonEmpty(),
  type: enumOf(FIELD_TYPES).optional(),
  position: z.number({ error: "must be a number" }).int({ error: "must be a whole number" }).optional(),
});

export const updateContactFieldSchema = z
  .strictObject({
    key: z.never({ error: "cannot be changed: a field's key is immutable" }).optional(),
    label: nonEmpty().optional(),
    type: enumOf(FIELD_TYPES).optional(),
    position: z.number({ error: "must be a number" }).int({ error: "must be a whole number" }).optional(),
  })
  .refine(atLeastOne, nothingToUpdate);

export const createGroupSchema = z.strictObject({
  name: nonEmpty(),
  description: z.string({ error: "must be a text" }).optional(),
});

export const updateGroupSchema = createGroupSchema.partial().refine(atLeastOne, nothingToUpdate);

export const groupMembersSchema = z.strictObject({
  contactIds: z
    .array(idSchema, { error: "must be a list of contact ids" })
    .min(1, { error: "must name at least one contact" })
    .refine((ids) => new Set(ids).size === ids.length, { error: "must not repeat a contact id" }),
});

export const createTagSchema = z.strictObject({
  name: nonEmpty(),
  color: colorSchema,
  description: z.string({ error: "must be a text" }).optional(),
});

export const updateTagSchema = createTagSchema.partial().refine(atLeastOne, nothingToUpdate);

export type CreateContactFieldInput = z.input<typeof createContactFieldSchema>;
export type UpdateContactFieldInput = Omit<z.input<typeof updateContactFieldSchema>, "key">;
export type CreateGroupInput = z.input<typeof createGroupSchema>;
export type UpdateGroupInput = z.input<typeof updateGroupSchema>;
export type GroupMembersInput = z.input<typeof groupMembersSchema>;
export type CreateTagInput = z.input<typeof createTagSchema>;
export type UpdateTagInput = z.input<typeof updateTagSchema>;
