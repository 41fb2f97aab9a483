// Templates, and their names and placeholders as the service reads them.
import { z } from "zod";
import { BUTTON_TYPES, TEMPLATE_CATEGORIES, TEMPLATE_STATUSES } from "./enums.ts";
import { enumOf, nonEmpty } from "./rules.ts";
import { idSchema, urlSchema } from "./scalars.ts";

/** Template names are normalized by the service to lower case with underscores. */
export function normalizeTemplateName(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "");
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/** Named placeholders of a template body, in order of first appearance. */
export function placeholdersOf(body: string): string[] {
  const names: string[] = [];
  for (const m of body.matchAll(PLACEHOLDER)) {
    const name = m[1]!;
    if (!names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The template's body with the values filled in (a missing one stays
 * `{{name}}`): a campaign's message, a send's preview and a template message
 * in an inbox thread, as the customer reads them.
 */
export function fillPlaceholders(body: string, values: Record<string, string>): string {
  return body.replace(PLACEHOLDER, (m, name: string) => values[name] ?? m);
}

export const templateButtonSchema = z
  .strictObject({
    type: enumOf(BUTTON_TYPES),
    text: nonEmpty().max(25, { error: "must be at most 25 characters" }),
    url: urlSchema.optional(),
  })
  .superRefine((b, ctx) => {
    if (b.type === "URL" && !b.url)
      ctx.addIssue({ code: "custom", path: ["url"], message: "is required on a URL button" });
    if (b.type !== "URL" && b.url !== undefined) {
      ctx.addIssue({ code: "custom", path: ["url"], message: "is only allowed on URL buttons" });
    }
  });

export const templateNameSchema = nonEmpty()
  .transform(normalizeTemplateName)
  .refine((n) => n.length > 0, { error: "must contain letters or digits" });

export const createTemplateSchema = z
  .strictObject({
    integrationId: idSchema,
    name: templateNameSchema,
    language: z
      .string({ error: "must be a language code" })
      .regex(/^[a-z]{2,3}(_[A-Z]{2})?$/, { error: "must be a language code such as en or pt_BR" }),
    category: enumOf(TEMPLATE_CATEGORIES),
    bodyText: nonEmpty(),
    bodyExamples: z.record(z.string(), z.string({ error: "examples must be texts" })).optional(),
    footerText: z
      .string({ error: "must be a text" })
      .max(60, { error: "must be at most 60 characters" })
      .refine((f) => !/\{\{.*?\}\}/.test(f), { error: "must not contain placeholders" })
      .optional(),
    buttons: z
      .array(templateButtonSchema, { error: "must be a list of buttons" })
      .max(10, { error: "must have at most 10 buttons" })
      .optional(),
  })
  .superRefine((t, ctx) => {
    if (!t.bodyExamples) return;
    const names = placeholdersOf(t.bodyText);
    for (const key of Object.keys(t.bodyExamples)) {
      if (!names.includes(key)) {
        ctx.addIssue({
          code: "custom",
          path: ["bodyExamples", key],
          message: `is not a placeholder of the body (placeholders: ${names.join(", ") || "none"})`,
        });
      }
    }
    for (const name of names) {
      if (!(name in t.bodyExamples)) {
        ctx.addIssue({ code: "custom", path: ["bodyExamples", name], message: "needs an example value" });
      }
    }
  });

export const listTemplatesQuerySchema = z.strictObject({
  channelId: idSchema.optional(),
  status: enumOf(TEMPLATE_STATUSES).optional(),
});

export const syncTemplatesSchema = z.strictObject({ channelId: idSchema });

export type CreateTemplateInput = z.input<typeof createTemplateSchema>;
export type ListTemplatesQuery = z.input<typeof listTemplatesQuerySchema>;
export type SyncTemplatesInput = z.input<typeof syncTemplatesSchema>;
