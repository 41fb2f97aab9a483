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
  },
});
