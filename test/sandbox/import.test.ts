import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { call, type Rec, withSandbox } from "../helpers/sandbox.ts";

const sandbox = withSandbox({ campaignTickMs: 0, importMaxBytes: 400_000 });

function form(
  file: { name: string; body: string | Uint8Array; type?: string } | null,
  fields: Record<string, string>,
) {
  const fd = new FormData();
  // The file first and the fields after: the sandbox must not depend on their order.
  if (file) fd.append("file", new Blob([file.body], { type: file.type ?? "text/csv" }), file.name);
  for (const [k, v] of Object.entries(fields)) fd.append(k, v);
  return fd;
}

const importFile = (file: Parameters<typeof form>[0], fields: Record<string, string>) =>
  call(sandbox(), "POST", "/contacts/import", { body: form(file, fields) });

const contactByPhone = async (phone: string): Promise<Rec | undefined> => {
  const r = await call(sandbox(), "GET", "/contacts", { query: { search: phone } });
  return r.body.data.find((c: Rec) => c.phone === phone);
};

describe("sandbox contact import", () => {
  it("imports a CSV: creates contacts, reports bad rows with their row numbers", async () => {
    const csv = [
      "phone,first_name,last_name,email,loyalty_tier,points",
      "+14155559101,Ivy,Stone,ivy@example.com,gold,10",
      "+1 415 555 9102,Jon,,,,",
      "not-a-phone,Bad,Row,,,",
      "",
      "+14155559103,Kim,Lee,kim-at-example,,",
      "+14155559104,Lou,Ng,,,many",
      ",NoPhone,,,,",
    ].join("\n");
    const r = await importFile({ name: "contacts.csv", body: csv }, { updateExisting: "false" });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ created: 2, updated: 0, skipped: 0 });
    expect(r.body.errors).toEqual([
      { row: 4, message: expect.stringMatching(/^phone must be a phone number/) },
      { row: 6, message: expect.stringMatching(/^email must be an e-mail/) },
      { row: 7, message: "points must be a number" },
      { row: 8, message: "phone is required" },
    ]);
    expect(await contactByPhone("+14155559101")).toMatchObject({
      first_name: "Ivy",
      last_name: "Stone",
      custom_fields: { loyalty_tier: "gold", points: 10 },
    });
    expect((await contactByPhone("+14155559102"))?.first_name).toBe("Jon");
  });

  it("skips existing phones when updateExisting is false and updates them when true", async () => {
    const first = "phone,first_name,loyalty_tier\n+14155559201,Old,silver\n";
    expect((await importFile({ name: "a.csv", body: first }, { updateExisting: "false" })).body.created).toBe(
      1,
    );

    const again = "phone,first_name,points\n+14155559201,New,5\n+14155559202,Other,\n";
    const skip = await importFile({ name: "b.csv", body: again }, { updateExisting: "false" });
    expect(skip.body).toMatchObject({ created: 1, updated: 0, skipped: 1, errors: [] });
    expect(await contactByPhone("+14155559201")).toMatchObject({
      first_name: "Old",
      custom_fields: { loyalty_tier: "silver" },
    });

    const update = await importFile({ name: "b.csv", body: again }, { updateExisting: "true" });
    expect(update.body).toMatchObject({ created: 0, updated: 2, skipped: 0 });
    // Columns of the file overwrite, custom fields merge, empty cells keep what was there.
    expect(await contactByPhone("+14155559201")).toMatchObject({
      first_name: "New",
      custom_fields: { loyalty_tier: "silver", points: 5 },
    });
  });

  it("adds every imported contact, new and existing, to the group", async () => {
    const sb = sandbox();
    const group = await call(sb, "POST", "/contact-groups", { body: { name: "Imported" } });
    const existing = await call(sb, "POST", "/contacts", { body: { phone: "+14155559301" } });
    const csv = "phone;first_name\n+14155559301;Exists\n+14155559302;Fresh\n";
    const r = await importFile(
      { name: "semi.csv", body: csv },
      { updateExisting: "false", groupId: String(group.body.id) },
    );
    expect(r.body).toMatchObject({ created: 1, skipped: 1 });
    const members = await call(sb, "GET", "/contacts", { query: { groupId: group.body.id } });
    expect(members.body.data.map((c: Rec) => c.phone).sort()).toEqual(["+14155559301", "+14155559302"]);
    expect(members.body.data.map((c: Rec) => c.id)).toContain(existing.body.id);
  });

  it("imports an xlsx file generated with exceljs", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Contacts");
    ws.addRow(["phone", "first_name", "last_name", "email", "vip", "birthday"]);
    ws.addRow(["+14155559401", "Xena", "Warrior", "xena@example.com", "yes", "1990-01-02"]);
    ws.addRow([14155559402, "Numeric", "Phone", null, "false", null]);
    ws.addRow(["+14155559403", "Bad", "Date", null, null, "02/01/1990"]);
    const buffer = new Uint8Array(await wb.xlsx.writeBuffer());
    const r = await importFile(
      {
        name: "contacts.xlsx",
        body: buffer,
        type: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      },
      { updateExisting: "true" },
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ created: 2, updated: 0 });
    expect(r.body.errors).toEqual([{ row: 4, message: "birthday must be a date written YYYY-MM-DD" }]);
    expect(await contactByPhone("+14155559401")).toMatchObject({
      first_name: "Xena",
      custom_fields: { vip: true, birthday: "1990-01-02" },
    });
    expect((await contactByPhone("+14155559402"))?.custom_fields).toEqual({ vip: false });
  });

  it("refuses a bad form or file with 400 and imports nothing", async () => {
    const sb = sandbox();
    const before = (await call(sb, "GET", "/contacts")).body.meta.total;
    const csv = "phone,first_name\n+14155559501,Never\n";
    const noFlag = await importFile({ name: "c.csv", body: csv }, {});
    expect(noFlag.status).toBe(400);
    expect(noFlag.body.message).toEqual(["updateExisting is required"]);
    const badFlag = await importFile({ name: "c.csv", body: csv }, { updateExisting: "perhaps" });
    expect(badFlag.body.message).toEqual(["updateExisting must be true or false"]);
    const extra = await importFile({ name: "c.csv", body: csv }, { updateExisting: "true", color: "red" });
    expect(extra.body.message).toEqual(["color is not a member this operation accepts"]);
    const noGroup = await importFile(
      { name: "c.csv", body: csv },
      { updateExisting: "true", groupId: "99999" },
    );
    expect(noGroup.body.message).toEqual(["groupId 99999 does not name a group"]);
    const noFile = await importFile(null, { updateExisting: "true" });
    expect(noFile.body.message).toEqual(["file is required: a CSV or xlsx file of contacts"]);
    const badHeader = await importFile(
      { name: "c.csv", body: "mobile,first_name,shoe\n+14155559501,x,y\n" },
      { updateExisting: "true" },
    );
    expect(badHeader.status).toBe(400);
    expect(badHeader.body.message).toEqual(
      expect.arrayContaining([expect.stringMatching(/"mobile" is neither/), "file must have a phone column"]),
    );
    const notMultipart = await call(sb, "POST", "/contacts/import", { body: { updateExisting: true } });
    expect(notMultipart.status).toBe(400);
    const badXlsx = await importFile({ name: "c.xlsx", body: "not a zip" }, { updateExisting: "true" });
    expect(badXlsx.status).toBe(400);
    expect((await call(sb, "GET", "/contacts")).body.meta.total).toBe(before);
    const readOnly = await call(sb, "POST", "/contacts/import", {
      key: sb.readKey,
      body: form({ name: "c.csv", body: csv }, { updateExisting: "true" }),
    });
    expect(readOnly.status).toBe(403);
  });

  it("refuses a file larger than the limit with 413", async () => {
    const big = `phone,first_name\n${"+14155550000,x\n".repeat(40_000)}`;
    const r = await importFile({ name: "big.csv", body: big }, { updateExisting: "true" });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ statusCode: 413, error: "Payload Too Large" });
  });

  it("imports a larger CSV in batches, duplicates inside the file counted once", async () => {
    const rows = ["phone,first_name"];
    for (let i = 0; i < 5000; i++) rows.push(`+1628555${String(i).padStart(4, "0")},Bulk${i}`);
    rows.push("+16285550000,Duplicate");
    const r = await importFile({ name: "bulk.csv", body: rows.join("\n") }, { updateExisting: "false" });
    expect(r.body).toMatchObject({ created: 5000, updated: 0, skipped: 1, errors: [] });
    const found = await call(sandbox(), "GET", "/contacts", { query: { search: "bulk" } });
    expect(found.body.meta.total).toBe(5000);
    expect((await contactByPhone("+16285550000"))?.first_name).toBe("Bulk0");
  });
});
