// The Home tab (issue 39 §2): write shortcuts only for those who may write,
// and the last count of the running campaigns shown at once, with its time,
// while a new count is made (held here by the proxy in front of the sandbox),
// then the tab published again with the new figures. The last count is kept in
// the store per workspace: a new process (a replica, a restart) shows it at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MessagingApi } from "../../src/api/types.ts";
import { createHomeView } from "../../src/slack/features/home/view.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { seedCampaign } from "../reports/helpers.ts";
import {
  ALICE,
  BOB,
  buttonsOf,
  type ReportsHarness,
  startReportsHarness,
  textOf,
} from "./reports-harness.ts";

let h: ReportsHarness;
/** While set, the campaigns' reads wait for it (a slow API, a provider's workspace). */
let gate: Promise<void> | undefined;

beforeAll(async () => {
  h = await startReportsHarness({
    runtime: { scheduler: false },
    homeCacheMs: 0,
    // The background lane's share of a large budget: the count itself is quick once let go.
    env: { API_READ_LIMIT: "100000" },
    proxy: {
      hold: (method, url) => (method === "GET" && url.startsWith("/v1/campaigns") ? gate : undefined),
    },
  });
  await seedCampaign(h.sandbox.db, {
    name: "Winter promo",
    status: "running",
    counts: { pending: 50, sent: 25, delivered: 15, read: 5, failed: 5 },
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const viewText = (c: { args: Record<string, unknown> }) =>
  textOf((c.args.view as { blocks: unknown[] }).blocks);

/** Opens the tab; resolves with every publish for `user` from then on, as they come, until `done` says so. */
async function openHome(user: string, done: (texts: string[]) => boolean, open = true) {
  const n = h.fake.callsOf("views.publish").filter((c) => c.args.user_id === user).length - (open ? 0 : 1);
  if (open) await h.req.event({ type: "app_home_opened", user, channel: "D0HOME", tab: "home" });
  return h.fake.waitFor(
    () => {
      const calls = h.fake
        .callsOf("views.publish")
        .filter((c) => c.args.user_id === user)
        .slice(n);
      return done(calls.map(viewText)) ? calls : undefined;
    },
    30_000,
    "the Home tab's publishes",
  );
}

describe("Home: write shortcuts for those who may", () => {
  it("shows New campaign, Send a message and Import contacts to a writer, only Help to someone who may not write", async () => {
    const alice = await openHome(ALICE.id, (t) => t.some((x) => x.includes("Winter promo")));
    const aliceButtons = buttonsOf((alice.at(-1)!.args.view as { blocks: unknown[] }).blocks).map(
      (b) => b.value,
    );
    expect(aliceButtons).toEqual(expect.arrayContaining(["campaign new", "send", "import", "help"]));

    const bob = await openHome(BOB.id, (t) => t.some((x) => x.includes("Winter promo")));
    const bobButtons = buttonsOf((bob.at(-1)!.args.view as { blocks: unknown[] }).blocks).map((b) => b.value);
    expect(bobButtons).toContain("help");
    for (const line of ["campaign new", "send", "import"]) expect(bobButtons).not.toContain(line);
  });
});

describe("Home: the last count at once, the new one when it arrives", () => {
  it("shows the last figures with their time while the campaigns' reads are held, then publishes the new count", async () => {
    // A count made, and kept.
    await openHome(ALICE.id, (t) => t.some((x) => x.includes("Winter promo")));
    let release!: () => void;
    gate = new Promise<void>((r) => {
      release = r;
    });
    // A campaign started meanwhile: only the new count can know it.
    await seedCampaign(h.sandbox.db, {
      name: "Spring sale",
      status: "running",
      counts: { pending: 10, sent: 10 },
    });
    const first = await openHome(ALICE.id, (t) => t.length >= 1);
    const now = viewText(first[0]!);
    expect(now).toContain("Winter promo");
    expect(now).toMatch(/Figures of <!date\^\d+\^[^|]+\|[^>]+>; counting again…/);
    expect(now).not.toContain("Counting recipients");
    expect(now).not.toContain("Spring sale");

    // Let the count go: the same tab is published again, with the new figures.
    gate = undefined;
    release();
    const all = await openHome(ALICE.id, (t) => t.some((x) => x.includes("Spring sale")), false);
    const after = viewText(all.find((c) => viewText(c).includes("Spring sale"))!);
    expect(after).toContain("Winter promo");
    expect(after).not.toContain("counting again");
  });

  it("a new process (another replica, a restart) shows the last count from the store at once", async () => {
    const never = new Promise<never>(() => {});
    const slow = {
      getMe: () => Promise.reject(new Error("not read in this test")),
      listCampaigns: () => never,
    } as unknown as MessagingApi;
    const view = createHomeView({
      client: slow,
      stores: new WorkspaceStores(h.switchboard.db, h.switchboard.workspace),
      apiKey: "sk_test_0000000000000000",
      waitMs: 50,
      republish: async () => {},
    });
    const blocks = (await view(ALICE.id)).blocks;
    const text = textOf(blocks);
    expect(text).toContain("Spring sale");
    expect(text).toContain("counting again…");
  });
});
