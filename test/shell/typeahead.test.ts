// The interactive shell never drops a line: lines pasted at once, or typed
// while an answer is still on its way, all run, in order. A line typed ahead
// of a y/N question is not its answer: it runs once the question is answered.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useHarness } from "../commands/helpers.ts";
import { screen, terminalIo } from "./helpers.ts";

const h = useHarness({ mode: "single" });

/** Where each pattern first shows, in the order given (each after the one before). */
function inOrder(text: string, patterns: RegExp[]): number[] {
  let from = 0;
  return patterns.map((p) => {
    const at = text.slice(from).search(p);
    expect(at, `${p} after position ${from} in:\n${text}`).toBeGreaterThan(-1);
    from += at + 1;
    return from - 1;
  });
}

describe("interactive shell: typed ahead and pasted lines", () => {
  it("runs three lines pasted in one write: three answers, in order", async () => {
    const s = terminalIo();
    const done = s.run({ core: h().core, interactive: true, color: false });
    await s.until(/sb> $/);
    s.type("tags\ngroups\nme\n");
    await s.until(/== Account ==[\s\S]*sb> $/, "the third answer, then the prompt");
    s.type("exit\n");
    expect(await done).toBe(0);
    const text = screen(s.text());
    inOrder(text, [/== Tags ==/, /sb> groups\n== Groups ==/, /sb> me\n== Account ==/]);
    expect(text.match(/== (Tags|Groups|Account) ==/g)).toEqual([
      "== Tags ==",
      "== Groups ==",
      "== Account ==",
    ]);
  });

  it("runs a line typed while the answer before it is still coming", async () => {
    const s = terminalIo();
    const done = s.run({ core: h().core, interactive: true, color: false });
    await s.until(/sb> $/);
    // Two writes: the second line arrives while `tags` waits on the API.
    s.type("tags\n");
    s.type("groups\n");
    await s.until(/== Groups ==[\s\S]*sb> $/, "the second answer, then the prompt");
    s.type("exit\n");
    expect(await done).toBe(0);
    inOrder(screen(s.text()), [/== Tags ==/, /sb> groups\n== Groups ==/]);
  });

  it("asks y/N with lines typed ahead, takes the next line as the answer, then runs them", async () => {
    const tag = await h().client.createTag({ name: "Typed ahead", color: "#202020" });
    const historyFile = join(mkdtempSync(join(tmpdir(), "sb-hist-")), "shell_history");
    const s = terminalIo();
    const done = s.run({ core: h().core, interactive: true, color: false, historyFile });
    await s.until(/sb> $/);
    s.type(`tag delete ${tag.id}\ntags\ngroups\n`);
    await s.until(/Confirm\? \[y\/N\] $/, "the y/N question");
    s.type("y\n");
    await s.until(/== Groups ==[\s\S]*sb> $/, "the typed-ahead lines' answers, then the prompt");
    s.type("exit\n");
    expect(await done).toBe(0);
    const text = screen(s.text());
    const [, , tags] = inOrder(text, [
      /Delete tag #\d+ “Typed ahead”\?/,
      /Confirm\? \[y\/N\] y\nTag Typed ahead deleted/,
      /sb> tags\n== Tags ==/,
      /sb> groups\n== Groups ==/,
    ]);
    expect(text).not.toMatch(/Cancelled/);
    expect(text.slice(tags!)).not.toMatch(/Typed ahead/);
    await expect(h().client.getTag(tag.id!)).rejects.toMatchObject({ kind: "not_found" });
    // The answer is not a command: the history has the three commands only.
    const history = readFileSync(historyFile, "utf8").split("\n").filter(Boolean);
    expect(history).toEqual([`tag delete ${tag.id}`, "tags", "groups"]);
  });

  it("runs the lines pasted before the input ends", async () => {
    const s = terminalIo();
    const done = s.run({ core: h().core, interactive: true, color: false });
    await s.until(/sb> $/);
    s.type("tags\ngroups\n");
    s.input.end();
    expect(await done).toBe(0);
    inOrder(screen(s.text()), [/== Tags ==/, /sb> groups\n== Groups ==/]);
  });
});
