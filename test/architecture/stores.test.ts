// A workspace's stores come from its one WorkspaceStores (issue 38 §2): no
// `new <a workspace's store>(…)` in src outside src/store and the runtime
// builder (src/workspaces/runtime.ts), but where the line, or the line above,
// gives the reason in a `// stores: <reason>` comment (a runner that works
// across workspaces, say). The store classes are read from src/store: every
// class whose constructor takes a workspace, or that extends PerWorkspace.
import { readFileSync } from "node:fs";
import { relative, resolve, sep } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./rules.ts";

const SRC = resolve(import.meta.dirname, "../../src");

/** Where stores are made by design: the stores themselves and the runtime builder. */
const MAKERS = ["store/", "workspaces/runtime.ts"];

const parse = (file: string, text: string) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

/** The classes of a file whose constructor takes a workspace (a parameter `workspace`, or of type WorkspaceId). */
function workspaceClassesIn(file: string, text: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isClassDeclaration(node) && node.name) {
      const ctor = node.members.find(ts.isConstructorDeclaration);
      const takes = ctor?.parameters.some(
        (p) =>
          (ts.isIdentifier(p.name) && p.name.text === "workspace") ||
          (p.type !== undefined && /\bWorkspaceId\b/.test(p.type.getText())),
      );
      // A store of one workspace may take it through its base class (src/store/per-workspace.ts).
      const perWorkspace = node.heritageClauses?.some((h) =>
        h.types.some((t) => t.expression.getText() === "PerWorkspace"),
      );
      if (takes || perWorkspace) found.push(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file, text));
  return found;
}

interface Made {
  line: number;
  store: string;
  /** The `// stores:` reason on the line or the line above, when there is one. */
  reason?: string;
}

/** Every `new X(…)` (or `new X<T>(…)`) of one of `classes` in a file, with its reason when given. */
function storesMadeIn(file: string, text: string, classes: Set<string>): Made[] {
  const lines = text.split("\n");
  const reasonOn = (i: number) => /\/\/\s*stores:\s*(\S.*)$/.exec(lines[i] ?? "")?.[1]?.trim();
  const out: Made[] = [];
  const source = parse(file, text);
  // A class of src/store is imported from it: a class of the same name elsewhere (the listeners' Routes) is not.
  const fromStore = new Set<string>();
  for (const st of source.statements)
    if (
      ts.isImportDeclaration(st) &&
      ts.isStringLiteral(st.moduleSpecifier) &&
      /(^|\/)store\//.test(st.moduleSpecifier.text) &&
      st.importClause?.namedBindings &&
      ts.isNamedImports(st.importClause.namedBindings)
    )
      for (const e of st.importClause.namedBindings.elements) fromStore.add(e.name.text);
  const visit = (node: ts.Node) => {
    if (
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      classes.has(node.expression.text) &&
      fromStore.has(node.expression.text)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.expression.getStart()).line;
      const reason = reasonOn(line) ?? reasonOn(line - 1);
      out.push({ line: line + 1, store: node.expression.text, ...(reason ? { reason } : {}) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

const files = sourceFiles(SRC).map((f) => ({
  path: relative(SRC, f).split(sep).join("/"),
  text: readFileSync(f, "utf8"),
}));
const STORE_CLASSES = new Set(
  files.filter((f) => f.path.startsWith("store/")).flatMap((f) => workspaceClassesIn(f.path, f.text)),
);
const outside = files.filter((f) => !MAKERS.some((m) => f.path.startsWith(m)));
const made = outside.flatMap((f) =>
  storesMadeIn(f.path, f.text, STORE_CLASSES).map((m) => ({ ...m, file: f.path })),
);

describe("a workspace's stores", () => {
  it("reads the workspace store classes from src/store", () => {
    for (const c of [
      "WorkspaceStores",
      "InboxStore",
      "Timers",
      "AuditLog",
      "ReportStore",
      "UndeliveredOutcomes",
    ])
      expect(STORE_CLASSES, c).toContain(c);
    // The deployment's stores, of no one workspace, are not among them.
    for (const c of ["Installations", "WorkspaceSettings", "RateBudgetStore", "LiveReplicas", "SeenEvents"])
      expect(STORE_CLASSES, c).not.toContain(c);
  });

  it("sees a store made, and its reason", () => {
    const classes = new Set(["InboxStore", "Timers"]);
    const text = [
      'import { InboxStore } from "../store/inbox.ts";',
      'import { Timers } from "../../store/timers.ts";',
      "const a = new InboxStore(db, ws);",
      "// stores: a runner of every workspace",
      "const b = new Timers<P>(\n  db,\n  ws,\n  kind,\n);",
      "const c = new Other(db, ws);",
    ].join("\n");
    expect(storesMadeIn("x.ts", text, classes)).toEqual([
      { line: 3, store: "InboxStore" },
      { line: 5, store: "Timers", reason: "a runner of every workspace" },
    ]);
  });

  it("no store of a workspace is made outside src/store and the runtime builder without a reason", () => {
    const unexplained = made.filter((m) => !m.reason).map((m) => `src/${m.file}:${m.line} new ${m.store}(…)`);
    expect(unexplained, "take it from the workspace's WorkspaceStores, or say why in `// stores: …`").toEqual(
      [],
    );
  });
});

describe("a store's database", () => {
  it("is read with dbOf in src/store only: a holder of a store reaches no database", () => {
    const readers = files
      .filter((f) => /\bdbOf\b/.test(f.text))
      .map((f) => f.path)
      .filter((path) => !path.startsWith("store/"));
    expect(readers).toEqual([]);
  });
});
