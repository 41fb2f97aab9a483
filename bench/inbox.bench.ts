// Inbox benchmark (issue 11, section 6): the reads an inbox costs a minute at
// the default pace (INBOX_POLL_SECONDS 10, so 6 polls), idle and with 100
// conversations active in every poll, side by side with the background share
// of the key's read budget (300 reads a minute × BACKGROUND_READ_SHARE 0.3);
// and the delay from a customer message to its Slack post at the default
// pace, beside the poll interval. Reads are counted by a hook on the client
// (every GET it makes); the Slack post is a function that records the time.
//
//   npx tsx bench/inbox.bench.ts
//   run() from bench/run.ts returns the rows

import type { MessagingClient } from "../src/api/client.ts";
import { ENV_WORKSPACE } from "../src/domain/workspace.ts";
import { configSchema } from "../src/platform/config.ts";
import { InboxPoller } from "../src/slack/features/inbox/io.ts";
import { openDb } from "../src/store/db.ts";
import { migrateStore } from "../src/store/migrations.ts";
import { WorkspaceStores } from "../src/store/workspace-stores.ts";
import { type BenchRow, peakRssMb } from "./run.ts";
import { benchClient, runWhenMain, startBenchSandbox } from "./setup.ts";

const CHANNEL = "C0BENCH";
const ACTIVE = 100;

export async function run(): Promise<BenchRow[]> {
  const defaults = configSchema.parse({});
  const pollSeconds = defaults.INBOX_POLL_SECONDS;
  const pollsAMinute = 60 / pollSeconds;
  const backgroundShare = defaults.API_READ_LIMIT * defaults.BACKGROUND_READ_SHARE;
  // One clock for the sandbox and the poller, moved a poll interval per poll: customer
  // messages are as far apart as they would be at the real pace.
  let t = Date.now();
  const now = () => new Date(t);
  const sandbox = await startBenchSandbox({ now });
  const db = await openDb({});
  let reads = 0;
  const base = await benchClient(sandbox.url, sandbox.apiKey);
  const client = base.withHook(async (req, next) => {
    if (req.method === "GET") reads++;
    return next();
  }) as MessagingClient;
  let posts = 0;
  let onPost: (() => void) | undefined;
  const poller = new InboxPoller({
    stores: new WorkspaceStores(db, ENV_WORKSPACE),
    client,
    post: async () => {
      posts++;
      onPost?.();
      return { ts: `${Date.now() / 1000}.${String(posts).padStart(6, "0")}` };
    },
    update: async () => {},
    pollSeconds,
    now,
  });
  const rows: BenchRow[] = [];
  try {
    await migrateStore(db);
    await poller.store.setInbox(CHANNEL, "all", "bench", new Date());
    await poller.step(); // the first cards

    // Idle: a minute of polls with nothing new.
    reads = 0;
    for (let i = 0; i < pollsAMinute; i++) {
      t += pollSeconds * 1000;
      await poller.step();
    }
    rows.push({
      name: `inbox idle: reads a minute at ${pollSeconds} s a poll (baseline: the background share of the key's reads)`,
      figure: reads,
      unit: "reads/min",
      baseline: backgroundShare,
      peakRssMb: peakRssMb(),
    });

    // 100 conversations, every one with a new customer message before every poll.
    const phones = Array.from({ length: ACTIVE }, (_, i) => `+1415557${String(1000 + i).padStart(4, "0")}`);
    t += pollSeconds * 1000;
    for (const phone of phones) await sandbox.inbound({ phone, text: "Hello" });
    await poller.step(); // their threads
    // One round more: from now on each conversation has a message older than the last poll,
    // so the latest messages a list includes reach back far enough (steady state).
    t += pollSeconds * 1000;
    for (const phone of phones) await sandbox.inbound({ phone, text: "Warm-up" });
    await poller.step();
    reads = 0;
    for (let i = 0; i < pollsAMinute; i++) {
      t += pollSeconds * 1000;
      for (const phone of phones) await sandbox.inbound({ phone, text: `Message ${i}` });
      await poller.step();
    }
    rows.push({
      name: `inbox with ${ACTIVE} active conversations: reads a minute at ${pollSeconds} s a poll (baseline: the background share)`,
      figure: reads,
      unit: "reads/min",
      baseline: backgroundShare,
      peakRssMb: peakRssMb(),
    });

    // Delay at the default pace: the poller on its timer, a customer writes at a
    // moment unrelated to the polls, the time until the post is measured.
    poller.start();
    const delays: number[] = [];
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 1_700 * (i + 1)));
      const posted = new Promise<void>((resolve) => {
        onPost = resolve;
      });
      const at = performance.now();
      t += 1000;
      await sandbox.inbound({ phone: phones[i]!, text: `Timed ${i}` });
      await posted;
      delays.push(performance.now() - at);
    }
    onPost = undefined;
    rows.push({
      name: `inbox: delay from a customer message to its Slack post, mean of ${delays.length} (baseline: the poll interval)`,
      figure: Math.round(delays.reduce((a, b) => a + b, 0) / delays.length),
      unit: "ms",
      baseline: pollSeconds * 1000,
      peakRssMb: peakRssMb(),
    });
  } finally {
    await poller.stop();
    await base.close();
    await db.close();
    await sandbox.close();
  }
  return rows;
}

runWhenMain(import.meta.url, () => run());
