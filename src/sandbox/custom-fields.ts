// Values of custom contact fields, checked against the field definitions: the
// key must be a live field, and the value must fit its type. JSON bodies and
// import files (where every cell is text) go through the same rules.
import type { ContactFieldRow } from "../store/sandbox/rows.ts";

const TRUE = new Set(["true", "yes", "1"]);
const FALSE = new Set(["false", "no", "0"]);

function convert(type: string, value: unknown): { ok: true; value: unknown } | { ok: false; rule: string } {
  if (value === null) return { ok: true, value: null };
  switch (type) {
    case "number": {
      const n =
        typeof value === "number" ? value : typeof value === "string" ? Number(value.trim()) : Number.NaN;
      if (typeof value === "string" && value.trim() === "") return { ok: false, rule: "must be a number" };
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, rule: "must be a number" };
    }
    case "boolean": {
      if (typeof value === "boolean") return { ok: true, value };
      const text = String(value).trim().toLowerCase();
      if (TRUE.has(text)) return { ok: true, value: true };
      if (FALSE.has(text)) return { ok: true, value: false };
      return { ok: false, rule: "must be true or false" };
    }
    case "date": {
      const text = String(value).trim();
      if (/^\d{4}-\d{2}-\d{2}$/.test(text) && !Number.isNaN(Date.parse(text)))
        return { ok: true, value: text };
      return { ok: false, rule: "must be a date written YYYY-MM-DD" };
    }
    default:
      return { ok: true, value: String(value) };
  }
}

/**
 * Checks and converts custom field values; `problems` holds one "field rule"
 * text per bad member, prefixed by `prefix`. Null values are dropped.
 */
export function checkCustomFields(
  values: Record<string, unknown>,
  fields: ContactFieldRow[],
  prefix = "custom_fields.",
): { values: Record<string, unknown>; problems: string[] } {
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, raw] of Object.entries(values)) {
    const field = byKey.get(key);
    if (!field) {
      problems.push(
        `${prefix}${key} is not a custom field key (keys: ${[...byKey.keys()].join(", ") || "none defined"})`,
      );
      continue;
    }
    const r = convert(field.type, raw);
    if (!r.ok) problems.push(`${prefix}${key} ${r.rule}`);
    else if (r.value !== null) out[key] = r.value;
  }
  return { values: out, problems };
}
