import fc from "fast-check";
import { type CountryCode, parsePhoneNumberFromString } from "libphonenumber-js";
import { describe, expect, it } from "vitest";
import { normalizePhone } from "../../src/imports/phone.ts";

const ok = (raw: string, country = "US") => {
  const r = normalizePhone(raw, country as "US");
  if (!r.ok) throw new Error(`expected ${raw} to be accepted: ${r.reason}`);
  return r.e164;
};
const refused = (raw: string, country = "US") => {
  const r = normalizePhone(raw, country as "US");
  if (r.ok) throw new Error(`expected ${raw} to be refused, got ${r.e164}`);
  return r;
};

describe("normalizePhone", () => {
  it("takes E.164, 00 instead of +, spaces and punctuation", () => {
    expect(ok("+14155550123")).toBe("+14155550123");
    expect(ok("+1 (415) 555-0123")).toBe("+14155550123");
    expect(ok("0044 7911 123456")).toBe("+447911123456");
    expect(ok("+44 (0)7911.123.456")).toBe("+447911123456");
    expect(ok("+34\u00a0612\u00a034\u00a056\u00a078")).toBe("+34612345678");
    expect(ok("tel:+14155550123")).toBe("+14155550123");
  });

  it("reads a number without a country code in the default country", () => {
    expect(ok("(415) 555-0123", "US")).toBe("+14155550123");
    expect(ok("07911 123456", "GB")).toBe("+447911123456");
    expect(ok("612 34 56 78", "ES")).toBe("+34612345678");
  });

  it("undoes what a spreadsheet does to a number cell", () => {
    // ".0" of a float.
    expect(ok("14155550123.0")).toBe("+14155550123");
    expect(ok("4155550123,0")).toBe("+14155550123");
    // The "+" lost: digits that are no number of the default country but one with a country code.
    expect(ok("447911123456", "US")).toBe("+447911123456");
    // The leading zero lost (Italian landlines keep it in E.164).
    expect(ok("611234567", "IT")).toBe("+390611234567");
  });

  it("expands scientific notation only when no digit was lost", () => {
    expect(ok("4.47911123456E+11")).toBe("+447911123456");
    expect(ok("4,47911123456E+11")).toBe("+447911123456");
    expect(ok("1.4155550123e10")).toBe("+14155550123");
    const lost = refused("4.41234E+11");
    expect(lost.code).toBe("phone_scientific");
    expect(lost.reason).toContain("lost 6 of its 12 digits");
    expect(refused("4,41234E+11").code).toBe("phone_scientific");
    // More digits than the exponent allows: a fraction, not a phone.
    expect(refused("4.479111234567E+11").code).toBe("phone_fraction");
  });

  it("refuses what it cannot read, with the reason", () => {
    expect(refused("").code).toBe("phone_missing");
    expect(refused("   ").code).toBe("phone_missing");
    expect(refused("call me").code).toBe("phone_characters");
    expect(refused("415-555-0123 x12").code).toBe("phone_extension");
    expect(refused("123").reason).toMatch(/too short/);
    expect(refused("+999 1234 5678").reason).toMatch(/unknown country code/);
    expect(refused("4155550123.5").code).toBe("phone_fraction");
    expect(refused("+1 415 555 0123 #").code).toBe("phone_characters");
  });

  it("takes the first of several values Google Contacts puts in one cell", () => {
    expect(ok("+1 415-555-0123 ::: +1 415-555-0199")).toBe("+14155550123");
  });
});

// The validation itself is libphonenumber's: whatever the pipeline does to go
// faster, a row's number is accepted exactly when one of these attempts is
// valid for it (docs/imports.md, "Phones"), and refused otherwise.
function reference(digits: string, country: CountryCode): string | undefined {
  const valid = (text: string, defaultCountry?: CountryCode) => {
    const parsed = parsePhoneNumberFromString(text, defaultCountry ? { defaultCountry } : undefined);
    return parsed?.isValid() ? parsed.number : undefined;
  };
  if (digits.startsWith("00")) return valid(`+${digits.slice(2)}`);
  if (digits.startsWith("+")) return valid(digits);
  const attempts: Array<[string, CountryCode?]> = [[digits, country]];
  if (!digits.startsWith("0")) attempts.push([`0${digits}`, country], [`+${digits}`]);
  for (const [text, c] of attempts) {
    const e164 = valid(text, c);
    if (e164) return e164;
  }
  return undefined;
}

describe("normalizePhone against libphonenumber's verdict", () => {
  const COUNTRIES: CountryCode[] = ["US", "GB", "IT", "DE", "FR", "ES", "BR", "IN", "MX", "AU", "CA", "JM"];
  // Numbers near real ones: a country's own prefixes, then random digits.
  const PREFIXES = [
    "",
    "+",
    "00",
    "0",
    "1",
    "+1",
    "44",
    "+44",
    "39",
    "0039",
    "49",
    "33",
    "34",
    "55",
    "91",
    "52",
    "61",
  ];
  it("accepts exactly what libphonenumber finds valid, with the same E.164", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...COUNTRIES),
        fc.constantFrom(...PREFIXES),
        fc.stringMatching(/^\d{2,14}$/),
        fc.constantFrom("", " ", "-"),
        (country, prefix, digits, separator) => {
          const raw = separator
            ? `${prefix}${digits.slice(0, 3)}${separator}${digits.slice(3)}`
            : prefix + digits;
          const result = normalizePhone(raw, country);
          const expected = reference(prefix + digits, country);
          expect(result.ok ? result.e164 : undefined).toBe(expected);
          if (!result.ok && (prefix + digits).replace(/^\+/, "") !== "") {
            expect(result.code).toBe("phone_invalid");
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
