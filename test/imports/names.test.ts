// Names in an import: a bare "Name" beside a last-name column is the first
// name; a full-name column fills what a row lacks; a column whose values will
// not be imported is named in the preview as a warning, never dropped in silence.
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { suggestMapping } from "../../src/imports/headers.ts";
import { normalizedCsv, previewImport, summarizePreview } from "../../src/imports/index.ts";
import { withFullName } from "../../src/imports/values.ts";

async function imported(csv: string) {
  const source = Buffer.from(csv);
  const preview = await previewImport(source, { defaultCountry: "US" });
  const out = normalizedCsv(source, preview.mapping, { defaultCountry: "US" });
  const chunks: Buffer[] = [];
  for await (const chunk of out.body) chunks.push(chunk as Buffer);
  const records = parse(Buffer.concat(chunks).toString("utf8"), { columns: true }) as Array<
    Record<string, string>
  >;
  return { preview, records, sent: Buffer.concat(chunks).toString("utf8") };
}

describe("an import's names", () => {
  it("reads Name as the first name beside Surname, and says so in the preview", async () => {
    const r = await imported("Phone,Name,Surname\n+14155553101,Ana,Lima\n+14155553102,Bo,Ek\n");
    expect(r.sent).toContain("+14155553101,Ana,Lima,");
    expect(r.records.map((c) => [c.first_name, c.last_name])).toEqual([
      ["Ana", "Lima"],
      ["Bo", "Ek"],
    ]);
    expect(r.preview.mapping).toMatchObject({ phone: [0], first_name: 1, last_name: 2, name: null });
    expect(r.preview.warnings).toEqual([
      '"Name" (column B) is read as the first name, since "Surname" (column C) holds the last name',
    ]);
    expect(summarizePreview(r.preview).warnings).toEqual(r.preview.warnings);
  });

  it.each([
    [["Phone", "Name", "Last Name"], { first_name: 1, last_name: 2, name: null }],
    [["Phone", "Name", "Full Name", "Surname"], { first_name: 1, last_name: 3, name: 2 }],
    // With both names there, "Name" is the full name (Google Contacts).
    [["Phone", "Name", "Given Name", "Family Name"], { first_name: 2, last_name: 3, name: 1 }],
    // "Full Name" is a full name whatever stands beside it.
    [["Phone", "Full Name", "Surname"], { first_name: null, last_name: 2, name: 1 }],
  ])("maps %j", (headers, expected) => {
    expect(suggestMapping(headers).mapping).toMatchObject(expected);
  });

  it("fills a row's missing first or last name from its full name", async () => {
    // Each row beside the first and last name it gives.
    const rows: Array<[string, [string, string]]> = [
      ["+14155553101,Ana María Lima,Lima", ["Ana María", "Lima"]],
      ['+14155553102,"Ek, Bo",Ek', ["Bo", "Ek"]],
      ["+14155553103,Cy Ng,", ["Cy", "Ng"]],
      ["+14155553104,Di,Di", ["", "Di"]],
    ];
    const r = await imported(["Phone,Full Name,Surname", ...rows.map(([row]) => row)].join("\n"));
    expect(r.records.map((c) => [c.first_name, c.last_name])).toEqual(rows.map(([, names]) => names));
    expect(r.preview.warnings).toEqual([]);
  });

  it("warns of a full name the row's own names leave out, and of a second column of a member", async () => {
    const r = await imported(
      [
        "Phone,First Name,Last Name,Full Name,Email,E-mail 2 Address",
        "+14155553101,Ana,Lima,Ana Lima,ana@example.com,",
        "+14155553102,Bo,Ek,Bo Anders Ek,bo@example.com,bo@work.example.com",
        '+14155553103,Cy,Ng,"Ng, Cy",,',
      ].join("\n"),
    );
    expect(r.records.map((c) => [c.first_name, c.last_name, c.email])).toEqual([
      ["Ana", "Lima", "ana@example.com"],
      ["Bo", "Ek", "bo@example.com"],
      ["Cy", "Ng", ""],
    ]);
    expect(r.preview.warnings).toEqual([
      '"E-mail 2 Address" (column F) is not imported (1 row with a value): email already comes from "Email" (column E)',
      '"Full Name" (column D) is not imported on 1 row (row 3): it has a first and a last name of its own, and the full name fills only a missing one',
    ]);
  });

  it.each([
    ["", "", "Ana Lima", "Ana", "Lima"],
    ["", "Lima", "Ana María Lima", "Ana María", "Lima"],
    ["", "Lima", "lima ana", "ana", "Lima"],
    ["", "Lima", "Ana Pérez", "Ana", "Lima"],
    ["Ana", "", "Ana María Lima", "Ana", "María Lima"],
    ["Ana", "", "Ana", "Ana", ""],
  ])("first %j last %j full %j → %j %j", (first, last, full, wantFirst, wantLast) => {
    expect(withFullName(first, last, full)).toEqual({ first: wantFirst, last: wantLast, lost: false });
  });
});
