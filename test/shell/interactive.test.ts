// The interactive shell in-process, on streams that stand in for a terminal:
// prompts, a y/N confirmation and the history file under DATA_DIR.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runShell } from "../../src/shell/index.ts";
import { useHarness } from "../commands/helpers.ts";

const h = useHarness();

/** Types each scripted line only once the shell has asked for it (as a person would). */
function scripted(lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  let seen = "";
  let asked = 0;
  output.on("data", (d) => {
    seen += String(d);
    const prompts = (seen.match(/sb> |\[y\/N\] /g) ?? []).length;
    while (asked < prompts && asked < lines.length) input.write(`${lines[asked++]}\n`);
  });
  return { input, output, text: () => seen };
}

describe("interactive shell", () => {
  it("runs commands, asks y/N before a delete, and keeps the history", async () => {
    const add = await h().client.createTag({ name: "Temp", color: "#101010" });
    const historyFile = join(mkdtempSync(join(tmpdir(), "sb-hist-")), "shell_history");
    const s = scripted(["tags", `/sb tag delete ${add.id}`, "y", "exit"]);
    const code = await runShell({
      core: h().core,
      input: s.input,
      output: s.output,
      interactive: true,
      historyFile,
    });
    expect(code).toBe(0);
    expect(s.text()).toMatch(/== Tags ==/);
    expect(s.text()).toMatch(/Delete tag #\d+ “Temp”\?/);
    expect(s.text()).toMatch(/Tag #\d+ deleted/);
    await expect(h().client.getTag(add.id!)).rejects.toMatchObject({ kind: "not_found" });
    const history = readFileSync(historyFile, "utf8").split("\n").filter(Boolean);
    expect(history).toEqual(["tags", `/sb tag delete ${add.id}`]);
  });
});
