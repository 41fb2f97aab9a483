// Values the requests share: whole numbers and ids as people and query strings write them, phones
// (E.164), colours, keys, dates, e-mails, URLs, paging.

import { parsePhoneNumberFromString } from "libphonenumber-js";
import { z } from "zod";

const DECIMAL = /^\s*-?\d+\s*$/;

/**
 * A whole number from a number or from text of plain decimal digits. Unlike
 * z.coerce.number(), text such as `0x10`, `1e1`, `0b1`, `1.0` or `Infinity`
 * is refused, not read as 16, 10, 1 or a huge number.
 */
export const wholeNumber = () =>
  z.preprocess(
    (v) => (typeof v === "string" && DECIMAL.test(v) ? Number(v) : v),
    z
      .number({ error: "must be a number written in decimal digits (0-9), for example 12" })
      .int({ error: "must be a whole number" }),
  );

export const idSchema = wholeNumber().pipe(z.number().positive({ error: "must be a positive number" }));

/** Normalizes a phone number to E.164, or returns undefined when it cannot be one. */
export function toE164(raw: string, defaultCountry?: string): string | undefined {
  let text = raw.trim();
  if (text.startsWith("00")) text = `+${text.slice(2)}`;
  const digits = text.replace(/[\s().\-/]/g, "");
  if (!/^\+?\d+$/.test(digits)) return undefined;
  const parsed = parsePhoneNumberFromString(
    digits,
    // biome-ignore lint/suspicious/noExplicitAny: CountryCode is a string union of libphonenumber-js.
    defaultCountry && !digits.startsWith("+") ? { defaultCountry: defaultCountry as any } : undefined,
  );
  if (!parsed?.isPossible()) return undefined;
  const e164 = parsed.number;
  return /^\+[1-9]\d{6,14}$/.test(e164) ? e164 : undefined;
}

export const phoneSchema = z.string({ error: "must be a phone number" }).transform((value, ctx) => {
  const e164 = toE164(value);
  if (!e164) {
    ctx.addIssue({
      code: "custom",
      message: "must be a phone number in E.164 format with its country code, for example +14155550123",
    });
    return z.NEVER;
  }
  return e164;
});

export const colorSchema = z
  .string({ error: "must be a colour" })
  .regex(/^#[0-9A-Fa-f]{6}$/, { error: "must be a hexadecimal colour written #RRGGBB, for example #1D9BD1" })
  .transform((c) => c.toUpperCase());

export const fieldKeySchema = z.string({ error: "must be a text" }).regex(/^[a-z0-9_]+$/, {
  error: "must be a lower-case slug of a-z, 0-9 and underscore, for example loyalty_tier",
});

export const isoDateTimeSchema = z.iso.datetime({
  offset: true,
  error: "must be an ISO 8601 date-time, for example 2026-05-01T09:30:00Z",
});

/** ISO 8601 date or date-time (the chat-user date range says only "ISO 8601"). */
export const isoDateOrDateTimeSchema = z.union([z.iso.date(), z.iso.datetime({ offset: true })], {
  error: "must be an ISO 8601 date or date-time, for example 2026-05-01 or 2026-05-01T09:30:00Z",
});

export const emailSchema = z.email({ error: "must be an e-mail address, for example ana@example.com" });
export const urlSchema = z.url({ protocol: /^https?$/, error: "must be an http or https URL" });

/** Booleans arrive as JSON booleans from the client and as "true"/"false" in a query string. */
export const queryBooleanSchema = z.preprocess(
  (v) => (v === "true" ? true : v === "false" ? false : v),
  z.boolean({ error: "must be true or false" }),
);

export const pageSchema = wholeNumber().pipe(z.number().min(1, { error: "must be at least 1" }));

export const limitSchema = wholeNumber().pipe(
  z.number().min(1, { error: "must be between 1 and 100" }).max(100, { error: "must be between 1 and 100" }),
);

export const pagingShape = (defaultLimit = 20) => ({
  page: pageSchema.default(1),
  limit: limitSchema.default(defaultLimit),
});
