import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { OPERATIONS } from "../../src/api/operations.ts";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import { COMMANDS_DOC, renderCommandsDoc } from "../../src/commands/docs.ts";
import { Registry } from "../../src/commands/registry.ts";
import { tokenize } from "../../src/commands/tokenize.ts";

describe("docs/commands.md and the registry", () => {
  it("every one of the 42 operations is reachable from a command line", () => {
    expect(OPERATIONS).toHaveLength(42);
    const reachable = new Set(ALL_COMMANDS.flatMap((c) => c.operations));
    const missing = OPERATIONS.map((o) => o.fn).filter((fn) => !reachable.has(fn));
    expect(missing).toEqual([]);
  });

  it("docs/commands.md is up to date (regenerate: node --import tsx src/commands/docs.ts)", () => {
    expect(readFileSync(COMMANDS_DOC, "utf8")).toBe(renderCommandsDoc());
  });

  it("every command's example runs as that command and its usage starts with its words", () => {
    const registry = new Registry(ALL_COMMANDS);
    for (const c of ALL_COMMANDS) {
      expect(registry.match(tokenize(c.example))?.spec.id, c.example).toBe(c.id);
      const literal = c.words.filter((w) => !w.startsWith("<")).join(" ");
      expect(
        c.usage.replace(/<[^>]+> /g, "").startsWith(literal) || c.usage.startsWith(c.words[0]!),
        c.usage,
      ).toBe(true);
    }
  });
});
