// `npm start`: the Slack app when SLACK_BOT_TOKEN is set, else the shell.
// Both run on the same composition root (src/app.ts).
import { join } from "node:path";
import { createSwitchboard } from "./app.ts";
import { loadConfig } from "./config.ts";
import { createLogger } from "./log.ts";
import { runShell } from "./shell/index.ts";

async function main(): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const argv = process.argv.slice(2);

  if (config.SLACK_BOT_TOKEN) {
    const logger = createLogger(config.LOG_LEVEL);
    const switchboard = await createSwitchboard(config, { logger });
    // --- Slack front end (src/slack/app.ts) ---
    const { startSlackApp } = await import("./slack/app.ts");
    // Reports: the scheduler on pg-boss (posting a report missed while down), live progress, the Home tab.
    const { startReports } = await import("./slack/reports/runtime.ts");
    const reports = await startReports(switchboard, config, logger);
    // The inbox: customers' conversations polled into Slack threads (docs/inbox.md).
    const { startInbox } = await import("./slack/inbox/runtime.ts");
    const inbox = await startInbox(switchboard, config, logger);
    const slack = await startSlackApp(switchboard, config, logger, { hooks: reports.hooks });
    const stop = async () => {
      await slack.stop().catch(() => {});
      await reports.stop().catch(() => {});
      await inbox.stop().catch(() => {});
      await switchboard.close();
      process.exit(0);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return new Promise<number>(() => {}); // runs until a signal
  }

  // The shell: stdout carries the answers, so logs go to stderr, quiet unless asked.
  const logger = createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : "warn", 2);
  const unknown = argv.filter((a) => a !== "--yes" && a !== "-y");
  if (unknown.length) {
    process.stderr.write(`Unknown argument ${unknown.join(" ")}. Usage: npm start [-- --yes]\n`);
    return 2;
  }
  const switchboard = await createSwitchboard(config, { logger });
  const { sandbox } = switchboard;
  // On stderr, so piped answers on stdout stay clean.
  process.stderr.write(
    sandbox
      ? `Switchboard shell on the embedded sandbox API ${sandbox.url} (test keys: ${sandbox.apiKey} read+write, ${sandbox.readKey} read-only).\n`
      : `Switchboard shell on ${config.MESSAGING_API_URL}.\n`,
  );
  try {
    return await runShell({
      core: switchboard.core,
      input: process.stdin,
      output: process.stdout,
      interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
      yes: argv.includes("--yes") || argv.includes("-y"),
      historyFile: join(config.DATA_DIR, "shell_history"),
    });
  } finally {
    await switchboard.close();
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`Switchboard could not start: ${(err as Error).message}\n`);
    process.exitCode = 1;
  },
);
