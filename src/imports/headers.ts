// Column headers → contact members. Exports of Google Contacts, Outlook and
// HubSpot, plain sheets and hand-made ones name the same things differently;
// headers are compared without case, accents, spacing or punctuation.

import { z } from "zod";
import { SwitchboardError } from "../platform/errors.ts";
import { columnLetter } from "./rows.ts";

/** A contact field definition of the organization (GET /contact-fields). */
export interface FieldDefinition {
  key: string;
  label?: string;
  type?: string;
}

export const STANDARD_TARGETS = ["phone", "first_name", "last_name", "email", "name"] as const;
export type StandardTarget = (typeof STANDARD_TARGETS)[number];

/** Which column feeds which member; columns by index. A plain object, so a user can change it. */
export interface ColumnMapping {
  /** Phone columns, best first: a row takes the first one that is not empty. */
  phone: number[];
  first_name: number | null;
  last_name: number | null;
  email: number | null;
  /** A full-name column: it fills the first or last name a row lacks (split at its comma or first space). */
  name: number | null;
  /** Custom field key → column. */
  fields: Record<string, number>;
}

/** A mapping that maps no column yet. */
export const noColumns = (): ColumnMapping => ({
  phone: [],
  first_name: null,
  last_name: null,
  email: null,
  name: null,
  fields: {},
});

export interface IgnoredColumn {
  column: number;
  header: string;
  reason: string;
  /** The member this column would feed, had another column not taken it: its values are lost, so the preview warns. */
  member?: StandardTarget;
}

export interface SuggestedMapping {
  mapping: ColumnMapping;
  ignored: IgnoredColumn[];
  /** What the suggestion guessed that a person should know (shown as warnings in the preview). */
  notes: string[];
}

/** "E-mail 1 - Value" → "e mail 1 value"; "Teléfono" → "telefono"; "first_name" → "first name". */
export function normalizeHeader(header: string): string {
  return header
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, " ")
    .trim();
}

// Synonyms, by target; a lower rank is preferred when several columns match.
const SYNONYMS: Array<[StandardTarget, number, string[]]> = [
  ["phone", 0, ["phone", "whatsapp", "whatsapp number", "whatsapp phone", "wa number", "wa phone"]],
  [
    "phone",
    1,
    [
      "mobile",
      "mobile phone",
      "mobile number",
      "mobile phone number",
      "mobile tel",
      "cell",
      "cell phone",
      "cellphone",
      "cell number",
      "cellular",
      "cellular phone",
      "handy",
      "movil",
      "telefono movil",
      "celular",
      "telemovel",
      "portable",
      "telephone portable",
    ],
  ],
  [
    "phone",
    2,
    [
      "phone number",
      "telephone",
      "telephone number",
      "tel",
      "tel number",
      "msisdn",
      "primary phone",
      "phone 1 value",
      "contact number",
      "number",
      "telefono",
      "telefone",
      "numero",
      "numero de telefono",
      "e164",
    ],
  ],
  [
    "phone",
    3,
    [
      "business phone",
      "work phone",
      "company main phone",
      "home phone",
      "other phone",
      "business phone 2",
      "home phone 2",
      "phone 2 value",
      "phone 3 value",
      "phone 4 value",
      "phone 5 value",
    ],
  ],
  ["first_name", 0, ["first name", "firstname", "given name", "first", "forename", "fname"]],
  ["first_name", 1, ["prenom", "nombre", "vorname", "nome", "given"]],
  ["last_name", 0, ["last name", "lastname", "family name", "surname", "last", "lname"]],
  ["last_name", 1, ["apellido", "apellidos", "nachname", "sobrenome", "cognome", "nom de famille", "family"]],
  ["email", 0, ["email", "email address", "e mail", "e mail address"]],
  [
    "email",
    1,
    [
      "e mail 1 value",
      "email 1 value",
      "mail",
      "primary email",
      "work email",
      "business email",
      "correo",
      "correo electronico",
    ],
  ],
  ["email", 2, ["e mail 2 address", "e mail 2 value", "email 2", "other email", "home email"]],
  ["name", 0, ["name", "full name", "fullname", "display name", "contact name", "contact"]],
  ["name", 1, ["nombre completo", "nom complet", "nome completo"]],
];

