// The interactive shell in-process, on streams that stand in for a terminal:
// prompts, a y/N confirmation and the history file under DATA_DIR.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useHarness } from "../commands/helpers.ts";
import { scriptedIo } from "./helpers.ts";

const h = useHarness({ mode: "single" });

describe("interactive shell", () => {
  it("runs commands, asks y/N before a delete, and keeps the history", async () => {
    const add = await h().client.createTag({ name: "Temp", color: "#101010" });
    const historyFile = join(mkdtempSync(join(tmpdir(), "sb-hist-")), "shell_history");
    const s = scriptedIo(["tags", `/sb tag delete ${add.id}`, "y", "exit"]);
    const code = await s.run({ core: h().core, interactive: true, historyFile });
    expect(code).toBe(0);
    expect(s.text()).toMatch(/== Tags ==/);
    expect(s.text()).toMatch(/Delete tag #\d+ “Temp”\?/);
    expect(s.text()).toMatch(/Tag .+ deleted\nTag #\d+/);
    await expect(h().client.getTag(add.id!)).rejects.toMatchObject({ kind: "not_found" });
    const history = readFileSync(historyFile, "utf8").split("\n").filter(Boolean);
    expect(history).toEqual(["tags", `/sb tag delete ${add.id}`]);
  });
});
