// The desk report on a schedule (issue 29 §5): `/sb report inbox every mon
// at 09:00` is a target of the report scheduler like a campaign's, posted
// once a slot (the run claimed in the store), its figures from the store
// alone: the API client here fails any call, and none is made.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessagingApi } from "../../src/api/types.ts";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import type { ReportMessage } from "../../src/reports/render.ts";
import { parseScheduleArgs } from "../../src/reports/schedule.ts";
import { ReportScheduler } from "../../src/reports/scheduler.ts";
import { createBoss } from "../../src/store/boss.ts";
import { InboxStore } from "../../src/store/inbox.ts";
import { migrateStore } from "../../src/store/migrations.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";
import { manualClock } from "../helpers/sandbox.ts";

const CH = "C0DESK";
let db: TestDb;
let scheduler: ReportScheduler;
let stopBoss: () => Promise<void>;
const posted: Array<{ channel: string; message: ReportMessage }> = [];
let apiCalls = 0;
// Monday 7 Dec 2026, 09:00 UTC: the slot; the week before is the report's period.
const clock = manualClock(new Date("2026-12-07T09:00:00Z"));

beforeAll(async () => {
  db = await openTestDb();
  await migrateStore(db);
  const boss = await createBoss(db, { onError: () => {} });
  const client = new Proxy({} as MessagingApi, {
    get: () => () => {
      apiCalls++;
      throw new Error("no API call expected");
    },
  });
  scheduler = new ReportScheduler({
    workspace: ENV_WORKSPACE,
    db,
    boss,
    client,
    post: async (channel, message) => {
      posted.push({ channel, message });
      return { ref: `${posted.length}.0` };
    },
    clock,
    workerId: "desk",
    chart: false,
  });
  await scheduler.start();
  stopBoss = async () => {
    await scheduler.stop();
    await boss.stop({ graceful: false });
  };
}, 120_000);

afterAll(async () => {
  await stopBoss?.();
  await db?.close();
});

describe("the desk report on a schedule", { timeout: 60_000 }, () => {
  it("posts the inbox's week once a slot, from the store, without an API call", async () => {
    const store = new InboxStore(db, ENV_WORKSPACE);
    await store.setInbox(CH, "all", "U0ANA", new Date("2026-11-01T00:00:00Z"));
    const { targets } = await store.clocks.setTargets(
      CH,
      { firstSecs: 900, nextSecs: null, here: false },
      "U0ANA",
      new Date("2026-11-01T00:00:00Z"),
    );
    await store.ensureThread(CH, 1, new Date("2026-12-02T10:00:00Z"));
    await store.clocks.customerWrote(CH, 1, new Date("2026-12-02T10:00:00Z"), {
      first: false,
      targets,
      clock: undefined,
    });
    await store.clocks.replied(CH, 1, new Date("2026-12-02T10:06:00Z"), "U0ANA", undefined);
    await store.setDeskState(CH, 1, "resolved", "U0ANA", new Date("2026-12-02T11:00:00Z"));

    const parsed = parseScheduleArgs("inbox every mon at 09:00 tz=UTC", { channel: CH });
    if (!parsed.ok) throw new Error(parsed.message);
    const row = await scheduler.addSchedule(parsed.spec, { createdBy: "U0ANA", channel: CH });
    expect(row.target).toBe("inbox");
    const slot = new Date("2026-12-07T09:00:00Z");
    expect(await scheduler.runSlot(row.id, slot)).toMatchObject({ kind: "posted", parts: 1 });
    expect(await scheduler.runSlot(row.id, slot)).toMatchObject({ kind: "skipped" });
    const mine = posted.filter((p) => p.channel === CH);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.message.text).toBe(
      "Desk report, <#C0DESK>: 1 opened, 1 resolved, first reply median 6 min, 90% within 6 min (1 reply), targets met 100% (1 of 1), 0 snoozed, ratings none",
    );
    expect(apiCalls).toBe(0);
  });
});