const SYNONYM_INDEX = new Map<string, { target: StandardTarget; rank: number }>();
for (const [target, rank, names] of SYNONYMS) {
  for (const name of names) SYNONYM_INDEX.set(name, { target, rank });
}
// A bare "Name" beside a last-name column and no first-name one ("Name", "Surname") is the first name.
const FIRST_WHEN_LAST = new Set(["name"]);
// The members' own names win over a custom field that happens to share them.
const CANONICAL = new Set(["phone", "first name", "last name", "email"]);

type Classified =
  | { kind: "standard"; target: StandardTarget; rank: number }
  | { kind: "field"; key: string }
  | { kind: "none"; reason: string };

function classify(header: string, fields: readonly FieldDefinition[]): Classified {
  const h = normalizeHeader(header);
  const standard = SYNONYM_INDEX.get(h);
  if (standard && CANONICAL.has(h)) return { kind: "standard", ...standard };
  const field = fields.find(
    (f) => normalizeHeader(f.key) === h || (f.label && normalizeHeader(f.label) === h),
  );
  if (field) return { kind: "field", key: field.key };
  if (standard) return { kind: "standard", ...standard };
  // Google Contacts numbers its repeated columns: "Phone 7 - Value".
  const googlePhone = /^phone \d+ value$/.test(h);
  if (googlePhone) return { kind: "standard", target: "phone", rank: 3 };
  if (/\bfax\b/.test(h)) return { kind: "none", reason: "a fax number is not a messaging phone" };
  return { kind: "none", reason: "not a contact member nor a field of the organization" };
}

/** The mapping a file's headers suggest; the user may change it before the import. */
export function suggestMapping(
  headers: readonly string[],
  fields: readonly FieldDefinition[] = [],
): SuggestedMapping {
  const mapping = noColumns();
  const ignored: IgnoredColumn[] = [];
  const phones: Array<{ column: number; rank: number }> = [];
  const best = new Map<StandardTarget, { column: number; rank: number }>();
  const losers: Array<{ column: number; target: StandardTarget; rank: number }> = [];
  const notes: string[] = [];

  headers.forEach((header, column) => {
    const c = classify(header, fields);
    if (c.kind === "none") {
      ignored.push({ column, header, reason: c.reason });
    } else if (c.kind === "field") {
      if (c.key in mapping.fields) {
        ignored.push({
          column,
          header,
          reason: `field ${c.key} already comes from ${label(headers, mapping.fields[c.key]!)}`,
        });
      } else mapping.fields[c.key] = column;
    } else if (c.target === "phone") {
      phones.push({ column, rank: c.rank });
    } else {
      const current = best.get(c.target);
      if (!current || c.rank < current.rank) {
        if (current) losers.push({ column: current.column, target: c.target, rank: current.rank });
        best.set(c.target, { column, rank: c.rank });
      } else losers.push({ column, target: c.target, rank: c.rank });
    }
  });
  const name = best.get("name");
  const last = best.get("last_name");
  if (
    name &&
    last &&
    !best.has("first_name") &&
    FIRST_WHEN_LAST.has(normalizeHeader(headers[name.column]!))
  ) {
    best.set("first_name", name);
    best.delete("name");
    // Another full-name column ("Full Name") takes the place "Name" leaves.
    const next = losers
      .filter((l) => l.target === "name")
      .sort((a, b) => a.rank - b.rank || a.column - b.column)[0];
    if (next) {
      best.set("name", next);
      losers.splice(losers.indexOf(next), 1);
    }
    notes.push(
      `${label(headers, name.column)} is read as the first name, since ${label(headers, last.column)} holds the last name`,
    );
  }
  mapping.phone = phones.sort((a, b) => a.rank - b.rank || a.column - b.column).map((p) => p.column);
  for (const [target, { column }] of best) mapping[target as Exclude<StandardTarget, "phone">] = column;
  for (const { column, target } of losers) {
    ignored.push({
      column,
      header: headers[column]!,
      reason: `${target} already comes from ${label(headers, best.get(target)!.column)}`,
      member: target,
    });
  }
  ignored.sort((a, b) => a.column - b.column);
  return { mapping, ignored, notes };
}

/** `"Mobile Phone" (column C)`: how a column is named to a user. */
export function label(headers: readonly string[], column: number): string {
  return `"${headers[column] ?? ""}" (column ${columnLetter(column)})`;
}

// ---------------------------------------------------------------- a user's mapping

/** A column named by its index, its letter ("C") or its header text. */
const columnRef = z.union([z.number().int().min(0), z.string().trim().min(1)]);

