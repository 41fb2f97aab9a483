// Every listener, form and step is registered through the typed wrapper
// (src/slack/listeners/on.ts, issue 38 §3), which hands it its Reach and
// never Bolt's string-indexed `context`: no file under src/slack/listeners or
// src/slack/forms calls Bolt's registration itself (app.command, .action,
// .view, .event, .function, .shortcut, .options, .message, .step), the
// wrapper and the routes' one Bolt listener per kind (routes.ts, mount) aside.
// What a listener's argument can reach is test/architecture/listener-types.ts
// (compiled with the project).
import { readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SLACK = resolve(import.meta.dirname, "../../src/slack");
const FOLDERS = ["listeners", "forms"];
/** The wrapper, and the routes' mount (one Bolt listener per kind that runs the routes the wrapper filled). */
const ALLOWED = new Set(["listeners/on.ts", "listeners/routes.ts"]);
const BOLT_REGISTRATIONS = new Set([
  "command",
  "action",
  "view",
  "event",
  "function",
  "shortcut",
  "options",
  "message",
  "step",
]);

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
  );
}

/** Where a method is declared: Bolt's App (node_modules/@slack/bolt), or the routes' class (routes.ts). */
function boltsOwn(checker: ts.TypeChecker, callee: ts.Expression): boolean {
  const symbol = checker.getSymbolAtLocation(callee);
  return (symbol?.declarations ?? []).some((d) => {
    const file = d.getSourceFile().fileName;
    return file.includes("/@slack/bolt/") || file.endsWith("src/slack/listeners/routes.ts");
  });
}

/**
 * Calls of a registration method of Bolt's App or of the routes (`app.action(…)`, `routes.view(…)`,
 * `app["command"](…)`), by the method's declaration: a form's own `view` or `refresh.view` is not one.
 */
function registrationCalls(program: ts.Program, sf: ts.SourceFile, rel: string): string[] {
  const checker = program.getTypeChecker();
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isPropertyAccessExpression(callee)
        ? callee.name
        : ts.isElementAccessExpression(callee)
          ? callee.argumentExpression
          : undefined;
      const text = name && (ts.isIdentifier(name) || ts.isStringLiteral(name)) ? name.text : undefined;
      const at = name && ts.isIdentifier(name) ? name : callee;
      if (text && BOLT_REGISTRATIONS.has(text) && boltsOwn(checker, at)) {
        const line = sf.getLineAndCharacterOfPosition(node.getStart()).line + 1;
        found.push(`${rel}:${line} .${text}(…)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The files of `files`, type-checked together as the project does (tsconfig's options). */
function programOf(files: string[]): ts.Program {
  const config = ts.readConfigFile(resolve(SLACK, "../../tsconfig.json"), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config.config, ts.sys, resolve(SLACK, "../.."));
  return ts.createProgram(files, { ...options, noEmit: true });
}

describe("listeners are registered through the typed wrapper only", () => {
  it("no file of src/slack/listeners or src/slack/forms calls Bolt's registration but on.ts (and routes.ts' mount)", () => {
    const files = FOLDERS.flatMap((folder) => filesUnder(join(SLACK, folder)));
    const program = programOf(files);
    const found: string[] = [];
    let seen = 0;
    for (const file of files) {
      const rel = relative(SLACK, file);
      const sf = program.getSourceFile(file);
      if (!sf) throw new Error(`${rel} not in the program`);
      const calls = registrationCalls(program, sf, rel);
      if (ALLOWED.has(rel)) seen += calls.length;
      else found.push(...calls);
    }
    expect(found).toEqual([]);
    // The check sees the registrations there are: the routes' mount (one per kind) and the wrapper's own call.
    expect(seen).toBeGreaterThanOrEqual(4);
  }, 60_000);
});
