// Cell values other than the phone: e-mail, names, and custom field values by
// the field's type. Each returns the normalized text or the reason it is refused.
import type { CountryCode } from "libphonenumber-js";
import { z } from "zod";

export type ValueResult = { ok: true; value: string } | { ok: false; reason: string };

const ok = (value: string): ValueResult => ({ ok: true, value });
const no = (reason: string): ValueResult => ({ ok: false, reason });

/** Collapses runs of spaces (and the invisible ones spreadsheets carry). */
export function cleanText(raw: string): string {
  return raw.replace(/[\s\u00a0\u200b\ufeff]+/g, " ").trim();
}

/** The same rule as the API's e-mail schema. Google joins several values with " ::: ": the first is kept. */
export function normalizeEmail(raw: string): ValueResult {
  let text = cleanText(raw);
  const several = text.indexOf(":::");
  if (several >= 0) text = text.slice(0, several).trim();
  if (/^mailto:/i.test(text)) text = text.slice(7);
  if (text === "") return ok("");
  return z.regexes.email.test(text) ? ok(text) : no(`email ${text} is not an e-mail address`);
}

/**
 * A full name split for a contact: "García, Ana" is last name first; otherwise
 * the first word is the first name and the rest the last name.
 */
export function splitName(raw: string): { first: string; last: string } {
  const text = cleanText(raw);
  const comma = text.indexOf(",");
  if (comma >= 0) return { first: text.slice(comma + 1).trim(), last: text.slice(0, comma).trim() };
  const space = text.indexOf(" ");
  return space < 0 ? { first: text, last: "" } : { first: text.slice(0, space), last: text.slice(space + 1) };
}

/**
 * A row's first and last name with its full name: the full name fills the one
 * (or both) the row lacks; "Ana María Lima" with the last name "Lima" gives the
 * first name "Ana María". `lost` is true when the row has both names and the
 * full name says more than they do (its text would not be imported).
 */
export function withFullName(
  first: string,
  last: string,
  rawFull: string,
): { first: string; last: string; lost: boolean } {
  const full = cleanText(rawFull);
  if (full === "") return { first, last, lost: false };
  const same = (a: string, b: string) => a.localeCompare(b, undefined, { sensitivity: "base" }) === 0;
  if (first !== "" && last !== "") {
    const said = [`${first} ${last}`, `${last} ${first}`, `${last}, ${first}`, `${last},${first}`];
    return { first, last, lost: !said.some((s) => same(s, full)) };
  }
  const split = splitName(full);
  if (first === "" && last === "") return { ...split, lost: false };
  if (first === "") {
    // The last name given: the first name is what the full name has before (or after a comma) it.
    const before = full.length > last.length ? full.slice(0, full.length - last.length) : "";
    if (before.endsWith(" ") && same(full.slice(before.length), last))
      return { first: before.trim(), last, lost: false };
    const after = full.slice(0, last.length);
    if (same(after, last) && /^,? /.test(full.slice(last.length))) {
      return { first: full.slice(last.length).replace(/^,? /, "").trim(), last, lost: false };
    }
    return { first: same(full, last) ? "" : split.first, last, lost: false };
  }
  // The first name given: the last name is what the full name has after it.
  if (same(full.slice(0, first.length), first) && full[first.length] === " ") {
    return { first, last: full.slice(first.length + 1).trim(), lost: false };
  }
  return { first, last: same(full, first) ? "" : split.last, lost: false };
}

const TRUE = new Set(["true", "yes", "y", "1", "si", "sí", "oui", "ja", "x", "✓"]);
const FALSE = new Set(["false", "no", "n", "0", "non", "nein"]);
// Countries writing dates month first; elsewhere a slashed date is day first.
const MONTH_FIRST = new Set(["US", "PH", "FM", "MH", "PW", "GU", "AS", "PR", "VI", "MP", "UM", "BZ"]);

/** A custom field value checked against the field's type (text, number, date, boolean). */
export function normalizeFieldValue(
  raw: string,
  type: string | undefined,
  country: CountryCode | undefined,
): ValueResult {
  const text = cleanText(raw);
  if (text === "") return ok("");
  switch (type) {
    case "number":
      return normalizeNumber(text);
    case "boolean": {
      const t = text.toLowerCase();
      if (TRUE.has(t)) return ok("true");
      if (FALSE.has(t)) return ok("false");
      return no(`${text} is not yes or no (true/false)`);
    }
    case "date":
      return normalizeDate(text, country);
    default:
      return ok(text);
  }
}

function normalizeNumber(text: string): ValueResult {
  const compact = text.replace(/[\s\u00a0']/g, "");
  if (/^[+-]?\d+(\.\d+)?$/.test(compact)) return ok(String(Number(compact)));
  // 12,5 is a decimal comma; 1,234 could be a thousand as well, so it is refused.
  if (/^[+-]?\d+,(\d{1,2}|\d{4,})$/.test(compact)) return ok(String(Number(compact.replace(",", "."))));
  return no(`${text} is not a number (write it like 1234.5)`);
}

function normalizeDate(text: string, country: CountryCode | undefined): ValueResult {
  let m = /^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?:[T ]00:00(?::00(?:\.0+)?)?Z?)?$/.exec(text);
  if (m) return isoDate(+m[1]!, +m[2]!, +m[3]!, text);
  // A date-time in a date field keeps the calendar date it was written with.
  m = /^(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}/.exec(text);
  if (m && !Number.isNaN(Date.parse(text))) return isoDate(+m[1]!, +m[2]!, +m[3]!, text);
  m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text);
  if (m) return isoDate(+m[3]!, +m[2]!, +m[1]!, text);
  m = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(text);
  if (m) {
    const a = +m[1]!;
    const b = +m[2]!;
    const year = +m[3]!;
    // Unambiguous when one part cannot be a month; otherwise the country's custom decides.
    if (a > 12) return isoDate(year, b, a, text);
    if (b > 12) return isoDate(year, a, b, text);
    return country !== undefined && MONTH_FIRST.has(country)
      ? isoDate(year, a, b, text)
      : isoDate(year, b, a, text);
  }
  return no(`${text} is not a date (write it as YYYY-MM-DD)`);
}

function isoDate(year: number, month: number, day: number, text: string): ValueResult {
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) {
    return no(`${text} is not a date of the calendar`);
  }
  return ok(d.toISOString().slice(0, 10));
}
