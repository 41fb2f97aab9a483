// The desk's report (issue 29 §5): its figures come from what Switchboard
// recorded (the reply clocks, the state changes), here written through the
// store as the inbox writes them, at known times: opened, resolved, median
// and 90th-percentile first-reply time, targets met as a share, snoozed,
// ratings per answer, per assignee.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENV_WORKSPACE } from "../../src/domain/workspace.ts";
import { deskFigures, renderDeskReport } from "../../src/reports/desk.ts";
import { INBOX_MIGRATIONS, InboxStore } from "../../src/store/inbox.ts";
import { migrate } from "../../src/store/migrate.ts";
import { openTestDb, type TestDb } from "../helpers/db.ts";

let db: TestDb;
let store: InboxStore;
const CH = "C0DESK";
const T0 = new Date("2026-12-07T00:00:00Z");
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

beforeAll(async () => {
  db = await openTestDb();
  await migrate(db, INBOX_MIGRATIONS);
  store = new InboxStore(db, ENV_WORKSPACE);
}, 60_000);

afterAll(async () => {
  await db?.close();
});

async function conversation(user: number, assignee?: string) {
  await store.ensureThread(CH, user, at(0));
  await store.updateThread(CH, user, { threadTs: `${user}.1` });
  if (assignee) await store.assign(CH, user, assignee, assignee, at(0), false);
}

describe("the desk report", () => {
  it("figures from recorded times: opened, resolved, first-reply median and p90, targets met, snoozed, ratings, per assignee", async () => {
    const { targets } = await store.clocks.setTargets(
      CH,
      { firstSecs: 900, nextSecs: 300, here: false },
      "U0ANA",
      at(-600),
    );
    const c = store.clocks;
    const wrote = (user: number, minutes: number, first = false) =>
      c.customerWrote(CH, user, at(minutes), { first, targets, clock: undefined });
    // Before the period: started and answered the day before, not counted.
    await conversation(9);
    await wrote(9, -120);
    await c.replied(CH, 9, at(-110), "U0ANA", undefined);
    // A (Ana has it): answered in 5 min, in time; then resolved by Ana.
    await conversation(1, "U0ANA");
    await wrote(1, 60);
    await c.replied(CH, 1, at(65), "U0ANA", undefined);
    await store.setDeskState(CH, 1, "resolved", "U0ANA", at(70));
    // B (nobody has it): Ben answers in 20 min, late.
    await conversation(2);
    await wrote(2, 120);
    await c.replied(CH, 2, at(140), "U0BEN", undefined);
    // C: never answered; its due time passed in the period.
    await conversation(3);
    await wrote(3, 180);
    expect(await c.claimBreach({ channel: CH, chatUserId: 3, startedAt: at(180) }, at(195))).toBe(true);
    // D: first reply in 10 min, then a next reply in 1 min (its own target, met).
    await conversation(4, "U0CAL");
    await wrote(4, 240);
    await c.replied(CH, 4, at(250), "U0CAL", undefined);
    await wrote(4, 300);
    expect(await c.running(CH, 4)).toMatchObject({ kind: "next", targetSecs: 300 });
    await wrote(4, 300.5); // a second message before the reply: the same clock
    await c.replied(CH, 4, at(301), "U0CAL", undefined);
    // Snoozes: B by Ben (nobody has it), D by Cal; a resolved conversation cannot be snoozed (not counted).
    expect(await store.snooze(CH, 2, "reply", "U0BEN", at(150))).toBe(true);
    expect(await store.snooze(CH, 4, at(600), "U0CAL", at(310))).toBe(true);
    expect(await store.snooze(CH, 1, "reply", "U0ANA", at(311))).toBe(false);
    // Ratings after Resolve: A answers OK then Great (the last answer counts), and a word that is no answer;
    // D is resolved by Cal and rated Poor.
    const options = ["Great", "OK", "Poor"];
    await store.ratingAsked(CH, 1, options, at(70));
    expect(await store.rate(CH, 1, "ok", at(75))).toBe("OK");
    expect(await store.rate(CH, 1, "thanks!", at(78))).toBeUndefined();
    expect(await store.rate(CH, 1, "Great", at(80))).toBe("Great");
    await store.setDeskState(CH, 4, "resolved", "U0CAL", at(320));
    await store.ratingAsked(CH, 4, options, at(320));
    expect(await store.rate(CH, 4, "Poor", at(330))).toBe("Poor");

    const f = await deskFigures(c, CH, T0, at(1440), at(1440));
    expect(f).toMatchObject({ opened: 4, reopened: 0, resolved: 2, met: 3, missed: 2, snoozed: 2 });
    expect(f.ratings).toEqual([
      { rating: "Great", count: 1 },
      { rating: "Poor", count: 1 },
    ]);
    expect(f.firstReplies).toEqual({ count: 3, medianSecs: 600, p90Secs: 1200 });
    const ana = f.people.find((p) => p.who === "U0ANA");
    expect(ana).toMatchObject({
      resolved: 1,
      met: 1,
      missed: 0,
      snoozed: 0,
      ratings: [{ rating: "Great", count: 1 }],
      firstReplies: { count: 1, medianSecs: 300 },
    });
    expect(f.people.find((p) => p.who === "U0BEN")).toMatchObject({
      met: 0,
      missed: 1,
      snoozed: 1,
      ratings: [],
    });
    expect(f.people.find((p) => p.who === "U0CAL")).toMatchObject({
      resolved: 1,
      snoozed: 1,
      ratings: [{ rating: "Poor", count: 1 }],
    });
    expect(f.people.find((p) => p.who === null)).toMatchObject({ missed: 1 });

    const m = renderDeskReport(f, { tz: "UTC" });
    expect(m.text).toBe(
      "Desk report, <#C0DESK>: 4 opened, 2 resolved, first reply median 10 min, 90% within 20 min (3 replies), targets met 60% (3 of 5), 2 snoozed, ratings Great 1, Poor 1",
    );
    const blocks = JSON.stringify(m.blocks);
    expect(blocks).toContain("<@U0ANA>: 1 resolved");
    expect(blocks).toContain("*Snoozed*\\n2");
    expect(blocks).toContain("*Ratings*\\nGreat 1, Poor 1");
    expect(blocks).toContain("· 1 snoozed · rated Poor 1");

    // The customer writes in the resolved conversation: reopened, and a first-reply target again.
    await store.customerWrote(CH, 1, at(400));
    expect(await c.running(CH, 1)).toBeUndefined();
    await c.customerWrote(CH, 1, at(400), { first: true, targets, clock: undefined });
    expect(await c.running(CH, 1)).toMatchObject({ kind: "first", targetSecs: 900 });
    const again = await deskFigures(c, CH, T0, at(1440), at(1440));
    expect(again).toMatchObject({ opened: 5, reopened: 1 });
  });
});
