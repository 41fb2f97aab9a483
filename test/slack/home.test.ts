// The Home tab, published on app_home_opened through the fake Slack (which
// checks the view against Slack's limits): account with the key masked,
// running campaigns with their bars, the viewer's own schedules, recent
// writes, and the shortcut buttons.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { maskSecret } from "../../src/platform/log.ts";
import { HOME_MAX_BLOCKS } from "../../src/slack/features/home/view.ts";
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
let running: number;

beforeAll(async () => {
  h = await startReportsHarness({ runtime: { scheduler: false }, homeCacheMs: 0 });
  running = await seedCampaign(h.sandbox.db, {
    name: "Winter promo",
    status: "running",
    counts: { pending: 50, sent: 25, delivered: 15, read: 5, failed: 5 },
  });
  const schedule = (createdBy: string, channel: string, description: string) =>
    h.switchboard.reports.store.createSchedule(
      { channel, target: "running", cron: "0 9 * * 1-5", tz: "Europe/Paris", description, createdBy },
      h.clock.now(),
    );
  await schedule(ALICE.id, "C0GENERAL", "every weekday at 09:00 (Europe/Paris)");
  await schedule(BOB.id, "C0OTHERCH", "every weekday at 09:00 (bob's)");
  // A write, so the audit table has a recent change.
  await h.switchboard.core.run("tag add winter #00AAFF", {
    userId: ALICE.id,
    via: "slack",
    channelId: "C0GENERAL",
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

/**
 * Opens the tab and returns the publish that has `until` in it: the running
 * campaigns' figures share the background budget, so the tab may be published
 * first without them, then again with them.
 */
async function openHome(user: string, until: string) {
  const n = h.fake.callsOf("views.publish").filter((c) => c.args.user_id === user).length;
  await h.req.event({ type: "app_home_opened", user, channel: "D0HOME", tab: "home" });
  return h.fake.waitFor(
    () =>
      h.fake
        .callsOf("views.publish")
        .filter((c) => c.args.user_id === user)
        .slice(n)
        .find((c) => textOf((c.args.view as { blocks: unknown[] }).blocks).includes(until)),
    30_000,
    `a Home tab showing ${until}`,
  );
}

describe("App Home", () => {
  it("publishes the account with the key masked, running campaigns, the viewer's schedules and recent writes", async () => {
    const call = await openHome(ALICE.id, "Winter promo");
    expect(call.response.ok).toBe(true);
    const view = call.args.view as { type: string; blocks: unknown[] };
    expect(view.type).toBe("home");
    expect(view.blocks.length).toBeLessThanOrEqual(HOME_MAX_BLOCKS);
    const text = textOf(view.blocks);

    // Account: organization, plan, the key's name and never more than its last 4 characters.
    const me = await h.switchboard.client.getMe();
    expect(text).toContain(String((me.organization as { name: string }).name));
    expect(text).toContain(String((me.plan as { name: string }).name));
    expect(text).toContain(String(me.apiKey?.name));
    expect(text).toContain(maskSecret(h.switchboard.apiKey));
    const json = JSON.stringify(view);
    expect(json).not.toContain(h.switchboard.apiKey);
    expect(json).not.toContain(h.switchboard.apiKey.slice(0, 8));

    // Running campaigns with their bars and a report button.
    expect(text).toMatch(
      /Winter promo\*\n\*Sending\* · 50 of 100 processed: 45 sent, delivered or read · 5 failed · 50 to go\n▓+░+ {2}\*50%\*/,
    );
    expect(buttonsOf(view.blocks).map((b) => b.value)).toContain(`report now ${running}`);

    // Only the viewer's schedules.
    expect(text).toContain("every weekday at 09:00 (Europe/Paris)");
    expect(text).not.toContain("bob's");

    // Recent writes from the audit table.
    // As a sentence about people and things (issue 22 §7): who did what to which, when.
    expect(text).toMatch(/<@U0ALICE> created tag \*winter\* · /);
    expect(text).not.toMatch(/→|createTag|a change: done/);

    // Shortcuts: each runs its command (which opens its form).
    const values = buttonsOf(view.blocks).map((b) => b.value);
    expect(values).toEqual(expect.arrayContaining(["campaign new", "send", "import"]));
    for (const b of buttonsOf(view.blocks))
      expect(b.action_id).toMatch(new RegExp(`^${ACTION.run}(:\\d+)?$`));
  });

  it("shows each viewer their own schedules", async () => {
    const call = await openHome(BOB.id, "bob's");
    expect(call.response.ok).toBe(true);
    const text = textOf((call.args.view as { blocks: unknown[] }).blocks);
    expect(text).toContain("bob's");
    expect(text).not.toContain("(Europe/Paris)");
  });

  it("the Report button on the Home tab posts the report in the app's DM", async () => {
    const before = h.fake.messages.length;
    await h.req.blockAction(
      { action_id: `${ACTION.run}:10`, value: `report now ${running}` },
      { home: true, user: BOB },
    );
    const dm = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => m.channel === BOB.id && /Winter promo/.test(m.text ?? "")),
    );
    expect(textOf(dm.blocks)).toContain("Winter promo");
  });
});
