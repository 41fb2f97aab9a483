// Every bench module can be run alone (`node bench/store.bench.ts 1000`) through
// one helper, bench/setup.ts's runWhenMain, instead of its own copy of the
// "started directly?" check and its printing.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const BENCH = join(import.meta.dirname, "../../bench");
const modules = readdirSync(BENCH).filter((f) => f.endsWith(".bench.ts") || f === "run.ts");

describe("bench modules", () => {
  it.each(modules)("%s runs alone through runWhenMain, with no check of its own", (file) => {
    const text = readFileSync(join(BENCH, file), "utf8");
    expect(text).toMatch(/^runWhenMain\(import\.meta\.url, /m);
    expect(text).not.toMatch(/pathToFileURL\(process\.argv\[1\]/);
  });
});
