// docs/api.md lists the 42 operations from src/api/operations.ts, and the
// client implements each: neither can drift from the table.
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MessagingClient } from "../../src/api/client.ts";
import { OPERATIONS, type Operation } from "../../src/api/operations.ts";
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

  it("lists 42 distinct operations", () => {
    expect(OPERATIONS).toHaveLength(42);
    expect(new Set(OPERATIONS.map((op) => `${op.method} ${op.path}`)).size).toBe(42);
  });

  it.each(OPERATIONS.map((op) => op.fn))("%s is a function of the client", async (fn) => {
    const client = new MessagingClient({ baseUrl: "http://127.0.0.1:9/v1", apiKey: "k_docs" });
    try {
      expect(typeof (client as unknown as Record<string, unknown>)[fn]).toBe("function");
    } finally {
      await client.close();
    }
  });

  it.each(OPERATIONS as readonly Operation[])("$fn has the arguments its path and schemas call for", (op) => {
    expect(!(op.body && op.query), "a body or a query, not both").toBe(true);
    expect(!op.member || !!op.body, "member names a body member").toBe(true);
    expect(op.method === "GET" ? !op.body && !op.form : !op.query, "GET has a query").toBe(true);
    expect(op.answer !== "page" || op.method === "GET", "pages are read").toBe(true);
  });
});
