// A zod error as problems in plain words, one per field (what the client, the sandbox and the core say).
import type { z } from "zod";

export interface FieldProblem {
  /** Dotted path of the member, for example `template.name` or `buttons.2.text`. */
  field: string;
  /** The rule, in plain words. */
  rule: string;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = input;
  for (const key of path) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

/**
 * Turns a zod error into one problem per field, each naming the field and the
 * rule. Pass the input that was parsed so a missing member reads "is required".
 */
export function describeIssues(error: z.ZodError, input?: unknown): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      const base = issue.path.join(".");
      for (const key of issue.keys) {
        problems.push({
          field: base ? `${base}.${key}` : key,
          rule: "is not a member this operation accepts",
        });
      }
      continue;
    }
    if (issue.code === "invalid_key") {
      problems.push({
        field: issue.path.join("."),
        rule: `is not a valid key: ${issue.issues[0]?.message ?? issue.message}`,
      });
      continue;
    }
    let rule = issue.message;
    if (issue.code === "invalid_type" && input !== undefined && valueAt(input, issue.path) === undefined) {
      rule = "is required";
    }
    problems.push({ field: issue.path.join(".") || "(body)", rule });
  }
  return problems;
}

export function formatProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field} ${p.rule}`).join("; ");
}
