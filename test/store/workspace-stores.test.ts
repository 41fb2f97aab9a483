// One workspace's stores in one object (issue 38 §2, src/store/workspace-stores.ts):
// each store is made once and kept, every store is the workspace's own, and
// the object does not hand out the database.
import { describe, expect, it } from "vitest";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

describe.each(storeBackends())("a workspace's stores on %s", (backend) => {
  const db = useStoreDb(backend);

  it("makes each store once, for its own workspace only", async () => {
    const a = new WorkspaceStores(db(), "TA");
    const b = new WorkspaceStores(db(), "TB");
    expect(a.inbox).toBe(a.inbox);
    expect(a.timers("later-message")).toBe(a.timers("later-message"));
    expect(a.timers("later-message")).not.toBe(a.timers("other"));
    await a.campaignCards.posted({ campaignId: 7, channel: "C1", ts: "1.1", role: "card" }, new Date());
    expect((await a.campaignCards.open(7)).map((c) => c.ts)).toEqual(["1.1"]);
    expect(await b.campaignCards.open(7)).toEqual([]);
  });

  it("does not hand out the database", () => {
    const a = new WorkspaceStores(db(), "TA") as unknown as Record<string, unknown>;
    expect(Object.values(a)).not.toContain(db());
    expect(Object.keys(a)).toEqual(["workspace"]);
  });
});
