// A campaign's tests (issue 37 §5, src/store/own-sends.ts): recorded as
// Switchboard's own sends with their campaign, and at most 10 a person an hour
// per workspace, each turn taken in one statement, so that turns taken at once
// (as by two replicas) never go beyond the limit; a turn given back when the
// send surely failed; when the next may go, said.
import { describe, expect, it } from "vitest";
import { OwnSends, TestSends } from "../../src/store/own-sends.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

const HOUR = 3_600_000;
const at = (minutes: number) => new Date(Date.UTC(2026, 2, 2, 9, 0) + minutes * 60_000);

describe.each(storeBackends())("tests of campaigns on %s", (backend) => {
  const db = useStoreDb(backend);

  it("are Switchboard's own sends, with the campaign they test", async () => {
    await new TestSends(db(), "TA").sent(41, "U0ANA", { id: 7, name: "Spring sale" }, at(0));
    expect(await new OwnSends(db(), "TA").of(41)).toEqual({
      messageId: 41,
      userId: "U0ANA",
      via: "test",
      sentAt: at(0),
      campaign: { id: 7, name: "Spring sale" },
    });
    expect(await new OwnSends(db(), "TB").of(41)).toBeUndefined();
    // Other own sends name no campaign.
    await new OwnSends(db(), "TA").record(42, "U0ANA", "form", at(0));
    expect(await new OwnSends(db(), "TA").of(42)).not.toHaveProperty("campaign");
  });

  it("are 10 a person an hour per workspace: the 11th refused with when the next may go", async () => {
    const tests = new TestSends(db(), "TA");
    for (let i = 0; i < 10; i++) expect(await tests.take("U0TEN", at(i), 10, HOUR)).toEqual({ ok: true });
    expect(await tests.peek("U0TEN", at(30), 10, HOUR)).toEqual({ ok: false, sent: 10, nextAt: at(60) });
    expect(await tests.take("U0TEN", at(30), 10, HOUR)).toEqual({ ok: false, sent: 10, nextAt: at(60) });
    // Another person, the same person in another workspace: their own count.
    expect(await tests.take("U0OTHER", at(30), 10, HOUR)).toEqual({ ok: true });
    expect(await new TestSends(db(), "TB").take("U0TEN", at(30), 10, HOUR)).toEqual({ ok: true });
    // At the time said, an hour after the first, one more may go; then at the second's hour.
    expect(await tests.take("U0TEN", at(59.5), 10, HOUR)).toEqual({ ok: false, sent: 10, nextAt: at(60) });
    expect(await tests.take("U0TEN", at(60), 10, HOUR)).toEqual({ ok: true });
    expect(await tests.take("U0TEN", at(60), 10, HOUR)).toEqual({ ok: false, sent: 10, nextAt: at(61) });
  });

  it("a turn given back (the send surely failed) may be taken again", async () => {
    const tests = new TestSends(db(), "TA");
    for (let i = 0; i < 10; i++) await tests.take("U0BACK", at(i), 10, HOUR);
    await tests.giveBack("U0BACK", at(9));
    expect(await tests.take("U0BACK", at(20), 10, HOUR)).toEqual({ ok: true });
    expect((await tests.take("U0BACK", at(21), 10, HOUR)).ok).toBe(false);
  });

  it("turns taken at once never go beyond the limit", async () => {
    // On PostgreSQL these run on several connections at once, as two replicas would.
    const tests = [new TestSends(db(), "TA"), new TestSends(db(), "TA")];
    const turns = await Promise.all(
      Array.from({ length: 25 }, (_, i) => tests[i % 2]!.take("U0RACE", at(0), 10, HOUR)),
    );
    expect(turns.filter((t) => t.ok)).toHaveLength(10);
  });
});
