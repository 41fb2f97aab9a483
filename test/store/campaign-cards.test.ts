// One current card per campaign (issue 37 §4, src/store/campaign-cards.ts):
// a card posted finishes the campaign's older open cards in one statement, so
// two cards posted at once (as by two replicas) finish each older card once;
// another campaign's and another workspace's cards are left alone.
import { describe, expect, it } from "vitest";
import { CampaignCards } from "../../src/store/campaign-cards.ts";
import { storeBackends, useStoreDb } from "../helpers/db.ts";

const at = (s: number) => new Date(Date.UTC(2026, 10, 29, 9, 0, s));

describe.each(storeBackends())("campaign cards on %s", (backend) => {
  const db = useStoreDb(backend);

  it("a newer card finishes the older ones of its campaign, once, and no other's", async () => {
    const a = new CampaignCards(db(), "TA");
    expect(await a.posted({ campaignId: 7, channel: "C1", ts: "1.1", role: "card" }, at(0))).toEqual([]);
    await a.posted({ campaignId: 8, channel: "C1", ts: "1.2", role: "card" }, at(1));
    await new CampaignCards(db(), "TB").posted(
      { campaignId: 7, channel: "C1", ts: "1.1", role: "card" },
      at(1),
    );
    const finished = await a.posted({ campaignId: 7, channel: "C2", ts: "2.1", role: "held" }, at(2));
    expect(finished.map((c) => [c.channel, c.ts, c.role])).toEqual([["C1", "1.1", "card"]]);
    expect((await a.open(7)).map((c) => c.ts)).toEqual(["2.1"]);
    expect((await a.open(8)).map((c) => c.ts)).toEqual(["1.2"]);
    expect((await new CampaignCards(db(), "TB").open(7)).map((c) => c.ts)).toEqual(["1.1"]);
  });

  it("two cards posted at once: each older card finished by one of them only", async () => {
    const a = new CampaignCards(db(), "TA");
    await a.posted({ campaignId: 9, channel: "C1", ts: "3.1", role: "card" }, at(0));
    expect(
      (await a.posted({ campaignId: 9, channel: "C1", ts: "3.2", role: "held" }, at(1))).map((c) => c.ts),
    ).toEqual(["3.1"]);
    const [x, y] = await Promise.all([
      a.posted({ campaignId: 9, channel: "C1", ts: "3.3", role: "live" }, at(2)),
      new CampaignCards(db(), "TA").posted({ campaignId: 9, channel: "C2", ts: "3.4", role: "live" }, at(2)),
    ]);
    const all = [...x, ...y].map((c) => c.ts).sort();
    // 3.2 finished once; one of the two new cards may finish the other, never a card twice.
    expect(all.filter((t) => t === "3.1" || t === "3.2")).toEqual(["3.2"]);
    expect(new Set(all).size).toBe(all.length);
    // Of the two, exactly one is still the current card.
    expect((await a.open(9)).map((c) => c.ts)).toEqual(["3.4"]);
    // The same card posted again (a redraw) stays current.
    await a.posted({ campaignId: 9, channel: "C9", ts: "9.9", role: "card" }, at(3));
    expect(await a.posted({ campaignId: 9, channel: "C9", ts: "9.9", role: "live" }, at(4))).toEqual([]);
    expect((await a.open(9)).map((c) => [c.ts, c.role])).toEqual([["9.9", "live"]]);
  });
});
