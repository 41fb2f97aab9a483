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
