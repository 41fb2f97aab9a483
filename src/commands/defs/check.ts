// Validates a request body with the API's own schema before any request, and
// answers in the words of the command line (option names, not API members).
import type { z } from "zod";
import { describeIssues } from "../../api/schemas.ts";
import { problemLine } from "../errors.ts";
import { UserError } from "../registry.ts";

export function checkBody<S extends z.ZodType>(
  schema: S,
  body: unknown,
  names: Record<string, string> = {},
): void {
  const parsed = schema.safeParse(body);
  if (parsed.success) return;
  const lines = describeIssues(parsed.error, body).map((p) => problemLine(p, names));
  throw new UserError(lines.length === 1 ? lines[0]!.slice(2) : `\n${lines.join("\n")}`);
}
