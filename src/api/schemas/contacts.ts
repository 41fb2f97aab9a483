// Contacts and their import.
import { z } from "zod";
import { atLeastOne, nothingToUpdate } from "./rules.ts";
import {
  emailSchema,
  fieldKeySchema,
  idSchema,
  pagingShape,
  phoneSchema,
  queryBooleanSchema,
} from "./scalars.ts";

export const customFieldValuesSchema = z.record(
  fieldKeySchema,
  z.union([z.string(), z.number(), z.boolean(), z.null()], {
    error: "values must be text, number or boolean",
  }),
);

export const createContactSchema = z.strictObject({
  phone: phoneSchema,
  first_name: z.string({ error: "must be a text" }).optional(),
  last_name: z.string({ error: "must be a text" }).optional(),
  email: emailSchema.optional(),
  custom_fields: customFieldValuesSchema.optional(),
});

export const updateContactSchema = createContactSchema.partial().refine(atLeastOne, nothingToUpdate);

export const listContactsQuerySchema = z.strictObject({
  ...pagingShape(20),
  search: z.string().trim().min(1, { error: "must not be empty" }).optional(),
  groupId: idSchema.optional(),
  optedOut: queryBooleanSchema.optional(),
});

/** Multipart text fields of POST /contacts/import (the file travels beside them). */
export const importContactsFieldsSchema = z.strictObject({
  groupId: idSchema.optional(),
  updateExisting: queryBooleanSchema,
});

export type CreateContactInput = z.input<typeof createContactSchema>;
export type UpdateContactInput = z.input<typeof updateContactSchema>;
export type ListContactsQuery = z.input<typeof listContactsQuerySchema>;
export type ImportContactsFields = z.input<typeof importContactsFieldsSchema>;
