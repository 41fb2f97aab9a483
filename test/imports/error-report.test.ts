import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { phoneCell } from "../../src/imports/error-report.ts";
import { errorsCsv, neutralizeCell } from "../../src/imports/index.ts";

describe("errorsCsv", () => {
  it("writes row, phone, reason, and neutralizes cells a spreadsheet would run as formulas", () => {
    const csv = errorsCsv([
      { row: 4, phone: "+14155550123", reason: "phone +14155550123 is already on row 2" },
      { row: 5, phone: '=HYPERLINK("http://evil","x")', reason: "phone contains letters" },
      { row: 6, phone: "-1", message: "@SUM(A1)" },
      { row: 7, phone: "\t=1", reason: 'a, b "quoted"\nnext line' },
      { phone: "415 555 0123", reason: "fine" },
    ]);
    expect(csv.startsWith("\ufeffrow,phone,reason\r\n")).toBe(true);
    const rows = parse(csv, { bom: true }) as string[][];
    expect(rows).toEqual([
      ["row", "phone", "reason"],
      ["4", "+14155550123", "phone +14155550123 is already on row 2"],
      ["5", '\'=HYPERLINK("http://evil","x")', "phone contains letters"],
      ["6", "'-1", "'@SUM(A1)"],
      ["7", "'\t=1", 'a, b "quoted"\nnext line'],
      ["", "415 555 0123", "fine"],
    ]);
  });

  it("leaves other cells as they are", () => {
    expect(neutralizeCell("Ana")).toBe("Ana");
    expect(neutralizeCell("")).toBe("");
    expect(neutralizeCell("a=b")).toBe("a=b");
    expect(errorsCsv([])).toBe("\ufeffrow,phone,reason\r\n");
  });

  it("puts the row's name columns beside it, and writes a phone as typed unless it is more than a phone (issue 39)", () => {
    const csv = errorsCsv(
      [
        { row: 2, names: ["Ana", "Lima"], phone: "+34 600 111 222", reason: "phone is too long" },
        { row: 3, names: ["=1+1", ""], phone: "+cmd|' /C calc'!A0", reason: "contains letters" },
        { row: 4, phone: "(415) 555-0123", message: "refused" },
      ],
      ["First Name", "Last Name"],
    );
    expect(parse(csv, { bom: true })).toEqual([
      ["row", "First Name", "Last Name", "phone", "reason"],
      ["2", "Ana", "Lima", "+34 600 111 222", "phone is too long"],
      ["3", "'=1+1", "", "'+cmd|' /C calc'!A0", "contains letters"],
      ["4", "", "", "(415) 555-0123", "refused"],
    ]);
    expect(phoneCell("+1 (415) 555-0123")).toBe("+1 (415) 555-0123");
    expect(phoneCell("+1 555 SUM(A1)")).toBe("'+1 555 SUM(A1)");
    expect(phoneCell("-1")).toBe("'-1");
    expect(phoneCell("@x")).toBe("'@x");
  });
});
