import { describe, expect, it } from "vitest";
import { MappingError, resolveMapping, suggestMapping } from "../../src/imports/headers.ts";

const FIELDS = [
  { key: "loyalty_tier", label: "Loyalty tier", type: "text" },
  { key: "birthday", label: "Date of birth", type: "date" },
];

/** A CSV file's first row, as an export writes it, split into its column headers. */
const headerRow = (line: string) => line.split(",");

describe("suggestMapping", () => {
  it("maps a Google Contacts export", () => {
    const headers = headerRow(
      "Name,Given Name,Additional Name,Family Name,E-mail 1 - Type,E-mail 1 - Value,Phone 1 - Type,Phone 1 - Value,Phone 2 - Type,Phone 2 - Value",
    );
    const { mapping, ignored } = suggestMapping(headers);
    expect(mapping).toEqual({
      phone: [7, 9],
      first_name: 1,
      last_name: 3,
      email: 5,
      name: 0,
      fields: {},
    });
    expect(ignored.map((i) => i.header)).toEqual([
      "Additional Name",
      "E-mail 1 - Type",
      "Phone 1 - Type",
      "Phone 2 - Type",
    ]);
  });

  it("maps the newer Google Contacts headers", () => {
    const { mapping } = suggestMapping(
      headerRow("First Name,Middle Name,Last Name,E-mail 1 - Value,Phone 1 - Value"),
    );
    expect(mapping).toMatchObject({ phone: [4], first_name: 0, last_name: 2, email: 3 });
  });

  it("maps an Outlook export, mobile phone first and fax left out", () => {
    const headers = headerRow(
      "First Name,Middle Name,Last Name,Business Fax,Business Phone,Home Phone,Mobile Phone,E-mail Address,E-mail 2 Address",
    );
    const { mapping, ignored } = suggestMapping(headers);
    expect(mapping).toMatchObject({ phone: [6, 4, 5], first_name: 0, last_name: 2, email: 7 });
    expect(ignored.find((i) => i.header === "Business Fax")?.reason).toMatch(/fax/);
    expect(ignored.find((i) => i.header === "E-mail 2 Address")?.reason).toMatch(
      /email already comes from "E-mail Address"/,
    );
  });

  it("maps a HubSpot export", () => {
    const { mapping } = suggestMapping(
      headerRow("Record ID,First Name,Last Name,Email,Phone Number,Mobile Phone Number"),
    );
    expect(mapping).toMatchObject({ phone: [5, 4], first_name: 1, last_name: 2, email: 3 });
  });

  it("maps a plain sheet and custom fields by key or label", () => {
    const { mapping, ignored } = suggestMapping(
      ["phone", "first_name", "last_name", "email", "LOYALTY_TIER", "Date of Birth", "notes"],
      FIELDS,
    );
    expect(mapping).toEqual({
      phone: [0],
      first_name: 1,
      last_name: 2,
      email: 3,
      name: null,
      fields: { loyalty_tier: 4, birthday: 5 },
    });
    expect(ignored).toEqual([
      { column: 6, header: "notes", reason: "not a contact member nor a field of the organization" },
    ]);
  });

  it("ignores case, accents, spacing and punctuation", () => {
    const { mapping } = suggestMapping(["  TELÉFONO móvil ", "Prénom", "Nachname", "e_mail", "WhatsApp"]);
    expect(mapping).toMatchObject({ phone: [4, 0], first_name: 1, last_name: 2, email: 3 });
    expect(suggestMapping(["Cell", "Full Name"]).mapping).toMatchObject({ phone: [0], name: 1 });
    expect(suggestMapping(["Telephone"]).mapping.phone).toEqual([0]);
  });

  it("finds no phone column when there is none", () => {
    expect(suggestMapping(["Company", "Notes"]).mapping.phone).toEqual([]);
  });
});

describe("resolveMapping", () => {
  const headers = ["Name", "Work", "Cell", "Mail", "Tier"];

  it("applies the user's choices by header, letter or index over the suggestion", () => {
    const mapping = resolveMapping(
      headers,
      { phone: ["Work", "C"], email: 3, fields: { loyalty_tier: "tier" } },
      FIELDS,
    );
    expect(mapping).toEqual({
      phone: [1, 2],
      first_name: null,
      last_name: null,
      email: 3,
      name: 0,
      fields: { loyalty_tier: 4 },
    });
    expect(resolveMapping(headers, { name: null }, FIELDS).name).toBeNull();
  });

  it("refuses unknown columns and fields, naming each problem", () => {
    try {
      resolveMapping(headers, { phone: "Fax", first_name: "Z", fields: { shoe_size: "Tier" } }, FIELDS);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(MappingError);
      expect((error as MappingError).problems).toEqual([
        'phone[0]: there is no column "Fax" in the file',
        'first_name: there is no column "Z" in the file',
        "fields.shoe_size: the organization has no contact field with this key",
      ]);
    }
    expect(() => resolveMapping(["Company"], {}, [])).toThrow(/phone: choose the column/);
    expect(() => resolveMapping(headers, { phone: 1, surname: 2 })).toThrow(/surname/);
  });
});
