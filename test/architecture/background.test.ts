// Background work names its power as a listener does (issue 38 §3): a
// workspace's job is given that workspace's reach (src/workspaces/work.ts), no
// database. The runners that work across workspaces by nature (the held
// starts' due scan, the later sends, the report scheduler, the purge) hold the
// database, each saying why in a `// db: <reason>` comment on the member or the
// line above, which this rule reads: a background runtime's member typed `Db`
// without one fails, naming its line. What a job's argument can reach is also
// typed in test/architecture/listener-types.ts.
import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { sourceFiles } from "./rules.ts";

const SRC = join(import.meta.dirname, "../../src");

/** The background runtimes: each feature's runtime, and a workspace's background work. */
const isBackground = (name: string): boolean =>
  /^slack\/features\/[^/]+\/runtime\.ts$/.test(name) || /^workspaces\/(?:background|work)\.ts$/.test(name);

/** A member (or option) holding the database: `db: Db`, `db?: Db`. */
const DB_MEMBER = /^\s*(?:readonly\s+)?\w+\??:\s*Db\s*[;,]/;
const REASON = /\/\/\s*db:\s*\S/;

function unexplained(name: string, text: string): string[] {
  const lines = text.split("\n");
  return lines.flatMap((line, i) =>
    DB_MEMBER.test(line) && !REASON.test(line) && !REASON.test(lines[i - 1] ?? "")
      ? [`src/${name}:${i + 1}: ${line.trim()}`]
      : [],
  );
}

describe("background work holds the database only with a reason", () => {
  it("finds a member typed Db without its reason, and leaves one with it", () => {
    expect(unexplained("workspaces/background.ts", "export interface O {\n  db: Db;\n}")).toHaveLength(1);
    expect(unexplained("x.ts", "  // db: the purge works across workspaces\n  db: Db;")).toEqual([]);
    expect(unexplained("x.ts", "  stores: WorkspaceStores;")).toEqual([]);
  });

  it("every background runtime's database is a cross-workspace runner's, with its `// db:` reason", () => {
    const files = sourceFiles(SRC)
      .map((file) => ({ file, name: relative(SRC, file).split("\\").join("/") }))
      .filter(({ name }) => isBackground(name));
    expect(files.length).toBeGreaterThan(4);
    const stray = files.flatMap(({ file, name }) => unexplained(name, readFileSync(file, "utf8")));
    expect(
      stray,
      "give the job its workspace's reach (workspaces/work.ts), or say why in `// db: …`",
    ).toEqual([]);
  });
});
