// Settings are the workspace's (issue 38 §4): no listener, form, step, job or
// runtime reads a per-workspace setting from the deployment's config. The
// environment's values are read in one place, src/workspaces/env-settings.ts
// (envSettings, the defaults a workspace's admin applies in single mode); the
// rest reads the workspace's effective settings. This rule reads every file of
// src/ with TypeScript's parser: a member named after one of these variables
// (`config.AUDIT_CHANNEL`, `process.env.QUIET_HOURS`) or the variable's name
// as a string (`Pick<Config, "REPORTS_TIME_ZONE">`, `config["WORKFLOW_STEPS"]`)
// anywhere else fails. Comments do not count; nor does a setting's `env:`
// name in the settings' table (the words of where a value comes from).
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { SETTINGS } from "../../src/commands/workspace-admin.ts";
import { sourceFiles } from "./rules.ts";

const SRC = join(import.meta.dirname, "../../src");

/** The variables of the per-workspace settings (SETTINGS' `env`). */
const NAMES = new Set(Object.values(SETTINGS).map((s) => s.env));

/** Where the config's per-workspace settings may be named: their definition and the one reader. */
const ALLOWED = new Set(["platform/config.ts", "workspaces/env-settings.ts"]);

/** Each read of a setting's variable in a file: `line: text`. */
function settingReads(fileName: string, text: string): string[] {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (node: ts.Node) =>
    `${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}: ${node.getText(sf)}`;
  const visit = (node: ts.Node) => {
    if (ts.isPropertyAccessExpression(node) && NAMES.has(node.name.text)) found.push(at(node));
    else if (ts.isStringLiteralLike(node) && NAMES.has(node.text)) {
      const parent = node.parent;
      // `env: "AUDIT_CHANNEL"` in the settings' table names where a value comes from: not a read.
      const naming = ts.isPropertyAssignment(parent) && parent.name.getText(sf) === "env";
      if (!naming) found.push(at(parent));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe("settings are the workspace's", () => {
  it("knows the settings' variables", () => {
    expect([...NAMES]).toEqual(
      expect.arrayContaining(["SWITCHBOARD_WRITERS", "AUDIT_CHANNEL", "WORKFLOW_STEPS", "QUIET_HOURS"]),
    );
    expect(NAMES.size).toBeGreaterThanOrEqual(11);
  });

  it("finds a read, and not a comment nor a setting's name", () => {
    expect(settingReads("a.ts", "const z = opts.config.REPORTS_TIME_ZONE;")).toHaveLength(1);
    expect(settingReads("a.ts", 'type C = Pick<Config, "QUIET_HOURS">;')).toHaveLength(1);
    expect(settingReads("a.ts", 'const v = config["AUDIT_CHANNEL"];')).toHaveLength(1);
    expect(settingReads("a.ts", "// AUDIT_CHANNEL in words\nconst x = 1;")).toHaveLength(0);
    expect(settingReads("a.ts", 'const t = { label: "Audit channel", env: "AUDIT_CHANNEL" };')).toHaveLength(
      0,
    );
  });

  it("no file of src/ reads a per-workspace setting from the config but the one place", () => {
    const reads: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const name = relative(SRC, file).split("\\").join("/");
      if (ALLOWED.has(name)) continue;
      for (const read of settingReads(file, readFileSync(file, "utf8"))) reads.push(`src/${name}:${read}`);
    }
    expect(reads, "read the workspace's effective settings instead").toEqual([]);
  });
});
