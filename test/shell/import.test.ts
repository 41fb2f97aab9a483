// `/sb import <file>` in the shell, driven as a person or a pipe drives it:
// the file goes through the upload's pipeline (headers mapped, phones
// repaired with DEFAULT_COUNTRY), the preview shows the failing rows and asks
// y/N (`--yes` on piped input), then the normalized file reaches
// POST /contacts/import and the error report is written next to the file.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useHarness } from "../commands/helpers.ts";
import { pipedIo, scriptedIo } from "./helpers.ts";

const h = useHarness({ mode: "single" });
const imports = () => h().forwarder.requests.filter((r) => r.startsWith("POST /v1/contacts/import"));

/** A semicolon file as a spreadsheet exports it, with "Phone Number" headers and local numbers. */
function semicolonFile(rows: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), "sb-shell-imp-"));
  const path = join(dir, "Customers.csv");
  writeFileSync(path, ["First Name;Last Name;Phone Number;E-mail", ...rows].join("\r\n"));
  return path;
}

async function pipedShell(lines: string[], yes: boolean): Promise<string> {
  const s = pipedIo(lines);
  expect(await s.run({ core: h().core, interactive: false, yes })).toBe(0);
  return s.text();
}

/** Types each scripted line once the shell has asked for it. */
async function interactiveShell(lines: string[]): Promise<string> {
  const s = scriptedIo(lines);
  expect(await s.run({ core: h().core, interactive: true })).toBe(0);
  return s.text();
}

describe("/sb import <file> in the shell", () => {
  it("piped with --yes: the preview with the failing row, then the import and the error report beside the file", async () => {
    const path = semicolonFile(["Ana;Lima;(415) 555-3201;ana@example.com", "Bo;Ek;415 555 3202;", "Cy;;12;"]);
    const before = imports().length;
    const out = await pipedShell([`/sb import "${path}"`], true);
    expect(out).toMatch(/== Import Customers\.csv\? ==/);
    expect(out).toMatch(/Valid rows: 2\nWill fail: 1/);
    expect(out).toMatch(/Phone ← “Phone Number” \(C\)/);
    expect(out).toMatch(/File: CSV, .*semicolon-separated/);
    expect(out).toMatch(/Rows that will fail\n• row 4 \(12\): phone 12 is too short/);
    expect(out).toMatch(
      /Confirmed \(--yes\)\.\nImport of Customers\.csv: 3 rows read: 2 created, 0 updated, 0 skipped, 1 failed/,
    );
    // The shell asks y/N itself: no buttons, no "Only … can confirm" note.
    expect(out).not.toMatch(/\[Import\]|can confirm/);
    expect(imports().length - before).toBe(1);

    const report = join(path, "..", "Customers-errors.csv");
    expect(out).toContain(`Error report: ${report}`);
    expect(readFileSync(report, "utf8")).toMatch(
      /row,First Name,Last Name,phone,reason\r?\n4,Cy,,12,phone 12 is too short/,
    );
    // DEFAULT_COUNTRY (US) repaired the local numbers.
    for (const [phone, first] of [
      ["+14155553201", "Ana"],
      ["+14155553202", "Bo"],
    ]) {
      const found = await h().client.listContacts({ search: phone!.slice(-7), limit: 5 });
      expect(found.items.find((c) => c.phone === phone)?.first_name, phone).toBe(first);
    }
  });

  it("a phone repeated in the file is told apart from the failing rows, and counted skipped as the result says", async () => {
    const path = semicolonFile([
      "Di;Ro;415 555 3211;",
      "Ed;Su;12;",
      "Di again;Ro;(415) 555-3211;",
      "Fa;Ty;415 555 3212;",
    ]);
    const out = await pipedShell([`/sb import "${path}"`], true);
    expect(out).toMatch(/Valid rows: 2\nWill fail: 1\nRepeated in the file: 1 \(skipped\)/);
    expect(out).toMatch(/Rows that will fail\n• row 3 \(12\): phone 12 is too short/);
    const [preview, result] = out.split("Confirmed (--yes).");
    expect(preview).not.toMatch(/• row 4/);
    // The result names the skipped row and the failed one, each under its own heading.
    expect(result).toMatch(
      /Skipped\n• row 4 \(\(415\) 555-3211\): same phone as row 2\nFailed\n• row 3 \(12\)/,
    );
    expect(out).toMatch(
      /1 row repeats the phone of an earlier row \(row 4: \(415\) 555-3211\): it is skipped/,
    );
    expect(out).toMatch(/4 rows read: 2 created, 0 updated, 1 skipped \(1 repeated in the file\), 1 failed/);
  });

  it("Name beside Surname is the first name: the preview says so, and the contact gets both names", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sb-shell-imp-"));
    const path = join(dir, "People.csv");
    writeFileSync(path, "Phone,Name,Surname\n+14155553231,Ana,Lima\n");
    const out = await pipedShell([`/sb import "${path}"`], true);
    expect(out).toMatch(/First name ← “Name” \(B\), Last name ← “Surname” \(C\)/);
    expect(out).toMatch(
      /⚠ "Name" \(column B\) is read as the first name, since "Surname" \(column C\) holds the last name/,
    );
    const found = await h().client.listContacts({ search: "5553231", limit: 5 });
    expect(found.items.find((c) => c.phone === "+14155553231")).toMatchObject({
      first_name: "Ana",
      last_name: "Lima",
    });
  });

  it("piped without --yes: the preview, then no, with how to confirm; nothing sent, no report", async () => {
    const path = semicolonFile(["Di;;415 555 3203;", "Ed;;12;"]);
    const before = imports().length;
    const out = await pipedShell([`import ${path}`], false);
    expect(out).toMatch(/== Import Customers\.csv\? ==/);
    expect(out).toMatch(/Not confirmed: .*--yes/);
    expect(imports().length).toBe(before);
    expect(existsSync(join(path, "..", "Customers-errors.csv"))).toBe(false);
  });

  it("interactive: N imports nothing, y imports", async () => {
    const path = semicolonFile(["Flo;Ma;415 555 3204;flo@example.com"]);
    const before = imports().length;
    const out = await interactiveShell([
      `import ${path} update=yes`,
      "n",
      `import ${path} update=yes`,
      "y",
      "exit",
    ]);
    expect(out).toMatch(/a phone that is already a contact is updated, not created twice\./);
    expect(out).toMatch(/Cancelled: `\/sb import .*` was not run\./);
    expect(out).toMatch(/Import of Customers\.csv: 1 row read: 1 created, 0 updated, 0 skipped, 0 failed/);
    expect(out).not.toMatch(/Error report/);
    expect(imports().length - before).toBe(1);
  });
});
