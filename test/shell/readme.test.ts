// README's shell examples are what the shell prints: each example block
// (marked `<!-- readme-shell: … -->`) is run through the shell, its lines as
// input, and its text compared with what the shell writes. Times, which
// change from run to run, are compared as times.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useHarness } from "../commands/helpers.ts";
import { pipedIo, screen, scriptedIo } from "./helpers.ts";

const ROOT = join(import.meta.dirname, "..", "..");
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  scripts: Record<string, string>;
};

const h = useHarness({ mode: "single" });

/** The lines of the console block after `<!-- readme-shell: kind … -->`. */
function example(kind: string): string[] {
  const at = README.indexOf(`<!-- readme-shell: ${kind} `);
  expect(at, `README has a readme-shell: ${kind} example`).toBeGreaterThan(-1);
  const block = README.slice(at).match(/```console\n([\s\S]*?)```/);
  expect(block).not.toBeNull();
  return block![1]!.replace(/\n$/, "").split("\n");
}

const sameTimes = (text: string) => text.replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/g, "<time>");

describe("README's shell examples", () => {
  it("interactive: the start lines, the prompt, the answers and the y/N question", async () => {
    const lines = example("interactive");
    expect(lines[0]).toBe("$ npm start");
    // npm's banner, then the start line on stderr (src/host/main.ts), then the shell's own output.
    expect(lines.slice(1, 5)).toEqual([
      "",
      `> ${pkg.name}@${pkg.version} start`,
      `> ${pkg.scripts.start}`,
      "",
    ]);
    expect(lines[5]).toMatch(
      /^Switchboard shell on the embedded sandbox API http:\/\/127\.0\.0\.1:\d+\/v1 \(test keys: sb_test_rw_\w+ read\+write, sb_test_ro_\w+ read-only\)\.$/,
    );
    const expected = lines.slice(6);
    const typed = expected.flatMap((l) => {
      const m = l.match(/^(?:sb> |Confirm\? \[y\/N\] )(.*)$/);
      return m ? [m[1]!] : [];
    });
    expect(typed.at(-1)).toMatch(/^(exit|quit)$/);

    const s = scriptedIo(typed);
    const code = await s.run({ core: h().core, interactive: true, color: false });
    expect(code).toBe(0);
    expect(sameTimes(screen(s.text())).replace(/\n$/, "")).toBe(sameTimes(expected.join("\n")));
  });

  it("piped: a file shown with cat, then printf … | npm start --silent -- --yes", async () => {
    const lines = example("piped");
    const dir = mkdtempSync(join(tmpdir(), "sb-readme-"));
    let i = 0;
    // `$ cat <file>` and its lines: the file the example imports.
    while (lines[i]?.startsWith("$ cat ")) {
      const name = lines[i]!.slice("$ cat ".length);
      const content: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith("$ "); i++) content.push(lines[i]!);
      writeFileSync(join(dir, name), `${content.join("\n")}\n`);
    }
    const run = lines[i]!.match(/^\$ printf '(.*)' \| npm start --silent( -- --yes)? 2>\/dev\/null$/);
    expect(run, lines[i]).not.toBeNull();
    const typed = run![1]!.split("\\n").filter(Boolean);
    const expected = lines.slice(i + 1).join("\n");

    // The file names are relative to where the shell runs: here, the temporary folder.
    const inDir = (line: string) =>
      line.replace(/^(\/sb )?import (\S+)/, (_m, sb = "", f: string) => `${sb}import ${join(dir, f)}`);
    const s = pipedIo(typed.map(inDir));
    const code = await s.run({ core: h().core, interactive: false, yes: Boolean(run![2]), color: false });
    expect(code).toBe(0);
    const shown = s.text().split(`${dir}/`).join("").replace(/\n$/, "");
    expect(sameTimes(shown)).toBe(sameTimes(expected));
  });
});
