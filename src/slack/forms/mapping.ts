// "Change mapping" on an upload's preview: each column of the file with the
// member it feeds (phone, names, e-mail, a custom field) or Ignore. Opened by
// the preview's button (listeners/actions/import-controls.ts), not by the core.
import type { ModalView } from "@slack/types";
import { contactFields } from "../../commands/lookups.ts";
import { type ColumnMapping, type FieldDefinition, noColumns } from "../../imports/index.ts";
import type { PendingImport } from "../../store/imports.ts";
import { remapImport } from "../features/uploads/flow.ts";
import { withApi } from "../perform.ts";
import type { SlackForm } from "./form.ts";
import { cut, input, modal, option, type StateValues, selectedOf, staticSelect } from "./kit.ts";

export const MAPPING_CALLBACK = "sb_import_mapping";
const IGNORE = "ignore";

export interface MappingMeta {
  id: string;
}

const targets = (fields: FieldDefinition[]) => [
  option("Ignore", IGNORE),
  option("Phone", "phone"),
  option("First name", "first_name"),
  option("Last name", "last_name"),
  option("E-mail", "email"),
  option("Full name (split in two)", "name"),
  ...fields.slice(0, 90).map((f) => option(`Field: ${f.label || f.key} (${f.key})`, `fields.${f.key}`)),
];

export function targetOf(mapping: ColumnMapping, column: number): string {
  if (mapping.phone.includes(column)) return "phone";
  for (const k of ["first_name", "last_name", "email", "name"] as const) if (mapping[k] === column) return k;
  for (const [key, c] of Object.entries(mapping.fields)) if (c === column) return `fields.${key}`;
  return IGNORE;
}

export function mappingModal(
  headers: string[],
  mapping: ColumnMapping,
  fields: FieldDefinition[],
  meta: MappingMeta,
): ModalView {
  const opts = targets(fields);
  return modal({
    callbackId: MAPPING_CALLBACK,
    title: "Columns",
    submit: "Preview again",
    metadata: meta,
    blocks: headers.slice(0, 98).map((h, i) =>
      input(
        `col:${i}`,
        cut(h || `Column ${i + 1}`, 200),
        staticSelect(`col:${i}`, opts, { initial: targetOf(mapping, i) }),
        {
          optional: true,
        },
      ),
    ),
  });
}

/** The mapping the form describes, or errors at the columns. */
export function planMapping(
  state: StateValues,
  headers: string[],
  _fields: FieldDefinition[],
): { mapping: ColumnMapping } | { errors: Record<string, string> } {
  const mapping = noColumns();
  const errors: Record<string, string> = {};
  const seen = new Map<string, number>();
  headers.slice(0, 98).forEach((_h, i) => {
    const t = selectedOf(state, `col:${i}`) ?? IGNORE;
    if (t === IGNORE) return;
    if (t === "phone") {
      mapping.phone.push(i);
      return;
    }
    const before = seen.get(t);
    if (before !== undefined) {
      errors[`col:${i}`] =
        `Column ${before + 1} already feeds this; choose one column per member (only phone may have several).`;
      return;
    }
    seen.set(t, i);
    if (t.startsWith("fields.")) mapping.fields[t.slice(7)] = i;
    else mapping[t as "first_name" | "last_name" | "email" | "name"] = i;
  });
  if (!mapping.phone.length)
    errors["col:0"] = errors["col:0"] ?? "Choose the column that holds the phone numbers.";
  return Object.keys(errors).length ? { errors } : { mapping };
}

export const mappingForm: SlackForm<never, MappingMeta, { p: PendingImport; mapping: ColumnMapping }> = {
  name: "import mapping",
  callbackId: MAPPING_CALLBACK,
  submit: {
    check: async ({ ctx, meta, state, actor }) => {
      const p = ctx.stores && meta.id ? await ctx.stores.imports.get(meta.id) : undefined;
      if (p?.state !== "pending") return { errors: { "col:0": "This import is no longer pending." } };
      const fields = (await withApi(ctx, actor, "read", "import mapping", (api) => contactFields(api))).map(
        (f) => ({ key: f.key as string, label: f.label, type: f.type }),
      );
      const planned = planMapping(state, p.headers, fields);
      return "errors" in planned ? planned : { plan: { p, mapping: planned.mapping } };
    },
    run: async ({ p, mapping }, { ctx, client, actor }) => ({
      after: async () => {
        const answer = await remapImport(ctx, client, p.id, mapping, actor);
        if (answer) await ctx.posts.post(client, { channel: actor.userId, text: answer });
      },
    }),
  },
};
