// The Home tab's last count (store/home-counts.ts), kept per workspace so a
// replica or a restart shows it at once: read back as kept, one row a
// workspace, and a slower replica's older count never replaces a newer one.
import { describe, expect, it } from "vitest";
import { HomeCounts } from "../../src/store/home-counts.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

describe.each(storeBackends())("the Home tab's last count on %s", (backend) => {
  const db = useStoreDb(backend);

  it("is kept per workspace, the newest winning", async () => {
    const id = `T${Date.now()}`;
    const a = new HomeCounts<{ n: number }>(db(), `${id}A`);
    const b = new HomeCounts<{ n: number }>(db(), `${id}B`);
    expect(await a.last()).toBeUndefined();
    await a.keep({ n: 1 }, new Date("2026-01-01T10:00:00Z"));
    await b.keep({ n: 9 }, new Date("2026-01-01T10:00:00Z"));
    await a.keep({ n: 2 }, new Date("2026-01-01T10:01:00Z"));
    // A count made earlier, kept later (another replica's, slower): not over the newer one.
    await a.keep({ n: 0 }, new Date("2026-01-01T09:59:00Z"));
    expect(await a.last()).toEqual({ figures: { n: 2 }, countedAt: new Date("2026-01-01T10:01:00Z") });
    expect((await b.last())?.figures).toEqual({ n: 9 });
  });
});
