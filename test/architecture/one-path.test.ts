// One composition path (issue 38 §1): single mode is the registry with one
// installation, so both modes are composed by one function (composeWorkspaces,
// src/host/compose.ts) and differ only in their source of installations.
// `npm start` (src/host/main.ts) composes once and starts one Bolt app with the
// one starter of both modes (startSlackApp), and the tests' stacks start through
// the same builders. Read from the code with
// TypeScript's parser: the calls each file makes.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./rules.ts";

const ROOT = join(import.meta.dirname, "../..");
const SRC = join(ROOT, "src");

const parsed = new Map<string, Array<{ name: string; inside?: string }>>();

/** The names a file calls (`f(…)`, `x.f(…)`, `new F(…)`), with the function each call is in (each file parsed once). */
function callsIn(file: string): Array<{ name: string; inside?: string }> {
  const calls = parsed.get(file) ?? parseCalls(file);
  parsed.set(file, calls);
  return calls;
}

function parseCalls(file: string): Array<{ name: string; inside?: string }> {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out: Array<{ name: string; inside?: string }> = [];
  const visit = (node: ts.Node, inside?: string) => {
    let here = inside;
    if (ts.isFunctionDeclaration(node) && node.name) here = node.name.text;
    if (ts.isCallExpression(node) || ts.isNewExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : undefined;
      if (name) out.push({ name, ...(here ? { inside: here } : {}) });
    }
    ts.forEachChild(node, (child) => visit(child, here));
  };
  visit(sf);
  return out;
}

/** The files of src/ (relative to it) that call `name`. */
function callersOf(name: string): string[] {
  return sourceFiles(SRC)
    .filter((f) => callsIn(f).some((c) => c.name === name))
    .map((f) => relative(SRC, f).split("\\").join("/"));
}

describe("one composition path", () => {
  it("both modes are the one composition: createSwitchboard and createManyWorkspaceSwitchboard call composeWorkspaces", () => {
    const composing = (file: string) =>
      new Set(
        callsIn(join(SRC, file))
          .filter((c) => c.name === "composeWorkspaces")
          .map((c) => c.inside),
      );
    expect([...composing("host/app.ts")]).toContain("createSwitchboard");
    expect([...composing("host/many-workspaces.ts")]).toContain("createManyWorkspaceSwitchboard");
    expect(callersOf("composeWorkspaces").sort()).toEqual(["host/app.ts", "host/many-workspaces.ts"]);
  });

  it("the store is migrated, the registry made and a runtime built in one place each", () => {
    expect(callersOf("migrateStore")).toEqual(["host/compose.ts"]);
    expect(callersOf("WorkspaceRegistry")).toEqual(["host/compose.ts"]);
    // Every workspace's runtime, single mode's too, is the registry's.
    expect(callersOf("buildWorkspace")).toEqual(["workspaces/registry.ts"]);
    // The deployment's background work is made once, for every workspace.
    for (const runner of ["createHeldStarts", "createLaterSends", "createSharedScheduler"])
      expect(callersOf(runner), runner).toEqual(["host/compose.ts"]);
  });

  it("npm start composes once and builds one Bolt app, then picks the front end", () => {
    const calls = callsIn(join(SRC, "host/main.ts")).map((c) => c.name);
    expect(calls.filter((n) => n === "composeSwitchboard")).toHaveLength(1);
    // No second composition, and nothing of a workspace wired by hand.
    for (const name of [
      "createSwitchboard",
      "createManyWorkspaceSwitchboard",
      "composeWorkspaces",
      "buildWorkspace",
      "createReports",
      "createInbox",
      "createHeldStarts",
      "createLaterSends",
    ])
      expect(calls, name).not.toContain(name);
  });

  it("one Slack app starter for both modes: startSlackApp, the only one, called once by npm start", () => {
    // Exported starters of a Bolt app: one, whatever the source of installations.
    const starters = sourceFiles(SRC).flatMap((f) =>
      [...readFileSync(f, "utf8").matchAll(/export (?:async )?function (start\w*SlackApp)\b/g)].map(
        (m) => m[1],
      ),
    );
    expect(starters).toEqual(["startSlackApp"]);
    // Only the starter builds a Bolt app, and npm start starts it once, with no branch on the mode.
    expect(callersOf("createSlackApp")).toEqual(["slack/app.ts"]);
    expect(callsIn(join(SRC, "host/main.ts")).filter((c) => c.name === "startSlackApp")).toHaveLength(1);
  });

  it("the tests' stacks start through the same builders", () => {
    const calls = (file: string) => callsIn(join(ROOT, file)).map((c) => c.name);
    expect(calls("test/helpers/stack.ts")).toContain("createSwitchboard");
    expect(calls("test/helpers/workspaces-stack.ts")).toContain("createManyWorkspaceSwitchboard");
    for (const stack of ["test/helpers/stack.ts", "test/helpers/workspaces-stack.ts"])
      expect(calls(stack), stack).toContain("startSlackApp");
  });
});
