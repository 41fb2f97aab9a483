// Phone numbers of uploaded files → E.164. Real files carry numbers as people
// type them and as spreadsheets mangle them; each rule here undoes one known
// mangling and refuses what cannot be undone (docs/imports.md, "Phones").

import {
  type CountryCode,
  isSupportedCountry,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
} from "libphonenumber-js";
import { ConfigError } from "../platform/errors.ts";

export type PhoneResult = { ok: true; e164: string } | { ok: false; code: PhoneFailure; reason: string };

export type PhoneFailure =
  | "phone_missing"
  | "phone_scientific"
  | "phone_fraction"
  | "phone_extension"
  | "phone_characters"
  | "phone_invalid"
  | "phone_no_country";

const INVISIBLE = /[\u00a0\u2007\u202f\u200b-\u200d\u2060\ufeff]/g;
// 4.47911123456E+11, 4,41234E+11, 4.4E11: what a spreadsheet writes for a long number in a General cell.
const SCIENTIFIC = /^(\d)(?:[.,](\d+))?e\+?(\d{1,2})$/i;
// 14155550123.0: a number cell exported as a float.
const FLOAT_ZERO = /^(\d+)[.,]0+$/;
const EXTENSION = /(?:e?xt\.?|extension|x|#)\s*\d{1,6}$/i;
const PUNCTUATION = /[\s().\-/\u2010-\u2015\u2212]/g;

/** The country numbers without a + code are read in; none: they are refused, saying a country is needed. */
export function assertCountry(country: string | undefined): CountryCode | undefined {
  if (country === undefined || country === "") return undefined;
  if (!isSupportedCountry(country)) {
    throw new ConfigError(`default country "${country}" is not a supported ISO 3166-1 alpha-2 code`);
  }
  return country;
}

const fail = (code: PhoneFailure, reason: string): PhoneResult => ({ ok: false, code, reason });

/** Normalizes one phone cell to E.164 with `defaultCountry` for numbers without a country code. */
export function normalizePhone(raw: string, defaultCountry: CountryCode | undefined): PhoneResult {
  let text = raw.replace(INVISIBLE, " ").trim();
  // Google Contacts joins several values of one cell with " ::: "; the first is the primary one.
  const several = text.indexOf(":::");
  if (several >= 0) text = text.slice(0, several).trim();
  if (/^tel:/i.test(text)) text = text.slice(4).trim();
  if (text === "") return fail("phone_missing", "no phone number");

  const sci = SCIENTIFIC.exec(text);
  if (sci) {
    const digits = sci[1]! + (sci[2] ?? "");
    const needed = Number(sci[3]) + 1;
    if (digits.length > needed) {
      return fail("phone_fraction", `phone ${text} is not a whole number`);
    }
    if (digits.length < needed) {
      const lost = needed - digits.length;
      return fail(
        "phone_scientific",
        `phone ${text} lost ${lost} of its ${needed} digits when a spreadsheet wrote it in scientific notation (format the column as text and export again)`,
      );
    }
    text = digits;
  }
  const float = FLOAT_ZERO.exec(text);
  if (float) text = float[1]!;
  if (/^\d+[.,]\d+$/.test(text)) return fail("phone_fraction", `phone ${text} is not a whole number`);

  const ext = EXTENSION.exec(text);
  if (ext && /\d/.test(text.slice(0, ext.index))) {
    return fail(
      "phone_extension",
      `phone ${text} has an extension (${ext[0].trim()}), which a contact phone cannot hold`,
    );
  }
  let compact = text.replace(PUNCTUATION, "");
  if (/[a-z]/i.test(compact)) return fail("phone_characters", `phone ${text} contains letters`);
  if (!/^\+?\d+$/.test(compact)) {
    return fail("phone_characters", `phone ${text} contains characters other than digits and punctuation`);
  }
  if (compact.startsWith("00")) compact = `+${compact.slice(2)}`;

  if (compact.startsWith("+")) {
    const e164 = validE164(compact);
    if (e164 !== undefined) return { ok: true, e164 };
    return fail("phone_invalid", invalidReason(text, compact));
  }
  // No country set: only a number that plainly lost its "+" (11 digits or more) is read; never a guess.
  if (!defaultCountry) {
    const lostPlus = compact.length >= 11 ? validE164(`+${compact}`) : undefined;
    if (lostPlus !== undefined) return { ok: true, e164: lostPlus };
    return fail(
      "phone_no_country",
      `${text} has no country code and no country is set: an admin can set one in Settings`,
    );
  }
  // No country code: the default country first; then the two things a
  // spreadsheet does to a number cell: drop its leading 0, or drop its "+".
  const national = { defaultCountry };
  const e164 =
    validE164(compact, national) ??
    (compact.startsWith("0") ? undefined : (validE164(`0${compact}`, national) ?? validE164(`+${compact}`)));
  if (e164 !== undefined) return { ok: true, e164 };
  return fail("phone_invalid", invalidReason(text, compact, defaultCountry));
}

/** The number in E.164 when libphonenumber finds it valid (the whole cost of a row, most of the time). */
function validE164(text: string, options?: { defaultCountry: CountryCode }): string | undefined {
  const parsed = parsePhoneNumberFromString(text, options);
  return parsed?.isValid() ? parsed.number : undefined;
}

function invalidReason(text: string, compact: string, country?: CountryCode): string {
  const length = validatePhoneNumberLength(compact, country ? { defaultCountry: country } : undefined);
  const where = country ? ` for ${regionName(country)} (the country set for numbers without a code)` : "";
  switch (length) {
    case "TOO_SHORT":
      return `phone ${text} is too short${where}`;
    case "TOO_LONG":
      return `phone ${text} is too long${where}`;
    case "INVALID_COUNTRY":
      return `phone ${text} starts with an unknown country code`;
    default:
      return `phone ${text} is not a valid number${where}`;
  }
}

const REGIONS = new Intl.DisplayNames(["en"], { type: "region" });
/** "Spain", "the United States". */
function regionName(code: CountryCode): string {
  const name = REGIONS.of(code) ?? code;
  return /^United /.test(name) ? `the ${name}` : name;
}
