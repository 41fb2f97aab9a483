// One bot process for the two-process test (scheduler.test.ts): its own
// connection pool and pg-boss on the PostgreSQL database given, a clock fixed
// at the given time, and a post that prints `POSTED <channel>` on stdout.
// It catches up, runs the slot, waits until the slot is settled, and exits.
//
//   tsx test/reports/scheduler-process.ts <databaseUrl> <apiUrl> <apiKey> <now ISO> <scheduleId> <slot ISO> <name>

import { MessagingClient } from "../../src/api/client.ts";
import { RateLimiter } from "../../src/api/rate-limit.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { ReportScheduler } from "../../src/reports/scheduler.ts";
import { createBoss } from "../../src/store/boss.ts";
import { openDb } from "../../src/store/db.ts";
import { eventually } from "../helpers/eventually.ts";

const [databaseUrl, apiUrl, apiKey, nowIso, scheduleId, slotIso, name] = process.argv.slice(2) as string[];
const now = new Date(nowIso as string);
const slot = new Date(slotIso as string);
const db = await openDb({ databaseUrl });
const boss = await createBoss(db, { onError: () => {} });
const scheduler = new ReportScheduler({
  workspace: ENV_WORKSPACE,
  db,
  boss,
  client: new MessagingClient({
    baseUrl: apiUrl as string,
    apiKey: apiKey as string,
    limiter: new RateLimiter({ readPerMinute: 100_000, backgroundReadShare: 1 }),
  }),
  post: async (channel) => {
    process.stdout.write(`POSTED ${channel} by ${name}\n`);
    return { ref: `${name}.1` };
  },
  clock: { now: () => now },
  workerId: name,
  chart: false,
  pollingIntervalSeconds: 0.5,
  retry: { limit: 2, delaySeconds: 1, backoff: false },
});
await scheduler.start(); // includes the catch-up: both processes queue the slot
const outcome = await scheduler
  .runSlot(Number(scheduleId), slot)
  .catch((err) => ({ kind: "error", error: String(err) }));
process.stdout.write(`OUTCOME ${JSON.stringify(outcome)}\n`);
await eventually(
  async () => {
    const run = await scheduler.store.getRun(Number(scheduleId), slot);
    return run && run.state !== "claimed" && run.state !== "posting";
  },
  "the run to end",
  { timeoutMs: 60_000, intervalMs: 100 },
);
// Let this process's worker finish the job it may hold.
await scheduler.stop();
await boss.stop({ graceful: true, timeout: 10_000 });
await db.close();
