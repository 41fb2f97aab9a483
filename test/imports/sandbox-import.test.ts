// The normalized CSV against the real sandbox: POST /contacts/import through
// the API client, streamed as multipart.
import ExcelJS from "exceljs";
import { afterAll, describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import {
  normalizedCsv,
  normalizedFileName,
  previewImport,
  type RowFailure,
} from "../../src/imports/index.ts";
import { withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox({ seed: false, writeLimit: 1000, readLimit: 1000 });
let client: MessagingClient | undefined;
const api = () => {
  client ??= new MessagingClient({ baseUrl: sandbox().url, apiKey: sandbox().apiKey });
  return client;
};
afterAll(async () => {
  await client?.close();
});

const FIELDS = [
  { key: "loyalty_tier", label: "Loyalty tier", type: "text" },
  { key: "birthday", label: "Birthday", type: "date" },
  { key: "vip", label: "VIP", type: "boolean" },
] as const;

async function importUpload(bytes: Uint8Array, filename: string, updateExisting: boolean) {
  const preview = await previewImport(bytes, { fields: FIELDS, defaultCountry: "US" });
  const failures: RowFailure[] = [];
  const out = normalizedCsv(bytes, preview.mapping, {
    fields: FIELDS,
    defaultCountry: "US",
    onFailure: (f) => failures.push(f),
  });
  const result = await api().importContacts(
    { filename: normalizedFileName(filename), contentType: "text/csv", body: out.body },
    { updateExisting },
  );
  return { preview, failures, result, summary: await out.done };
}

describe("normalized CSV into the sandbox's POST /contacts/import", () => {
  it("is accepted: every normalized row is created, custom fields included", async () => {
    for (const f of FIELDS) await api().createContactField(f);
    // Outlook-style, semicolons, UTF-16 with a BOM, phones in several forms.
    const csv = [
      "First Name;Last Name;Mobile Phone;E-mail Address;Loyalty tier;Birthday;VIP",
      "Zoë;Müller;+49 151 23456789;zoe@example.de;gold;28.02.1990;yes",
      'Ana;"García\nLópez";0034 612 34 56 78;ana@example.com;silver;;no',
      "Bob;Smith;(415) 555-0123;;;;",
      "Cy;Lee;4.41234E+11;;;;",
      "Di;Ng;14155550199.0;di@example.com;;1985-03-04;",
      "Ed;Ox;+1 415 555 0123;;;;",
    ].join("\r\n");
    const bytes = Buffer.from(`\ufeff${csv}`, "utf16le");
    const { preview, failures, result, summary } = await importUpload(bytes, "outlook.csv", false);
    expect(preview.valid).toBe(4);
    expect(failures.map((f) => [f.row, f.code])).toEqual([
      [5, "phone_scientific"],
      [7, "duplicate"],
    ]);
    expect(summary).toMatchObject({ rows: 6, written: 4, failed: 2 });
    expect(result).toMatchObject({ created: 4, updated: 0, errors: [] });

    const page = await api().listContacts({ limit: 100 });
    const byPhone = new Map(page.items.map((c) => [c.phone, c]));
    expect([...byPhone.keys()].sort()).toEqual([
      "+14155550123",
      "+14155550199",
      "+34612345678",
      "+4915123456789",
    ]);
    expect(byPhone.get("+4915123456789")).toMatchObject({
      first_name: "Zoë",
      last_name: "Müller",
      email: "zoe@example.de",
      custom_fields: { loyalty_tier: "gold", birthday: "1990-02-28", vip: true },
    });
    expect(byPhone.get("+34612345678")).toMatchObject({
      last_name: "García López",
      custom_fields: { vip: false },
    });
  });

  it("updates existing contacts from an xlsx upload when asked", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Contacts");
    ws.addRow(["Phone", "Given Name", "Family Name", "Loyalty tier"]);
    ws.addRow([14155550123, "Robert", "Smith", "platinum"]);
    ws.addRow([447911123456, "Nia", "Cole", ""]);
    const bytes = new Uint8Array(await wb.xlsx.writeBuffer());
    const { result } = await importUpload(bytes, "contacts.xlsx", true);
    expect(result).toMatchObject({ created: 1, updated: 1, errors: [] });
    const page = await api().listContacts({ search: "Robert" });
    expect(page.items).toHaveLength(1);
    expect(page.items[0]).toMatchObject({
      phone: "+14155550123",
      custom_fields: { loyalty_tier: "platinum" },
    });
  });
});
