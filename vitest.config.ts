import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A failed test prints what Switchboard logged at warn and above while it ran.
    setupFiles: ["test/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // PGlite instances and loopback servers are cheap but not free on 2 cores.
    maxWorkers: 2,
    // One module graph per worker, not per file (issue 38 §6): on the 2-core machine the whole suite ran in
    // 563 s instead of 749 s (same commit, same day, every test passing both ways). Tests keep their state in
    // their own stacks and databases; a module-level cache shared by two files is a bug the run then shows.
    isolate: false,
  },
});
