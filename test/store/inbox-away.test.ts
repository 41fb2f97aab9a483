// The away message's store (issue 40 §1, src/store/inbox/away.ts), on PGlite
// and, with DATABASE_URL, on PostgreSQL: one claim per conversation and
// closed period, taken by one of two stores asking at once; its outcome kept
// and never taken again; when the team last wrote, by a reply's own time
// (the away message is none); an inbox's away flag, which `inbox on` leaves
// as it is; one workspace's claims are not another's.
import { describe, expect, it } from "vitest";
import { INBOX_MIGRATIONS, InboxStore } from "../../src/store/inbox.ts";
import { migrate } from "../../src/store/migrate.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

describe.each(storeBackends())("the away message's store on %s", (backend) => {
  const db = useStoreDb(backend, (fresh) => migrate(fresh, INBOX_MIGRATIONS));

  const at = (h: number) => new Date(Date.UTC(2026, 11, 4, h));

  it("a conversation's closed period is claimed once, by one of two stores at once; its outcome kept", async () => {
    const one = new InboxStore(db(), "T1");
    const two = new InboxStore(db(), "T1");
    const key = { conversationId: 7, periodStart: at(17) };
    const claim = { ...key, channel: "C1", chatUserId: 70 };
    const taken = await Promise.all([
      one.away.claim(claim, "w1", at(19)),
      two.away.claim(claim, "w2", at(19)),
      one.away.claim(claim, "w1", at(19)),
    ]);
    expect(taken.filter(Boolean)).toHaveLength(1);
    expect(await one.away.outcome(key)).toBe("sending");
    await two.away.settle(key, "unknown", at(19));
    expect(await one.away.outcome(key)).toBe("unknown");
    // Never taken again, nor settled otherwise.
    expect(await one.away.claim(claim, "w3", at(20))).toBe(false);
    await one.away.settle(key, "sent", at(20), 5);
    expect(await one.away.outcome(key)).toBe("unknown");
    // The next closed period is another claim; another workspace's conversation 7 is its own.
    expect(await one.away.claim({ ...claim, periodStart: at(41) }, "w1", at(42))).toBe(true);
    expect(await new InboxStore(db(), "T2").away.claim(claim, "w1", at(19))).toBe(true);
  });

  it("when the team last wrote: a reply's own time, in any of the customer's threads", async () => {
    const store = new InboxStore(db(), "T3");
    await store.ensureThread("C1", 80, at(9));
    expect(await store.away.teamWroteSince(80, at(0))).toBe(false);
    // A reply written at 18:30 (read later, or sent from the thread), with no clock running.
    await store.clocks.replied("C1", 80, new Date(Date.UTC(2026, 11, 4, 18, 30)), "U1", undefined);
    expect(await store.away.teamWroteSince(80, at(18))).toBe(true);
    expect(await store.away.teamWroteSince(80, at(19))).toBe(false);
    // An older reply read after it does not move it back.
    await store.clocks.replied("C1", 80, at(10), null, undefined);
    expect(await store.away.teamWroteSince(80, at(18))).toBe(true);
    expect(await new InboxStore(db(), "T4").away.teamWroteSince(80, at(0))).toBe(false);
  });

  it("an inbox's away flag: on by default, turned off by setAway, left as it is by setInbox", async () => {
    const store = new InboxStore(db(), "T5");
    expect(await store.setAway("C9", false)).toBeUndefined();
    const made = await store.setInbox("C9", "all", "U1", at(9));
    expect(made.inbox.away).toBe(true);
    expect(await store.setAway("C9", false)).toMatchObject({ was: true, inbox: { away: false } });
    const again = await store.setInbox("C9", "need_human", "U1", at(10), { replies: "notes" });
    expect(again.inbox.away).toBe(false);
    expect(await store.setAway("C9", true)).toMatchObject({ was: false, inbox: { away: true } });
  });
});
