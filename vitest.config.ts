import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A failed test prints what Switchboard logged at warn and above while it ran.
    setupFiles: ["test/setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Four files at a time on the 2-core machine: a test mostly waits (on loopback servers, timers, the
    // store), so two workers left the cores idle. Whole suite with PostgreSQL, same commit, same day, quiet
    // machine (issue 38 §6): 2 workers 554 s, 4 workers 344 s, 6 workers 316 s with a wait timing out under
    // the load, so 4.
    maxWorkers: 4,
    // One module graph per worker, not per file (issue 38 §6): on the 2-core machine the whole suite ran in
    // 563 s instead of 749 s (same commit, same day, every test passing both ways). Tests keep their state in
    // their own stacks and databases; a module-level cache shared by two files is a bug the run then shows.
    isolate: false,
  },
});
