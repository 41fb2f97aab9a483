// `/sb import <path>` in the shell, through the command core: the local file
// is read by the imports service as an upload is (headers mapped, phones
// normalized, rows checked), a preview asks for confirmation, and only the
// normalized CSV reaches the API.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { SHELL, useHarness } from "./helpers.ts";

const h = useHarness();
const dir = mkdtempSync(join(tmpdir(), "sb-shell-import-"));
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const imports = () => h().forwarder.requests.filter((r) => r.startsWith("POST /v1/contacts/import"));

/** Runs the line, checks it asks before importing (and imports nothing yet), then confirms. */
async function confirmed(line: string) {
  const before = imports().length;
  const asked = await h().core.run(line, SHELL);
  expect(asked.confirmation, asked.text).toBeDefined();
  expect(imports().length).toBe(before);
  return h().core.confirm(asked.confirmation!.id, SHELL);
}

describe("/sb import <path> in the shell", () => {
  it("maps an export's headers and repairs its phones, as an upload would be", async () => {
    // Nothing here is what the API takes as is: "Mobile" and "First Name" are
    // not its columns, and the phones are local, with 00, or Excel's float.
    const path = file(
      "Phone export.csv",
      [
        "First Name;Last Name;Mobile;Notes",
        "Ana;Lima;(415) 555-3101;met at the fair",
        "Bo;Ek;00 1 415 555 3102;",
        "Cy;;14155553103.0;",
        "Di;;12;wrong number",
      ].join("\r\n"),
    );
    const before = imports().length;
    const reply = await confirmed(`import "${path}" update=yes`);
    const text = blocksToText(reply.blocks);
    expect(reply.text).toMatch(
      /Import of Phone export\.csv: 4 rows read: 3 created, 0 updated, 0 skipped, 1 failed/,
    );
    expect(text).toMatch(/Phone ← “Mobile” \(C\)/);
    expect(text).toMatch(/First name ← “First Name” \(A\)/);
    expect(text).toMatch(/ignored: “Notes” \(D\)/);
    expect(text).toMatch(/row 5 \(12\): phone 12 is too short/);
    expect(imports().length - before).toBe(1);

    for (const [phone, first] of [
      ["+14155553101", "Ana"],
      ["+14155553102", "Bo"],
      ["+14155553103", "Cy"],
    ]) {
      const found = await h().client.listContacts({ search: phone!.slice(-7), limit: 5 });
      expect(found.items.find((c) => c.phone === phone)?.first_name, phone).toBe(first);
    }
    const audited = (await new AuditLog(h().db, h().workspace).list({ limit: 1000 })).filter(
      (e) => e.operation === "importContacts" && e.via === "shell",
    );
    expect(audited).toHaveLength(1);
  });

  it("reads an xlsx the same way, numbers in the phone column included", async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet("Contacts");
    ws.addRow(["Cell phone", "Given name"]);
    ws.addRow([14155553104, "Ed"]);
    const path = file("crm.xlsx", Buffer.from(await wb.xlsx.writeBuffer()));
    const reply = await confirmed(`import ${path} group=1`);
    expect(reply.text).toMatch(/1 created, 0 updated, 0 skipped, 0 failed; added to group #1/);
    const members = await h().client.listContacts({ groupId: 1, search: "5553104", limit: 5 });
    expect(members.items.map((c) => c.phone)).toEqual(["+14155553104"]);
  });

  it("imports nothing, and sends nothing, when no column holds phones or no row can be imported", async () => {
    const before = imports().length;
    const noPhone = await h().core.run(`import ${file("names.csv", "Name,City\nAna,Lisbon\n")}`, SHELL);
    expect(noPhone.text).toMatch(/no column looks like a phone number.*Nothing was imported/);
    const allBad = await h().core.run(`import ${file("bad.csv", "phone,first_name\n12,A\nabc,B\n")}`, SHELL);
    expect(allBad.text).toMatch(/Nothing imported from bad\.csv: none of its 2 rows can be imported/);
    expect(blocksToText(allBad.blocks)).toMatch(/row 3 \(abc\): phone abc contains letters/);
    const missing = await h().core.run(`import ${join(dir, "nowhere.csv")}`, SHELL);
    expect(missing.text).toMatch(new RegExp(`^No file at ${join(dir, "nowhere.csv")}`));
    expect(missing.text).not.toMatch(/ENOENT/);
    const noGroup = await h().core.run(`import ${file("ok.csv", "phone\n+14155553105\n")} group=9999`, SHELL);
    expect(noGroup.confirmation).toBeUndefined();
    expect(noGroup.text).toMatch(/There is no group #9999.*Nothing was imported/);
    expect(imports().length).toBe(before);
  });

  it("accounts for every row: created + updated + skipped (repeated, existing) + failed = rows read (issue 9)", async () => {
    // Ana exists already; Bo is in the file twice; 12 is no phone.
    await h().core.run("contact add +14155553201 first=Ana", SHELL);
    const path = file(
      "count.csv",
      [
        "phone,first_name",
        "+14155553201,Ana",
        "+14155553202,Bo",
        "+14155553202,Bo again",
        "12,Di",
        "+14155553203,Cy",
      ].join("\n"),
    );
    const reply = await confirmed(`import ${path} update=no`);
    expect(reply.text).toMatch(
      /5 rows read: 2 created, 0 updated, 2 skipped \(1 repeated in the file, 1 already a contact, not updated\), 1 failed/,
    );
    // The skipped rows by number, and why (issue 39).
    const said = blocksToText(reply.blocks);
    expect(said).toMatch(/Skipped[\s\S]*row 4 \(\+14155553202\): same phone as row 3/);
    expect(said).toMatch(/1 row is a contact already, not updated/);
  });

  it("names at most ten skipped rows, then counts the others (issue 39)", async () => {
    const rows = Array.from({ length: 14 }, (_, i) => `+14155553402,Copy ${i}`);
    const path = file("copies.csv", ["phone,first_name", ...rows].join("\n"));
    const reply = await confirmed(`import ${path} update=no`);
    const said = blocksToText(reply.blocks);
    expect(said.match(/same phone as row 2/g)?.length).toBe(10);
    expect(said).toMatch(/… and 3 more repeated in the file/);
  });

  it("counts the valid rows it will send, not contacts it will create; the result says why the others were not created (issue 39)", async () => {
    // Two of the four valid rows are contacts already: the import skips them.
    await h().core.run("contact add +14155553301 first=Ana", SHELL);
    await h().core.run("contact add +14155553302 first=Bo", SHELL);
    const rows = ["Ana Lima", "Bo Ek", "Cy Ro", "Di Sa"].map((name, i) => `${name},+1415555330${i + 1}`);
    const path = file("existing.csv", ["Name,Phone", ...rows].join("\n"));
    const asked = await h().core.run(`import ${path}`, SHELL);
    const preview = blocksToText(asked.blocks);
    expect(asked.text).toMatch(/Import 4 valid rows from existing\.csv\?/);
    expect(preview).not.toMatch(/Will be imported/);
    expect(preview).toMatch(/Valid rows: 4/);
    expect(preview).toMatch(
      /a phone that is already a contact is skipped, not created \(`update=yes` updates it\)/,
    );
    const reply = await h().core.confirm(asked.confirmation!.id, SHELL);
    expect(reply.text).toMatch(
      /4 rows read: 2 created, 0 updated, 2 skipped \(2 already contacts, not updated\), 0 failed/,
    );
  });

  it("writes the error file with the row's name columns, and phones as typed (issue 39)", async () => {
    const path = file(
      "names.csv",
      [
        "First Name;Last Name;Mobile",
        "Ana;Lima;+1 555",
        "=cmd;Ek;12",
        "Cy;Ro;+14155553311",
        "Di;;+44 20 7946 0958x",
      ].join("\r\n"),
    );
    const reply = await confirmed(`import "${path}"`);
    expect(reply.text).toMatch(/Error report: /);
    const report = readFileSync(join(dir, "names-errors.csv"), "utf8");
    const lines = report
      .replace(/^\ufeff/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines[0]).toBe("row,First Name,Last Name,phone,reason");
    // The phone as typed, no leading quote; a name a spreadsheet would run is still neutralized.
    expect(lines[1]).toMatch(/^2,Ana,Lima,\+1 555,phone \+1 555 is too short/);
    expect(lines[2]).toMatch(/^3,'=cmd,Ek,12,/);
    expect(lines[3]).toMatch(/^5,Di,,'\+44 20 7946 0958x,/);
  });
});

itLeavesBUntouched(h);
