// zod pieces for command-line arguments: what a person types (`#12`, `yes`,
// `1,2,3`, `+1 (415) 555-0123`) turned into what the API takes. The rules
// themselves come from src/api/schemas.ts so the two never disagree.
import {
  type CountryCode,
  getCountryCallingCode,
  isSupportedCountry,
  Metadata,
  parsePhoneNumberFromString,
  validatePhoneNumberLength,
} from "libphonenumber-js";
import { z } from "zod";
import { idSchema, limitSchema, pageSchema, toE164 } from "../api/schemas.ts";

/** A record id, `12` or `#12`. */
const stripHash = (v: unknown) => (typeof v === "string" ? v.trim().replace(/^#/, "") : v);
export const idArg = z.preprocess(stripHash, idSchema);

export const optionalId = z.preprocess(stripHash, idSchema.optional());

const YES = new Set(["yes", "y", "true", "on", "1"]);
const NO = new Set(["no", "n", "false", "off", "0"]);

export const yesNo = z.preprocess(
  (v) => {
    if (typeof v !== "string") return v;
    const s = v.toLowerCase();
    return YES.has(s) ? true : NO.has(s) ? false : v;
  },
  z.boolean({ error: "must be yes or no" }),
);

/** Options taken as text as typed, each optional: `{ tz: z.string().optional(), … }` for these keys. */
export const optionalTexts = <K extends string>(...keys: K[]) =>
  Object.fromEntries(keys.map((k) => [k, z.string().optional()])) as { [P in K]: z.ZodOptional<z.ZodString> };

export const pageArg = pageSchema.optional();
export const limitArg = limitSchema.optional();

/**
 * Ids as `1,2,3` or several words (the registry already split them into a
 * list). Each word that is not an id is named in the answer (`“x” is not an
 * id`), and an empty `group=` is refused: never a bare "group.0 is required".
 */
export const idList = z.preprocess(
  (v) =>
    typeof v === "string"
      ? v
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : v,
  z.array(z.unknown(), { error: "must be one or more ids" }).transform((items, ctx) => {
    if (items.length === 0) {
      ctx.addIssue({ code: "custom", message: "is empty: give one or more ids, for example 2,5" });
      return z.NEVER;
    }
    const ids: number[] = [];
    const bad: string[] = [];
    for (const item of items) {
      const id = idSchema.safeParse(stripHash(item));
      if (id.success) ids.push(id.data);
      else bad.push(`“${String(item)}”`);
    }
    if (bad.length) {
      ctx.addIssue({
        code: "custom",
        message: `takes ids in decimal digits, comma separated, for example 2,5: ${bad.join(", ")} ${bad.length === 1 ? "is not an id" : "are not ids"}`,
      });
      return z.NEVER;
    }
    return ids;
  }),
);

export const requiredText = (what = "text") =>
  z
    .string({ error: `is required (${what})` })
    .trim()
    .min(1, { error: "must not be empty" });

/** An option that names a choice, case-insensitively: `status=Approved` is `approved`. */
export const choice = <T extends readonly [string, ...string[]]>(
  values: T,
  transform?: (v: string) => string,
) =>
  z.preprocess(
    (v) => (typeof v === "string" ? (transform ? transform(v) : v.toLowerCase()) : v),
    z.enum(values, { error: () => `must be one of ${values.join(", ")}` }),
  );

export type Recipient =
  | { kind: "phone"; to: string }
  | { kind: "contact"; contactId: number }
  | { kind: "user"; chatUserId: number };

/** A word that may be part of a phone number as people type it: `+34`, `(415)`, `555-0123`, `612.345`. */
const PHONE_WORD = /^[+\d()\-.]+$/;
/** The most words a phone is read from (`+1 (415) 555 01 23` is five). */
const PHONE_WORDS = 8;

/**
 * The recipient at the start of `words`: `contact:<id>`, `user:<id>`, or a
 * phone number that may span several words (`+34 612 345 678`). A phone split
 * by spaces is read greedily: the longest run of leading number-like words
 * that is a valid number (else a possible one) wins, and the rest is the
 * text; reading stops once the digits are too long for any number of the
 * country. `+34 612 345 678 hola` sends "hola" to +34612345678. Where a
 * country's numbers vary in length, a text that starts with a number could
 * continue the phone: write the phone in one word then (`+4930123456 2 Kaffee`).
 */
export function takeRecipient(
  words: string[],
  defaultCountry?: string,
): { recipient: Recipient; rest: string[] } | { error: string } {
  const first = words[0];
  if (!first) return { error: "is required: a phone number, contact:<id> or user:<id>" };
  const ref = /^(contact|user):#?(\S*)$/i.exec(first);
  if (ref) {
    const id = idSchema.safeParse(ref[2]);
    if (!id.success)
      return { error: `${ref[1]!.toLowerCase()}:<id> needs a positive number after the colon` };
    return {
      recipient:
        ref[1]!.toLowerCase() === "contact"
          ? { kind: "contact", contactId: id.data }
          : { kind: "user", chatUserId: id.data },
      rest: words.slice(1),
    };
  }
  const run: string[] = [];
  while (run.length < words.length && run.length < PHONE_WORDS && PHONE_WORD.test(words[run.length]!)) {
    run.push(words[run.length]!);
  }
  const country = defaultCountry && isSupportedCountry(defaultCountry) ? defaultCountry : undefined;
  let valid: { to: string; words: number } | undefined;
  let possible: { to: string; words: number } | undefined;
  let joined = "";
  for (let i = 0; i < run.length; i++) {
    joined += run[i];
    const e164 = toE164(joined, country);
    if (e164) {
      possible = { to: e164, words: i + 1 };
      if (parsePhoneNumberFromString(e164)?.isValid()) valid = possible;
    } else if (lengthOf(joined, country) === "TOO_LONG") break;
  }
  const found = valid ?? possible;
  if (found) return { recipient: { kind: "phone", to: found.to }, rest: words.slice(found.words) };
  if (run.length === 0) {
    return {
      error: `\`${first}\` is not a recipient: give a phone number with its country code (for example +14155550123), contact:<id> or user:<id>`,
    };
  }
  return { error: notAPhone(run.join(" "), country) };
}

/** libphonenumber's verdict on a number's length, its "00" read as "+". */
function lengthOf(typed: string, country: CountryCode | undefined) {
  const digits = compactPhone(typed);
  return validatePhoneNumberLength(
    digits,
    country && !digits.startsWith("+") ? { defaultCountry: country } : {},
  );
}

/** `+34 (612) 345-678` → `+34612345678`; `0034…` → `+34…`. */
function compactPhone(typed: string): string {
  const digits = typed.replace(/[\s().\-/]/g, "");
  return digits.startsWith("00") ? `+${digits.slice(2)}` : digits;
}

/** Metadata's methods that its typings leave out (libphonenumber-js 1.x has them). */
interface CallingCodes {
  hasCallingCode(code: string): boolean;
  getCountryCodeForCallingCode(code: string): CountryCode | undefined;
}

const REGION_NAMES = new Intl.DisplayNames(["en"], { type: "region" });
/** "Spain", "the United States". */
function countryName(code: CountryCode): string {
  const name = REGION_NAMES.of(code) ?? code;
  return /^(United |Netherlands|Philippines|Bahamas|Gambia|Dominican Republic|Central African Republic|Czech Republic|Maldives|Marshall Islands|Solomon Islands|Comoros|Seychelles)/.test(
    name,
  )
    ? `the ${name}`
    : name;
}

/** A country's code in words: "Spain (ES)". */
export function countryWords(code: string): string {
  const name = REGION_NAMES.of(code);
  return name && name !== code ? `${name} (${code})` : code;
}

/** What a phone without a + code needs while no country is set (the core adds a Settings button for admins). */
export const NO_COUNTRY = "has no country code and no country is set: an admin can set one in Settings";

/** "9 digits", "4 to 15 digits", "7 or 10 digits". */
function digitCounts(lengths: number[]): string {
  const sorted = [...new Set(lengths)].sort((a, b) => a - b);
  if (sorted.length === 1) return `${sorted[0]} digits`;
  const contiguous = sorted.every((n, i) => i === 0 || n === sorted[i - 1]! + 1);
  if (contiguous) return `${sorted[0]} to ${sorted.at(-1)} digits`;
  return `${sorted.slice(0, -1).join(", ")} or ${sorted.at(-1)} digits`;
}

/**
 * Why what was typed is not a phone, quoting it as typed:
 * "`+34 12` is too short for a phone number in Spain: numbers there have 9 digits after +34".
 */
export function notAPhone(typed: string, country: CountryCode | undefined): string {
  const quoted = `\`${typed}\``;
  const digits = compactPhone(typed);
  const international = digits.startsWith("+");
  const verdict = lengthOf(digits, country);
  const withCode =
    "give a phone number with its country code (for example +14155550123), contact:<id> or user:<id>";
  if (!international && !country) return `${quoted} ${NO_COUNTRY}, or write it with its + code`;
  if (verdict === "INVALID_COUNTRY")
    return `${quoted} does not start with a country's calling code: ${withCode}`;
  if (verdict !== "TOO_SHORT" && verdict !== "TOO_LONG" && verdict !== "INVALID_LENGTH") {
    return `${quoted} is not a phone number: ${withCode}`;
  }
  // The country the number is read in: its calling code's main country, or the default country.
  const metadata = new Metadata();
  const codes = metadata as unknown as CallingCodes;
  let region: CountryCode | undefined = country;
  if (international) {
    const code = [1, 2, 3].map((n) => digits.slice(1, 1 + n)).find((cc) => codes.hasCallingCode(cc));
    region = code ? codes.getCountryCodeForCallingCode(code) : undefined;
  }
  if (!region) return `${quoted} is not a phone number: ${withCode}`;
  metadata.selectNumberingPlan(region);
  const callingCode = getCountryCallingCode(region);
  const lengths = metadata.numberingPlan?.possibleLengths() ?? [];
  const what =
    verdict === "TOO_SHORT"
      ? "is too short"
      : verdict === "TOO_LONG"
        ? "is too long"
        : "has the wrong length";
  const have = lengths.length
    ? `: numbers there have ${digitCounts(lengths)}${international ? ` after +${callingCode}` : ""}`
    : "";
  const otherwise = international ? "" : ` (a number of another country is written with its + code)`;
  return `${quoted} ${what} for a phone number in ${countryName(region)}${have}${otherwise}`;
}
