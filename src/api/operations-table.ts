// docs/api.md's table of operations, rendered from OPERATIONS so the two
// cannot drift: test/api/docs.test.ts fails when the file differs, and
// `UPDATE_DOCS=1 npx vitest run test/api/docs.test.ts` rewrites it.
import { OPERATIONS, scopeOf } from "./operations.ts";

export const TABLE_START = "<!-- operations:start (generated from src/api/operations.ts) -->";
export const TABLE_END = "<!-- operations:end -->";

export function renderOperationsTable(): string {
  const rows = OPERATIONS.map(
    (op, i) =>
      `| ${i + 1} | ${op.method} | \`${op.path}\` | ${scopeOf(op.method)} | ${op.status} | \`${op.fn}\` | ${op.summary} |`,
  );
  return [
    TABLE_START,
    "| # | Method | Path | Scope | Success | Client function | What it does |",
    "|---|---|---|---|---|---|---|",
    ...rows,
    TABLE_END,
  ].join("\n");
}

/** Replaces the generated block of a document with the current table. */
export function withCurrentTable(doc: string): string {
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error("docs/api.md has no operations block");
  return doc.slice(0, start) + renderOperationsTable() + doc.slice(end + TABLE_END.length);
}
