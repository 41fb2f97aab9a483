// `npm start` (through src/start.js): one composition in either mode
// (composeSwitchboard: many workspaces when SLACK_CLIENT_ID is set, else the
// environment's one), then the front end: the Slack app (HTTP, or Socket Mode
// for one workspace) when Slack is set up, else the shell.
//
// Node's compile cache goes on before anything else is loaded (so the rest is
// imported dynamically below): a later start reuses the compiled code of every
// module, ~15% of a start's CPU (docs/memory.md). src/start.js turns it on
// even before this file, so that a warm start never loads Node's TypeScript
// stripper; run directly (`node src/host/main.ts`, as tests do) it goes on here.
import { enableCompileCache } from "node:module";
import { join } from "node:path";
import type { loadConfig as LoadConfig } from "../platform/config.ts";

enableCompileCache?.();
const { loadConfig } = await import("../platform/config.ts");
const { loadDotEnv, startLine } = await import("./start-line.ts");

async function main(): Promise<number> {
  let config: ReturnType<typeof LoadConfig>;
  let envSource: ReturnType<typeof loadDotEnv>;
  try {
    envSource = loadDotEnv();
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 2;
  }
  const start = startLine(config, envSource);
  const argv = process.argv.slice(2);
  const unknown = argv.filter((a) => a !== "--yes" && a !== "-y");
  if (!config.SLACK_BOT_TOKEN && unknown.length) {
    process.stderr.write(`Unknown argument ${unknown.join(" ")}. Usage: npm start --silent [-- --yes]\n`);
    return 2;
  }
  // The store opens while the rest loads: PGlite reads its files and compiles its
  // WebAssembly on other threads meanwhile (docs/memory.md, "Start-up").
  const { openDb } = await import("../store/db.ts");
  const opening = openDb({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  opening.catch(() => {}); // the composition awaits it and says why it failed
  const { composeSwitchboard } = await import("./app.ts");
  const { createLogger, startPhases, hideSecrets, secretsOfConfig } = await import("../platform/log.ts");
  hideSecrets(...secretsOfConfig(config));
  const { slackMode } = await import("../platform/config.ts");
  // The front end: Slack (many workspaces over HTTP; one workspace over HTTP or Socket Mode), else the shell.
  const inSlack = slackMode(config) === "many" || Boolean(config.SLACK_BOT_TOKEN);
  // The shell: stdout carries the answers, so logs go to stderr, quiet unless asked.
  const logger = inSlack
    ? createLogger(config.LOG_LEVEL)
    : createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : "warn", 2);
  if (inSlack) logger.info(start.fields, start.message);
  // Each phase of the start at debug level (LOG_LEVEL=debug), with its time.
  // performance.now() counts from the process's start, so the first phase includes loading the modules.
  const phase = startPhases(logger, 0);
  phase("modules and config (the store opening meanwhile)");
  // One composition, whatever the mode: the workspaces' source and their runtimes (src/host/compose.ts).
  const composed = await composeSwitchboard(config, { logger, phase, opening });
  const { deployment } = composed;
  if (!inSlack && composed.mode === "single")
    return shell(composed.switchboard, config, envSource, start, argv);

  // One Bolt app over the workspaces, in either mode (src/slack/app.ts): each request's installation found as
  // the deployment's source says ("Add to Slack", or the environment's bot), over HTTP or Socket Mode.
  const { startSlackApp } = await import("../slack/app.ts");
  const slack = await startSlackApp(deployment, config, logger);
  phase(`Slack app (${composed.mode === "many" ? "many workspaces" : slack.mode}): listening`);
  logger.info({ ms: Math.round(performance.now()) }, "Switchboard ready");
  // SIGTERM/SIGINT: stop taking work, finish or hand back what is in flight, close, exit 0.
  // The deployment's background work closes with it.
  const { stopOnSignals } = await import("../slack/shutdown.ts");
  const stop = stopOnSignals({
    slack,
    reports: { stop: async () => {} },
    switchboard: deployment,
    config,
    logger,
  });
  // The deployment's background work, once the app answers (a third of a warm start's time, docs/memory.md);
  // what needs it until then waits for it: schedule changes, a campaign's progress.
  try {
    await deployment.scheduler.start();
    phase("report scheduler (pg-boss), after ready");
    await deployment.heldStarts.start();
    await deployment.laterSends.start();
    // Events out (docs/automations.md): the deliveries' worker, on the queue replicas share.
    await deployment.automations.start();
    phase("automations' deliveries (pg-boss), after ready");
    await deployment.background.start(deployment.workspaces);
    phase("workspaces' inboxes and progress resumed, after ready");
  } catch (err) {
    // As when a start failed before: the process ends (1), here after a graceful stop.
    logger.error(
      { err: (err as Error).message },
      "the report scheduler or the workspaces' work could not start",
    );
    stop("start failed", 1);
  }
  return new Promise<number>(() => {}); // runs until a signal
}

/** The shell: the environment's workspace's core, lines in and answers out, until `exit` or the input's end. */
async function shell(
  switchboard: import("./app.ts").Switchboard,
  config: ReturnType<typeof LoadConfig>,
  envSource: ReturnType<typeof loadDotEnv>,
  start: ReturnType<typeof startLine>,
  argv: string[],
): Promise<number> {
  const { sandbox } = switchboard;
  // On stderr, so piped answers on stdout stay clean.
  process.stderr.write(
    // Why the shell and not Slack, when a .env was read (the README's plain start stays one line).
    (envSource.file ? `${start.message}\n` : "") +
      (sandbox
        ? `Switchboard shell on the embedded sandbox API ${sandbox.url} (test keys: ${sandbox.apiKey} read+write, ${sandbox.readKey} read-only).\n`
        : `Switchboard shell on ${config.MESSAGING_API_URL}.\n`),
  );
  const { runShell } = await import("../shell/index.ts");
  try {
    return await runShell({
      // The workspace's core: each line with its settings as they are now (a change applies to the next one).
      core: switchboard.core,
      input: process.stdin,
      output: process.stdout,
      interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
      yes: argv.includes("--yes") || argv.includes("-y"),
      historyFile: join(config.DATA_DIR, "shell_history"),
      // The workspace's zone as set now (a `settings set tz=` applies to the next answer).
      zone: async () => (await switchboard.core.admin?.settings())?.reportsTimeZone.value,
    });
  } finally {
    // After `exit` the input may still be open (a pipe whose writer goes on): let go of it, or the process stays.
    process.stdin.destroy();
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
