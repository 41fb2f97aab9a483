// One set-up for the report, progress and Home tab tests: the test stack
// (test/helpers/stack.ts) with the fake Slack, one database (PGlite in memory,
// or PostgreSQL with DATABASE_URL) shared by the sandbox (its timer off: tests
// call tick()) and Switchboard, the real core, the reports runtime (scheduler
// on pg-boss when asked) with a hand-moved clock, and the Bolt app on
// 127.0.0.1 with signed requests.
import {
  type ReportsRuntime,
  type ReportsRuntimeOptions,
  startReports,
} from "../../src/slack/features/reports/runtime.ts";
import type { ProxyOptions } from "../helpers/proxy.ts";
import { manualClock } from "../helpers/sandbox.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";

export const ALICE = { id: "U0ALICE", name: "alice", tz: "Europe/Paris" };
export const BOB = { id: "U0BOB", name: "bob", tz: "America/New_York" };

export interface ReportsHarness extends SlackStack {
  runtime: ReportsRuntime;
  clock: ReturnType<typeof manualClock>;
  /** Starts the reports runtime again (a restart of the bot's reports part). */
  restart(opts?: ReportsRuntimeOptions): Promise<ReportsRuntime>;
}

export async function startReportsHarness(
  opts: {
    start?: Date;
    runtime?: ReportsRuntimeOptions;
    /** How long the Home tab reuses the account and running campaigns (default 60 s). */
    homeCacheMs?: number;
    env?: Record<string, string>;
    /** A proxy between Switchboard and the sandbox (`hold` delays chosen requests). */
    proxy?: ProxyOptions;
  } = {},
): Promise<ReportsHarness> {
  const clock = manualClock(opts.start ?? new Date("2025-11-21T10:00:00Z"));
  let runtime: ReportsRuntime | undefined;
  const stack = await startStack({
    // The sandbox's clock is the real one: its records need no hand-moved time.
    sandbox: { campaignTickMs: 0, readLimit: 100_000, writeLimit: 10_000 },
    writers: [ALICE.id],
    // The client's budget as deployed (300 reads, 60 writes a minute): live progress paces its polls by it.
    env: { API_READ_LIMIT: "300", API_WRITE_LIMIT: "60", ...opts.env },
    ...(opts.proxy ? { proxy: opts.proxy } : {}),
    slack: {
      channels: [
        { id: "C0GENERAL", name: "general" },
        { id: "C0OTHERCH", name: "other" },
        { id: "G0SECRET1", name: "secret", is_private: true, is_member: false },
      ],
      users: [ALICE, BOB],
      // The Home tab is the Bolt app's, on the harness's clock.
      home: { clock, cacheMs: opts.homeCacheMs },
      // The reports runtime starts before the Bolt app, which takes its hooks.
      hooks: async ({ switchboard, config, logger }) => {
        switchboard.onClose(async () => {
          await runtime?.stop();
        });
        runtime = await startReports(switchboard, config, logger, {
          clock,
          progressTimer: false,
          ...opts.runtime,
        });
        return { ...runtime.hooks };
      },
    },
  });
  const { switchboard, config, logger, slack } = stack;
  const h: ReportsHarness = {
    ...stack,
    runtime: runtime!,
    clock,
    async restart(more) {
      await runtime?.stop();
      runtime = await startReports(switchboard, config, logger, {
        clock,
        progressTimer: false,
        ...opts.runtime,
        ...more,
      });
      h.runtime = runtime;
      // The Bolt app keeps its hooks object: point it at the new runtime's.
      Object.assign(slack.hooks, runtime.hooks);
      return runtime;
    },
  };
  return h;
}

type Block = {
  type: string;
  text?: { text?: string };
  fields?: Array<{ text?: string }>;
  elements?: Array<{ action_id?: string; value?: string; text?: unknown }>;
  accessory?: { action_id?: string; value?: string };
};

/** Every button (actions elements and accessories) of some blocks. */
export const buttonsOf = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? []).flatMap((b) => [
    ...(b.type === "actions" ? (b.elements ?? []) : []),
    ...(b.accessory?.action_id ? [b.accessory] : []),
  ]);

/** All the text of some blocks, for assertions. */
export const textOf = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? [])
    .flatMap((b) => [
      b.text?.text ?? "",
      ...(b.fields ?? []).map((f) => f.text ?? ""),
      ...(b.type === "context"
        ? (b.elements ?? []).map((e) => String((e as { text?: string }).text ?? ""))
        : []),
    ])
    .join("\n");
