// Paths written for people are true of the tree (issue 38 §8): every `src/…`
// path named in the docs (docs/*.md, README.md) and in the comments of src/,
// test/ and bench/ names a file or a folder that exists. A file moved or
// renamed takes the words that name it along.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { commentsOf, srcPathsIn } from "./rules.ts";

const ROOT = resolve(import.meta.dirname, "../..");

/** Code files under a folder of the project: TypeScript and JavaScript. */
function codeFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...codeFiles(p));
    else if (/\.(ts|mts|cts|js|mjs|cjs)$/.test(e.name)) out.push(p);
  }
  return out.sort();
}

/** Each place a `src/…` path is written: the file (relative to the root) and the path. */
function writtenPaths(): Array<{ where: string; path: string }> {
  const found: Array<{ where: string; path: string }> = [];
  const docs = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  for (const doc of docs)
    for (const path of srcPathsIn(readFileSync(join(ROOT, doc), "utf8"))) found.push({ where: doc, path });
  for (const dir of ["src", "test", "bench"])
    for (const file of codeFiles(join(ROOT, dir))) {
      const where = relative(ROOT, file);
      for (const comment of commentsOf(file, readFileSync(file, "utf8")))
        for (const path of srcPathsIn(comment)) found.push({ where, path });
    }
  return found;
}

const written = writtenPaths();

describe("paths written in the docs and the comments", () => {
  it("finds the paths a comment or a doc names, and leaves globs and strings out", () => {
    expect(
      commentsOf(
        "x.ts",
        `// see src/a.ts.\nconst s = "src/in-a-string.ts"; /* src/b/ and src/c-*.ts */\nfunction f() {}\n// src/end.ts`,
      ).flatMap(srcPathsIn),
    ).toEqual(["src/a.ts", "src/b", "src/end.ts"]);
    expect(srcPathsIn("(`src/x/y.ts`), src/<part>/, ../src/z.ts, app/src/w.ts")).toEqual(["src/x/y.ts"]);
    expect(written.length).toBeGreaterThan(100);
  });

  it("every src/… path written in docs/*.md, README.md and the comments of src, test and bench exists", () => {
    const stale = written
      .filter(({ path }) => !existsSync(join(ROOT, path)))
      .map(({ where, path }) => `${where}: ${path}`);
    expect(stale).toEqual([]);
  });
});
