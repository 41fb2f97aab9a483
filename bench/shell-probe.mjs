// Loaded with `node --import` into the shell a bench measures (bench/shell.bench.ts):
// counts the modules it loads, and at exit writes its peak memory, CPU time and
// module counts as one JSON line to the file SHELL_PROBE_OUT names (with
// SHELL_PROBE_URLS=1, every module's URL too: test/shell/lean.test.ts).
import { writeFileSync } from "node:fs";
import { registerHooks } from "node:module";

const seen = new Set();
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    seen.add(resolved.url);
    return resolved;
  },
});
process.on("exit", () => {
  const usage = process.resourceUsage();
  const urls = [...seen];
  writeFileSync(
    process.env.SHELL_PROBE_OUT,
    JSON.stringify({
      peakMb: usage.maxRSS / 1024,
      cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
      modules: urls.length,
      srcModules: urls.filter((u) => u.includes("/src/")).length,
      slackModules: urls.filter((u) => u.includes("/src/slack/")).length,
      ...(process.env.SHELL_PROBE_URLS === "1" ? { urls } : {}),
    }),
  );
});
