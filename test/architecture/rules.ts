// The architecture rules of docs/architecture.md, as code: the import graph of
// src/ between its top-level parts (folders, and the files at its top), and
// the SQL found in string literals. Type-only and dynamic imports count.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export interface Edge {
  from: string;
  to: string;
  /** The importing file and the imported file, relative to the root. */
  file: string;
  target: string;
}

export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.(ts|mts|cts)$/.test(e.name) && !e.name.endsWith(".d.ts")) out.push(p);
  }
  return out.sort();
}

/** `commands` for src/commands/core.ts, `app.ts` for src/host/app.ts. */
export function partOf(srcRoot: string, file: string): string {
  return relative(srcRoot, file).split(sep)[0] as string;
}

/** Every relative import of a file: static, type-only, re-exports and import(). */
export function importsOf(text: string): string[] {
  const info = ts.preProcessFile(text, true, true);
  return info.importedFiles.map((f) => f.fileName).filter((n) => n.startsWith("."));
}

export function importEdges(srcRoot: string): Edge[] {
  const edges: Edge[] = [];
  for (const file of sourceFiles(srcRoot)) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      const from = partOf(srcRoot, file);
      const to = partOf(srcRoot, target);
      if (to.startsWith("..")) continue;
      edges.push({ from, to, file: relative(srcRoot, file), target: relative(srcRoot, target) });
    }
  }
  return edges;
}

/** The parts that import each other, directly or not: each cycle as its parts, sorted. */
export function cycles(edges: Array<Pick<Edge, "from" | "to">>): string[][] {
  const next = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    if (!next.has(e.from)) next.set(e.from, new Set());
    next.get(e.from)?.add(e.to);
    if (!next.has(e.to)) next.set(e.to, new Set());
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop() as string;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...next.keys()].sort()) if (!idx.has(v)) visit(v);
  return out;
}

// Lower-case SQL, as the store writes it; UI text ("Select a group from…") starts upper-case.
const SQL =
  /\b(select\s[\s\S]*?\sfrom\s|insert\s+into\s|update\s+[\w."]+\s+set\s|delete\s+from\s|create\s+(table|index|unique\s+index|schema)\s|alter\s+table\s|drop\s+(table|index|schema)\s|on\s+conflict\s)/;

/** String and template literals of a file that hold SQL, with their line numbers. */
export function sqlIn(text: string, fileName = "file.ts"): Array<{ line: number; text: string }> {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const check = (node: ts.Node, literal: string) => {
    if (SQL.test(literal))
      found.push({
        line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1,
        text: literal.slice(0, 80),
      });
  };
  const walk = (node: ts.Node) => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) check(node, node.text);
    else if (ts.isTemplateExpression(node))
      check(node, [node.head.text, ...node.templateSpans.map((s) => ` ? ${s.literal.text}`)].join(""));
    ts.forEachChild(node, walk);
  };
  walk(sf);
  return found;
}

/** The file-level import edges among the files under `dir` (relative to it); imports leaving `dir` are left out. */
export function fileEdges(dir: string): Array<{ from: string; to: string }> {
  const out: Array<{ from: string; to: string }> = [];
  for (const file of sourceFiles(dir)) {
    for (const spec of importsOf(readFileSync(file, "utf8"))) {
      const target = resolve(dirname(file), spec);
      const to = relative(dir, target);
      if (to.startsWith("..")) continue;
      out.push({ from: relative(dir, file), to });
    }
  }
  return out;
}

/**
 * `register…` functions whose first parameter is the app (typed `SlackBolt`
 * or `App…`) and that take more: a second parameter is how a workspace's
 * scope was captured at registration, the same for every request.
 */
export function registrationsWithMore(text: string, fileName = "file.ts"): string[] {
  const found: string[] = [];
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const check = (name: string, params: ts.NodeArray<ts.ParameterDeclaration>) => {
    if (!/^register/.test(name) || params.length < 2) return;
    const first = params[0]?.type?.getText(source) ?? "";
    if (/^(SlackBolt|App\b)/.test(first)) found.push(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionDeclaration(node) && node.name) check(node.name.text, node.parameters);
    if (
      ts.isVariableDeclaration(node) &&
      ts.isIdentifier(node.name) &&
      node.initializer &&
      (ts.isArrowFunction(node.initializer) || ts.isFunctionExpression(node.initializer))
    )
      check(node.name.text, node.initializer.parameters);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Where a workspace scope is made: calls of `workspaceScope(` and casts to `WorkspaceScope`. */
export function scopesMade(text: string): number {
  return (text.match(/\bworkspaceScope\s*\(|\bas\s+WorkspaceScope\b/g) ?? []).length;
}

/** The comments of a TypeScript or JavaScript file, each as written (`//` and `/* … *\/`). */
export function commentsOf(fileName: string, text: string): string[] {
  const file = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const seen = new Map<number, string>();
  const keep = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) seen.set(r.pos, text.slice(r.pos, r.end));
  };
  const visit = (node: ts.Node) => {
    keep(ts.getLeadingCommentRanges(text, node.getFullStart()));
    keep(ts.getTrailingCommentRanges(text, node.getEnd()));
    node.forEachChild(visit);
  };
  keep(ts.getLeadingCommentRanges(text, 0));
  visit(file);
  // Comments before the end of the file (after the last statement) belong to its end token.
  keep(ts.getLeadingCommentRanges(text, file.endOfFileToken.getFullStart()));
  return [...seen.entries()].sort(([a], [b]) => a - b).map(([, c]) => c);
}

/**
 * The paths under src/ a text names: `src/…` not part of a longer path, its
 * trailing punctuation off. A glob or a placeholder (`src/commands/campaign-*.ts`,
 * `src/<part>/`) names no one path, and is left out.
 */
export function srcPathsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w./-])src\/[\w./-]*/g)) {
    const next = text[m.index + m[0].length];
    if (next !== undefined && /[*{<…]/.test(next)) continue;
    out.push(m[0].replace(/[./-]+$/, ""));
  }
  return out;
}
