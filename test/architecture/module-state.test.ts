// Module-level state has an owner (issue 38 §3): a Map, Set, WeakMap or
// WeakSet made at the top of a module of src, or a module-level `let`/`var`,
// says who owns it in a `// state: <owner or reason>` comment above its
// declaration (or on its line). A cache shared by the process whose keys mix
// workspaces belongs to the workspace (its runtime, its stores) or is keyed by
// it; a WeakMap keyed by its owner object is owned; a thing of the deployment
// (the HTTP pools by origin, the API budget by key) says so. Exempt: a lookup
// table, a Map or Set built from an array literal and never changed after
// (no `.add`/`.set`/`.delete`/`.clear` on it in its module).
import { readFileSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./rules.ts";

const SRC = resolve(import.meta.dirname, "../../src");
const COLLECTIONS = new Set(["Map", "Set", "WeakMap", "WeakSet"]);
const MUTATORS = new Set(["add", "set", "delete", "clear"]);

interface State {
  line: number;
  name: string;
  /** `let`, `var`, or the collection made (`new Map`). */
  kind: string;
  /** The `// state:` comment's text, when there is one. */
  owner?: string;
}

/** The names a module changes by a call of a collection's mutator (`NAME.add(…)`, `NAME.set(…)`…). */
function mutatedIn(source: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ts.isIdentifier(node.expression.expression) &&
      MUTATORS.has(node.expression.name.text)
    )
      names.add(node.expression.expression.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

/** The `// state:` comment above a statement (among its leading comments) or on its first line. */
function ownerOf(source: ts.SourceFile, statement: ts.Statement): string | undefined {
  const text = source.getFullText();
  const ranges = ts.getLeadingCommentRanges(text, statement.getFullStart()) ?? [];
  const start = statement.getStart(source);
  const lineEnd = text.indexOf("\n", start);
  const sameLine = ts.getTrailingCommentRanges(text, lineEnd === -1 ? text.length : lineEnd) ?? [];
  const firstLine = text.slice(start, lineEnd === -1 ? undefined : lineEnd);
  const comments = [
    ...ranges.map((r) => text.slice(r.pos, r.end)),
    ...sameLine.map((r) => text.slice(r.pos, r.end)),
    /\/\/.*$/.exec(firstLine)?.[0] ?? "",
  ];
  for (const c of comments) {
    const m = /\/\/\s*state:\s*(\S.*)$/m.exec(c);
    if (m?.[1]) return m[1].trim();
  }
  return undefined;
}

/** A module's top-level state: its `let`/`var` and the collections it makes, each with its owner if said. */
function moduleStateIn(file: string, text: string): State[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const mutated = mutatedIn(source);
  const out: State[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    const keyword = (list.flags & ts.NodeFlags.Let) !== 0 ? "let" : "var";
    for (const d of list.declarations) {
      const name = d.name.getText(source);
      let kind: string | undefined;
      if (!isConst) kind = keyword;
      else {
        let init = d.initializer;
        while (
          init &&
          (ts.isAsExpression(init) || ts.isSatisfiesExpression(init) || ts.isParenthesizedExpression(init))
        )
          init = init.expression;
        if (init && ts.isNewExpression(init) && ts.isIdentifier(init.expression)) {
          const made = init.expression.text;
          const literal =
            init.arguments?.length === 1 && ts.isArrayLiteralExpression(init.arguments[0] as ts.Node);
          const table = (made === "Map" || made === "Set") && literal && !mutated.has(name);
          if (COLLECTIONS.has(made) && !table) kind = `new ${made}`;
        }
      }
      if (!kind) continue;
      const line = source.getLineAndCharacterOfPosition(d.getStart(source)).line + 1;
      const owner = ownerOf(source, statement);
      out.push({ line, name, kind, ...(owner ? { owner } : {}) });
    }
  }
  return out;
}

const states = sourceFiles(SRC).flatMap((f) => {
  const path = relative(SRC, f).split(sep).join("/");
  return moduleStateIn(path, readFileSync(f, "utf8")).map((s) => ({ ...s, file: path }));
});

describe("module-level state", () => {
  it("sees a module's state, its owner, and lets a lookup table be", () => {
    const text = [
      "const TABLE = new Set(['a', 'b']);",
      "const GROWN = new Map([['a', 1]]);",
      "GROWN.set('b', 2);",
      "// state: the process's (a reason)",
      "const pools = new Map<string, number>();",
      "const seen = new WeakMap<object, number>(); // state: keyed by its owner",
      "let count = 0;",
      "export const cache = new Set<string>();",
      "const big = 1;",
      "function f() { const inner = new Map(); let x = 1; return [inner, x]; }",
    ].join("\n");
    expect(moduleStateIn("x.ts", text)).toEqual([
      { line: 2, name: "GROWN", kind: "new Map" },
      { line: 5, name: "pools", kind: "new Map", owner: "the process's (a reason)" },
      { line: 6, name: "seen", kind: "new WeakMap", owner: "keyed by its owner" },
      { line: 7, name: "count", kind: "let" },
      { line: 8, name: "cache", kind: "new Set" },
    ]);
  });

  it("finds the state of src (the rule reads something)", () => {
    const names = states.map((s) => `${s.file}:${s.name}`);
    for (const known of ["api/http.ts:pools", "api/rate-limit.ts:registry", "store/lock.ts:held"])
      expect(names).toContain(known);
  });

  it("every module-level Map, Set, WeakMap, WeakSet and let of src says its owner in `// state:`", () => {
    const unowned = states.filter((s) => !s.owner).map((s) => `src/${s.file}:${s.line} ${s.kind} ${s.name}`);
    expect(
      unowned,
      "move it to its owner (the workspace's runtime or stores, the deployment's services), key it by its owner, or say why it is the process's in `// state: …`",
    ).toEqual([]);
  });
});
