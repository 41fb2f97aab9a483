// A campaign's message as its customers will read it: the values of the
// template's placeholders, asked for when a campaign is created, and the
// filled text shown before it is sent. Kept apart from the
// campaign card so either can change alone.
import { fillPlaceholders } from "../../api/schemas.ts";
import type { ApiRecord } from "../../api/types.ts";
import { capitalize, esc } from "../../blocks/blocks.ts";
import { bodyOf, placeholdersOfTemplate } from "../../domain/records.ts";
import { UserError } from "../registry.ts";
import { pick, show } from "../render.ts";

// The one filler (a campaign's message, a send's preview, a template message in an inbox thread) lives beside placeholdersOf.
export { fillPlaceholders };

/** What `param.<name>=` stands for: a placeholder named like one of the command's own options. */
export const PARAM_PREFIX = "param.";

/** The values typed as `<name>=<value>` or `param.<name>=<value>`, by placeholder name. */
export function placeholderValues(extra: Record<string, string>): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(extra)) {
    const name = key.startsWith(PARAM_PREFIX) ? key.slice(PARAM_PREFIX.length) : key;
    if (name in values) throw new UserError(`the value of ${esc(name)} is given twice; give it once`);
    values[name] = value;
  }
  return values;
}

export { placeholdersOfTemplate };

/** How a value is typed on the command line: `param.tag=` for a name the command's options take. */
const typed = (name: string, options: readonly string[]) =>
  `${options.includes(name.toLowerCase()) ? PARAM_PREFIX : ""}${name}=`;

/**
 * Checks the values against the template's placeholders: each needs one
 * (named when missing), and a value must name a placeholder. `options` are the
 * command's own options, whose names a placeholder cannot take plainly.
 */
export function checkPlaceholderValues(
  t: ApiRecord,
  values: Record<string, string>,
  options: readonly string[],
  /** One message (send) rather than a campaign's: no "the same value for every recipient". */
  one = false,
): void {
  const names = placeholdersOfTemplate(t);
  const label = `template ${esc(show(pick(t, "name") ?? `#${show(t.id)}`))}`;
  const unknown = Object.keys(values).filter((k) => !names.includes(k));
  if (unknown.length) {
    throw new UserError(
      `${unknown.map((k) => `${esc(k)}=`).join(", ")} ${unknown.length === 1 ? "is not a placeholder" : "are not placeholders"} of ${label} (${
        names.length
          ? `its placeholders: ${names.map((n) => esc(typed(n, options))).join(", ")}`
          : "it has none"
      })`,
    );
  }
  const missing = names.filter((n) => !values[n]?.trim());
  if (missing.length) {
    throw new UserError(
      `${capitalize(label)} needs ${missing.map((n) => `\`${esc(typed(n, options))}…\``).join(", ")}: ${
        missing.length === 1 ? "its placeholder" : "its placeholders"
      } ${missing.map(esc).join(", ")} would be left empty. Add ${missing
        .map((n) => `\`${esc(typed(n, options))}…\``)
        .join(" ")}${one ? "; nothing was sent" : " (the same value for every recipient)"}.`,
    );
  }
}

/** The values a campaign record shows, or undefined when it shows none (made elsewhere, or an API that hides them). */
function valuesOf(c: ApiRecord): Record<string, string> | undefined {
  const v = pick(c, "templateParameters", "template_parameters");
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, String(x)]));
}

/**
 * The message of a send confirmation, as customers will read it: the body
 * with the campaign's values filled in, quoted and escaped, and a note when
 * the values cannot be checked or some are missing. Empty when no body is known.
 */
export function campaignMessageText(t: ApiRecord | undefined, c: ApiRecord): string {
  const body = bodyOf(t);
  if (!body) return "";
  const names = placeholdersOfTemplate(t);
  const values = valuesOf(c);
  const filled = values ? fillPlaceholders(body, values) : body;
  const quote = `>${esc(show(filled, 1000)).replace(/\n/g, "\n>")}`;
  if (!names.length) return `Customers will read:\n${quote}`;
  if (!values) {
    return `${quote}\nThe values of its placeholders (${names.map(esc).join(", ")}) cannot be checked here: the campaign record does not show them (it was probably made outside Switchboard).`;
  }
  const missing = names.filter((n) => !values[n]?.trim());
  if (missing.length) {
    return `Customers will read:\n${quote}\n:warning: No value for ${missing.map(esc).join(", ")}: that part of the message would be empty.`;
  }
  return `Customers will read:\n${quote}`;
}
