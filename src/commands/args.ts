// zod pieces for command-line arguments: what a person types (`#12`, `yes`,
// `1,2,3`, `+1 (415) 555-0123`) turned into what the API takes. The rules
// themselves come from src/api/schemas.ts so the two never disagree.
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

/**
 * The recipient at the start of `words`: `contact:<id>`, `user:<id>`, or a
 * phone number that may span several words (`+1 415 555 0123`): the
 * shortest run of leading words that is a possible number wins.
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
  let joined = "";
  for (let i = 0; i < words.length && i < 6; i++) {
    if (!/^[+\d()\-.]+$/.test(words[i]!)) break;
    joined += words[i];
    const e164 = toE164(joined, defaultCountry);
    if (e164) return { recipient: { kind: "phone", to: e164 }, rest: words.slice(i + 1) };
  }
  return {
    error: `"${first}" is not a recipient: give a phone number with its country code (for example +14155550123), contact:<id> or user:<id>`,
  };
}
