// docs/api.md lists the 42 operations from src/api/operations.ts, and the
// client implements each: neither can drift from the table.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { OPERATIONS } from "../../src/api/operations.ts";
import {
  renderOperationsTable,
  TABLE_END,
  TABLE_START,
  withCurrentTable,
} from "../../src/api/operations-table.ts";

const DOC = new URL("../../docs/api.md", import.meta.url);

describe("docs/api.md", () => {
  it("holds the table of operations generated from OPERATIONS", () => {
    const doc = readFileSync(DOC, "utf8");
    if (process.env.UPDATE_DOCS === "1") writeFileSync(DOC, withCurrentTable(doc));
    const current = readFileSync(DOC, "utf8");
    const block = current.slice(current.indexOf(TABLE_START), current.indexOf(TABLE_END) + TABLE_END.length);
    expect(block, "run UPDATE_DOCS=1 npx vitest run test/api/docs.test.ts").toBe(renderOperationsTable());
  });

  it("lists 42 distinct operations, each a function of the client", () => {
    expect(OPERATIONS).toHaveLength(42);
    expect(new Set(OPERATIONS.map((op) => `${op.method} ${op.path}`)).size).toBe(42);
    for (const op of OPERATIONS) {
      expect(typeof (MessagingClient.prototype as unknown as Record<string, unknown>)[op.fn], op.fn).toBe(
        "function",
      );
    }
  });
});
