import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
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
      ["4", "'+14155550123", "phone +14155550123 is already on row 2"],
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
});
