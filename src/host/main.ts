// `npm start` (through src/start.js): the Slack app when SLACK_BOT_TOKEN is
// set, else the shell. Both run on the same composition root (src/host/app.ts).
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
  opening.catch(() => {}); // createSwitchboard awaits it and says why it failed
  const { createSwitchboard } = await import("./app.ts");
  const { createLogger, startPhases, hideSecrets, secretsOfConfig } = await import("../platform/log.ts");
  hideSecrets(...secretsOfConfig(config));

  const { slackMode } = await import("../platform/config.ts");
  if (slackMode(config) === "many") {
    // Many workspaces ("Add to Slack", HTTP only): docs/workspaces.md.
    const logger = createLogger(config.LOG_LEVEL);
    logger.info(start.fields, start.message);
    const phase = startPhases(logger, 0);
    const { createManyWorkspaceSwitchboard, workspaceLifecycle } = await import("./app.ts");
    const sb = await createManyWorkspaceSwitchboard(config, {
      logger,
      phase,
      opening,
    });
    const { startManyWorkspaceSlackApp } = await import("../slack/app.ts");
    const slack = await startManyWorkspaceSlackApp(
      {
        ...sb,
        lifecycle: workspaceLifecycle(sb, logger),
      },
      config,
      logger,
    );
    phase("Slack app (many workspaces): listening");
    logger.info({ ms: Math.round(performance.now()) }, "Switchboard ready");
    const { stopOnSignals } = await import("../slack/shutdown.ts");
    // The scheduler and the workspaces' background work close with the switchboard.
    const stop = stopOnSignals({ slack, reports: { stop: async () => {} }, switchboard: sb, config, logger });
    try {
      await sb.scheduler.start();
      phase("report scheduler (pg-boss), after ready");
      await sb.heldStarts.start();
      await sb.laterSends.start();
      await sb.automations.start();
      phase("automations' deliveries (pg-boss), after ready");
      await sb.background.start(sb.workspaces);
      phase("workspaces' inboxes and progress resumed, after ready");
    } catch (err) {
      logger.error(
        { err: (err as Error).message },
        "the report scheduler or the workspaces' work could not start",
      );
      stop("start failed", 1);
    }
    return new Promise<number>(() => {});
  }

  if (config.SLACK_BOT_TOKEN) {
    const logger = createLogger(config.LOG_LEVEL);
    logger.info(start.fields, start.message);
    // Each phase of the start at debug level (LOG_LEVEL=debug), with its time.
    // performance.now() counts from the process's start, so the first phase includes loading the modules.
    const phase = startPhases(logger, 0);
    phase("modules and config (the store opening meanwhile)");
    const switchboard = await createSwitchboard(config, { logger, phase, opening });
    // --- Slack front end (src/slack/app.ts) ---
    const { startSlackApp } = await import("../slack/app.ts");
    const { stopOnSignals } = await import("../slack/shutdown.ts");
    phase("Slack modules");
    // The reports (the scheduler on pg-boss, live progress) and the inbox poller are made now
    // and start once the app answers (a third of a warm start's time, docs/memory.md); what
    // needs them until then waits for them: schedule changes, a campaign's progress. The Home
    // tab is the Slack app's own.
    const { createReports } = await import("../slack/features/reports/runtime.ts");
    const { createInbox } = await import("../slack/features/inbox/runtime.ts");
    const reports = createReports(switchboard, config, logger);
    const inbox = createInbox(switchboard, config, logger);
    const slack = await startSlackApp(switchboard, config, logger, { hooks: { ...reports.hooks } });
    phase("Slack app: token checked, listening");
    logger.info({ ms: Math.round(performance.now()) }, "Switchboard ready");

    // SIGTERM/SIGINT: stop taking work, finish or hand back what is in flight, close, exit 0.
    // A runtime's stop waits for its start under way (a few hundred ms).
    const stop = stopOnSignals({ slack, reports, inbox, switchboard, config, logger });
    try {
      await reports.start();
      phase("report scheduler (pg-boss), after ready");
      await inbox.start();
      phase("inbox poller, after ready");
      // Held starts (docs/campaigns.md): this workspace's, with its core as it is now.
      const { createHeldStarts } = await import("../slack/features/held-starts/runtime.ts");
      const heldStarts = createHeldStarts({
        db: switchboard.db,
        config,
        logger,
        forWorkspace: async (id) =>
          id === switchboard.workspace
            ? {
                core: switchboard.core,
                bridge: switchboard.slack,
                hooks: reports.hooks,
                stores: switchboard.stores,
              }
            : undefined,
      });
      switchboard.onClose(() => heldStarts.stop());
      await heldStarts.start();
      // Messages sent later (docs/automations.md): this workspace's, sent as their writers.
      const { createLaterSends } = await import("../slack/features/later-sends/runtime.ts");
      const laterSends = createLaterSends({
        db: switchboard.db,
        config,
        logger,
        forWorkspace: async (id) =>
          id === switchboard.workspace ? { core: switchboard.core, bridge: switchboard.slack } : undefined,
      });
      switchboard.onClose(() => laterSends.stop());
      await laterSends.start();
      // Events out (docs/automations.md): the deliveries' worker, on the queue replicas share.
      await switchboard.automations.start();
    } catch (err) {
      // As when a start failed before: the process ends (1), here after a graceful stop.
      logger.error(
        { err: (err as Error).message },
        "the report scheduler or the inbox poller could not start",
      );
      stop("start failed", 1);
    }
    return new Promise<number>(() => {}); // runs until a signal
  }

  // The shell: stdout carries the answers, so logs go to stderr, quiet unless asked.
  const logger = createLogger(process.env.LOG_LEVEL ? config.LOG_LEVEL : "warn", 2);
  const switchboard = await createSwitchboard(config, { logger, opening });
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
      // The workspace's core now, at every line: a settings change from the shell applies to the next one.
      core: {
        run: (line, actor) => switchboard.core.run(line, actor),
        confirm: (id, actor) => switchboard.core.confirm(id, actor),
        dismiss: (id, actor) => switchboard.core.dismiss(id, actor),
        may: (actor, scope) => switchboard.core.may(actor, scope),
        channelNames: () => switchboard.core.channelNames(),
        perform: (actor, what, work) => switchboard.core.perform(actor, what, work),
        audit: (actor, entry) => switchboard.core.audit(actor, entry),
        startHeld: (actor, id) => switchboard.core.startHeld(actor, id),
        get admin() {
          return switchboard.core.admin;
        },
      },
      input: process.stdin,
      output: process.stdout,
      interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
      yes: argv.includes("--yes") || argv.includes("-y"),
      historyFile: join(config.DATA_DIR, "shell_history"),
      // The workspace's zone as set now (a `settings set tz=` applies to the next answer).
      zone: async () =>
        (await switchboard.core.admin?.settings())?.reportsTimeZone.value ?? config.REPORTS_TIME_ZONE,
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
