// Outcomes kept for a person (store/undelivered.ts): claimed once, oldest first,
// removed once told, given back when telling failed, told again when a claim
// was never settled (the process died);
// on the embedded database (one process) who has something kept is known in
// memory, so the next command of someone with nothing kept reads nothing.
import { describe, expect, it } from "vitest";
import { UndeliveredOutcomes } from "../../src/store/undelivered.ts";
import { storeBackends, useRecordingStoreDb } from "../helpers/db.ts";

describe.each(storeBackends())("kept outcomes on %s", (backend) => {
  const sql: string[] = [];
  const db = useRecordingStoreDb(backend, sql);

  it("are claimed once, oldest first, per workspace and person; removed once told", async () => {
    const a = new UndeliveredOutcomes(db(), "TA");
    const b = new UndeliveredOutcomes(db(), "TB");
    await a.keep("U1", "first");
    await a.keep("U1", "second");
    await b.keep("U1", "other workspace");
    const claimed = await a.claim("U1");
    expect(claimed.map((o) => o.text)).toEqual(["first", "second"]);
    // Held by the claim: another command (this replica or another) finds nothing to say.
    expect(await new UndeliveredOutcomes(db(), "TA").claim("U1")).toEqual([]);
    // Still listed (the Home tab) until told.
    expect((await a.list("U1")).map((o) => o.text)).toEqual(["first", "second"]);
    await a.told("U1", claimed);
    expect(await a.list("U1")).toEqual([]);
    expect(await a.claim("U1")).toEqual([]);
    const other = await b.claim("U1");
    expect(other.map((o) => o.text)).toEqual(["other workspace"]);
    await b.told("U1", other);
  });

  it("are given back when telling failed, and told again when a claim was never settled", async () => {
    const store = new UndeliveredOutcomes(db(), "TA");
    await store.keep("U2", "campaign sent");
    const first = await store.claim("U2");
    await store.release("U2", first);
    const second = await store.claim("U2");
    expect(second.map((o) => o.text)).toEqual(["campaign sent"]);
    // The process that claimed them dies before telling (no told, no release): its claim runs out.
    const dead = await store.claim("U3").then(async () => {
      await store.keep("U3", "import done");
      return store.claim("U3", 0);
    });
    expect(dead.map((o) => o.text)).toEqual(["import done"]);
    const again = await new UndeliveredOutcomes(db(), "TA").claim("U3");
    expect(again.map((o) => o.text)).toEqual(["import done"]);
    await store.told("U3", again);
    expect(await store.list("U3")).toEqual([]);
    await store.told("U2", second);
  });

  it("Got it removes those kept up to the newest shown, to the millisecond; those kept after stay", async () => {
    const store = new UndeliveredOutcomes(db(), "TA");
    await store.keep("U4", "shown");
    const [shown] = await store.list("U4");
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.keep("U4", "kept after the tab was drawn");
    expect(await store.dismiss("U4", (shown as { at: Date }).at.getTime())).toBe(1);
    expect((await store.list("U4")).map((o) => o.text)).toEqual(["kept after the tab was drawn"]);
    const left = await store.claim("U4");
    expect(left.map((o) => o.text)).toEqual(["kept after the tab was drawn"]);
    await store.told("U4", left);
  });

  it("cost a person with nothing kept no statement on the embedded database, one on PostgreSQL", async () => {
    const store = new UndeliveredOutcomes(db(), "TA");
    await store.claim("U9");
    sql.length = 0;
    expect(await store.claim("U9")).toEqual([]);
    expect(await new UndeliveredOutcomes(db(), "TC").claim("U9")).toEqual([]);
    // Told: nothing left, so the next command reads nothing again.
    expect(sql).toHaveLength(backend === "pglite" ? 0 : 2);
    await store.keep("U8", "x");
    await store.told("U8", await store.claim("U8"));
    sql.length = 0;
    expect(await store.claim("U8")).toEqual([]);
    expect(sql).toHaveLength(backend === "pglite" ? 0 : 1);
  });
});