/** A mapping as a user (or the Slack preview) gives it: any member may be left out to keep the suggestion. */
export const mappingOverrideSchema = z.strictObject({
  phone: z.union([columnRef, z.array(columnRef)]).optional(),
  first_name: columnRef.nullable().optional(),
  last_name: columnRef.nullable().optional(),
  email: columnRef.nullable().optional(),
  name: columnRef.nullable().optional(),
  fields: z.record(z.string(), columnRef.nullable()).optional(),
});
export type MappingOverride = z.input<typeof mappingOverrideSchema>;

export class MappingError extends SwitchboardError {
  readonly code = "import_mapping";
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join("; "));
    this.problems = problems;
  }
}

/**
 * Applies a user's changes to the suggested mapping. Columns may be named by
 * index, letter or header; unknown columns, unknown field keys and a missing
 * phone column are refused with one message per problem.
 */
export function resolveMapping(
  headers: readonly string[],
  override: unknown,
  fields: readonly FieldDefinition[] = [],
): ColumnMapping {
  const parsed = mappingOverrideSchema.safeParse(override ?? {});
  if (!parsed.success) {
    throw new MappingError(parsed.error.issues.map((i) => `${i.path.join(".") || "mapping"}: ${i.message}`));
  }
  const input = parsed.data;
  const problems: string[] = [];
  const find = (where: string, ref: string | number): number | null => {
    const column = findColumn(headers, ref);
    if (column === null) problems.push(`${where}: there is no column ${JSON.stringify(ref)} in the file`);
    return column;
  };
  const { mapping } = suggestMapping(headers, fields);
  if (input.phone !== undefined) {
    const refs = Array.isArray(input.phone) ? input.phone : [input.phone];
    mapping.phone = refs.map((r, i) => find(`phone[${i}]`, r)).filter((c): c is number => c !== null);
  }
  for (const target of ["first_name", "last_name", "email", "name"] as const) {
    const ref = input[target];
    if (ref === undefined) continue;
    mapping[target] = ref === null ? null : find(target, ref);
  }
  for (const [key, ref] of Object.entries(input.fields ?? {})) {
    if (!fields.some((f) => f.key === key)) {
      problems.push(`fields.${key}: the organization has no contact field with this key`);
      continue;
    }
    if (ref === null) delete mapping.fields[key];
    else {
      const column = find(`fields.${key}`, ref);
      if (column !== null) mapping.fields[key] = column;
    }
  }
  if (mapping.phone.length === 0 && !problems.some((p) => p.startsWith("phone"))) {
    problems.push("phone: choose the column that holds the phone numbers");
  }
  if (problems.length > 0) throw new MappingError(problems);
  return mapping;
}

function findColumn(headers: readonly string[], ref: string | number): number | null {
  if (typeof ref === "number") return ref < headers.length ? ref : null;
  const exact = headers.indexOf(ref);
  if (exact >= 0) return exact;
  const wanted = normalizeHeader(ref);
  const loose = headers.findIndex((h) => normalizeHeader(h) === wanted);
  if (loose >= 0) return loose;
  if (/^[A-Z]{1,3}$/.test(ref)) {
    const column = [...ref].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1;
    return column < headers.length ? column : null;
  }
  return null;
}

/** The members of the normalized CSV, in order: the four of a contact, then the custom field keys. */
export function outputColumns(mapping: ColumnMapping): string[] {
  return ["phone", "first_name", "last_name", "email", ...Object.keys(mapping.fields)];
}

const STANDARD_LABELS: Record<string, string> = {
  phone: "Phone",
  first_name: "First name",
  last_name: "Last name",
  email: "Email",
  name: "Full name (split)",
};

/** The labels of an import's columns by target and by output key: "Phone", "Last name", a custom field's label. */
export function targetLabels(fields: readonly FieldDefinition[]): Record<string, string> {
  const out: Record<string, string> = { ...STANDARD_LABELS };
  for (const f of fields) {
    const label = f.label?.trim() || f.key;
    out[`fields.${f.key}`] = label;
    if (!(f.key in STANDARD_LABELS)) out[f.key] = label;
  }
  return out;
}

/** A column's target or an output key as people read it; an unknown custom field by its key, in words. */
export function targetLabel(target: string, labels: Record<string, string> = STANDARD_LABELS): string {
  return labels[target] ?? STANDARD_LABELS[target] ?? target.replace(/^fields\./, "").replace(/_/g, " ");
}
