// Live progress of a launched campaign: confirm `campaign <id> send` through
// Slack, then drive the poller by hand (step) with a hand-moved clock while
// the sandbox sends (tick), and read the chat.update calls the fake Slack
// recorded, down to the final figures. A restart in the middle resumes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { STATUSES } from "../../src/reports/summary.ts";
import { COST_PER_POLL } from "../../src/slack/features/progress/tracker.ts";
import { eventually } from "../helpers/eventually.ts";
import { truthOf } from "../reports/helpers.ts";
import { ALICE, buttonsOf, type ReportsHarness, startReportsHarness, textOf } from "./reports-harness.ts";

let h: ReportsHarness;

beforeAll(async () => {
  h = await startReportsHarness({ runtime: { scheduler: false } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

describe("live progress", () => {
  it("polls within the background share, slower as more campaigns run", () => {
    const p = h.runtime.progress;
    // 300 reads a minute × 30% = 1.5 a second; a poll costs 8.
    expect(p.pollIntervalMs(1)).toBe(Math.ceil((COST_PER_POLL * 1000) / 1.5));
    expect(p.pollIntervalMs(10)).toBe(Math.ceil((10 * COST_PER_POLL * 1000) / 1.5));
    expect(p.pollIntervalMs(10)).toBeGreaterThan(p.pollIntervalMs(2));
  });

  it("updates the launched campaign's message until it completes, then shows the final figures", async () => {
    const draft = (await h.switchboard.client.listCampaigns({ status: "draft" })).items[0];
    expect(draft?.id).toBeDefined();
    const id = draft!.id as number;

    const ask = await h.req.command(`campaign ${id} send`, { user: ALICE });
    const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
    const confirm = buttonsOf(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
    expect(confirm).toBeDefined();
    const before = h.fake.messages.length;
    await h.req.blockAction(
      { action_id: confirm!.action_id!, value: confirm!.value },
      { responseUrl: ask.responseUrl, user: ALICE },
    );
    const launched = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => m.channel === "C0GENERAL" && /sending/.test(m.text ?? "")),
    );
    // One event, one message: the launch is the campaign's card; the prompt (one person's) is deleted.
    const deleted = await h.fake.waitFor(() =>
      h.fake.responsesTo(ask.responseUrl as string).find((r) => r.body.delete_original === true),
    );
    expect(deleted.error).toBeUndefined();
    expect(h.fake.messages.slice(before)).toHaveLength(1);
    expect(textOf(launched.blocks)).toMatch(/Launched by <@U0ALICE>/);
    expect(textOf(launched.blocks)).not.toMatch(/^by <@/m);
    const tracked = await eventually(
      async () => (await h.runtime.progress.store.live())[0],
      "the tracked message",
    );
    expect(tracked).toMatchObject({ channel: "C0GENERAL", ts: launched.ts, campaignId: id });

    const updates = () =>
      h.fake
        .callsOf("chat.update")
        .filter((c) => c.args.channel === "C0GENERAL" && c.args.ts === launched.ts);

    // First poll: in the background lane only, 8 reads, and the message shows the bar.
    const budget = () => h.switchboard.client.budget().read.granted;
    const b0 = budget();
    expect(await h.runtime.progress.step()).toEqual({ polled: 1, updated: 1 });
    const b1 = budget();
    expect(b1.background - b0.background).toBe(COST_PER_POLL);
    expect(b1.interactive).toBe(b0.interactive);
    expect(updates()).toHaveLength(1);
    expect(updates()[0]?.response.ok).toBe(true);
    expect(String(updates()[0]?.args.text)).toMatch(/: sending, .*\(0% done\)/);
    expect(textOf(updates()[0]?.args.blocks)).toMatch(/Launched by <@U0ALICE>/);
    // One bar while it sends.
    expect(textOf(updates()[0]?.args.blocks).match(/[▓░]{20}/g)).toHaveLength(1);

    // Not due yet: a pass before the interval polls nothing.
    expect(await h.runtime.progress.step()).toEqual({ polled: 0, updated: 0 });

    // The sandbox sends; the poller follows. Restart halfway: the store keeps the message.
    const every = h.runtime.progress.pollIntervalMs(1);
    let restarted = false;
    for (let i = 0; i < 30; i++) {
      await h.sandbox.tick();
      h.clock.advance(every);
      await h.runtime.progress.step();
      if (!restarted) {
        await h.restart({ scheduler: false });
        restarted = true;
      }
      if ((await h.runtime.progress.store.get("C0GENERAL", launched.ts))?.state === "done") break;
    }
    const row = await h.runtime.progress.store.get("C0GENERAL", launched.ts);
    expect(row?.state).toBe("done");
    expect(row?.lastStatus).toBe("completed");

    const all = updates();
    expect(all.length).toBeGreaterThan(2);
    expect(all.every((c) => c.response.ok === true)).toBe(true);
    const last = all[all.length - 1]!;
    expect(String(last.args.text)).toMatch(/: completed, .*\(100% done, final\)/);
    const finalText = textOf(last.args.blocks);
    expect(finalText).toContain("Final figures");
    // The final figures are the sandbox's own.
    const truth = await truthOf(h.sandbox.db, id);
    const total = STATUSES.reduce((n, s) => n + truth[s], 0);
    expect(finalText).toContain(`${total - truth.pending - truth.sending} of ${total} processed: `);

    // Done: further passes neither poll nor update.
    h.clock.advance(every * 10);
    expect(await h.runtime.progress.step()).toEqual({ polled: 0, updated: 0 });
    expect(updates()).toHaveLength(all.length);
  });

  it("cancelling the campaign edits its live card to 🚫 Cancelled at once, without waiting for a poll (issue 22 §5)", async () => {
    const draft = await h.switchboard.client.createCampaign({
      name: "Cancel me",
      integrationId: 1,
      templateId: 1,
      groupIds: [1],
      templateParameters: { first_name: "friend", order_id: "A-1" },
    });
    const id = draft.id as number;
    const confirmed = async (line: string) => {
      const ask = await h.req.command(line, { user: ALICE });
      const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
      const confirm = buttonsOf(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
      expect(confirm, line).toBeDefined();
      const before = h.fake.messages.length;
      await h.req.blockAction(
        { action_id: confirm!.action_id!, value: confirm!.value },
        { responseUrl: ask.responseUrl, user: ALICE },
      );
      return h.fake.waitFor(() => h.fake.messages.slice(before).find((m) => m.channel === "C0GENERAL"));
    };
    const launched = await confirmed(`campaign ${id} send`);
    await eventually(
      async () =>
        (await h.runtime.progress.store.get("C0GENERAL", launched.ts))?.state === "live" || undefined,
      "the tracked card",
    );
    const updates = () =>
      h.fake
        .callsOf("chat.update")
        .filter((c) => c.args.channel === "C0GENERAL" && c.args.ts === launched.ts);
    const before = updates().length;
    await confirmed(`campaign ${id} cancel`);
    // No poll runs here (no timer, no step): the cancel itself edits the card.
    const edited = await eventually(
      async () =>
        updates()
          .slice(before)
          .find((c) => /Cancelled/.test(textOf(c.args.blocks))),
      "the live card edited to Cancelled",
    );
    expect(textOf(edited.args.blocks)).toContain(":no_entry_sign:");
    expect(textOf(edited.args.blocks)).toMatch(/Launched by <@U0ALICE>/);
    expect((await h.runtime.progress.store.get("C0GENERAL", launched.ts))?.state).toBe("done");
  });

  it("a message that can no longer be updated stops being followed", async () => {
    const p = h.runtime.progress;
    const c = (await h.switchboard.client.listCampaigns({ status: "completed" })).items[0];
    await p.track({ channel: "C0GENERAL", ts: "1.000001", campaignId: c!.id as number, intro: "gone" });
    expect(await p.step()).toEqual({ polled: 1, updated: 0 });
    expect((await p.store.get("C0GENERAL", "1.000001"))?.state).toBe("gone");
  });
});
