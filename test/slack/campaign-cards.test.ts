// One current card per campaign (issue 37 §4), through Bolt, the fake Slack,
// the core, the sandbox and the live-progress tracker driven by hand: a held
// start's card is never followed as a live card (it came back as "Draft ·
// starts at 09:30 · about every 11 s" with Send…), a newer card finishes the
// older ones (no buttons, a line saying where the campaign went), and a
// campaign has one live card.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { createHeldStarts } from "../../src/slack/features/held-starts/runtime.ts";
import { CampaignCards } from "../../src/store/campaign-cards.ts";
import { HeldStarts } from "../../src/store/held-starts.ts";
import { eventually } from "../helpers/eventually.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { draftCampaign } from "../helpers/timers.ts";
import { ALICE, buttonsOf, type ReportsHarness, startReportsHarness, textOf } from "./reports-harness.ts";

let h: ReportsHarness;
// Card edits in one channel are paced by Slack (the fake's 1 a second): a test here takes seconds.
vi.setConfig({ testTimeout: 90_000 });

beforeAll(async () => {
  h = await startReportsHarness({ runtime: { scheduler: false } });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const draft = (name: string) => draftCampaign(h.switchboard.client, name);

/** A command, confirmed by its Confirm button, as Alice. */
async function confirmed(line: string): Promise<void> {
  const ask = await h.req.command(line, { user: ALICE });
  const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
  const confirm = buttonsOf(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
  expect(confirm, JSON.stringify(prompt.body)).toBeDefined();
  await h.req.blockAction(
    { action_id: confirm!.action_id!, value: confirm!.value },
    { responseUrl: ask.responseUrl, user: ALICE },
  );
}

const isoIn = (days: number) =>
  new Date(Math.floor(Date.now() / 1000 + days * 86_400) * 1000).toISOString().replace(".000Z", "Z");

/** The message as it stands now (its post, then its last edit): its text and its buttons' words. */
function current(channel: string, ts: string): string {
  const edits = h.fake.callsOf("chat.update").filter((c) => c.args.channel === channel && c.args.ts === ts);
  const blocks =
    edits.at(-1)?.args.blocks ?? h.fake.messages.find((m) => m.channel === channel && m.ts === ts)?.blocks;
  const buttons = buttonsOf(blocks).map((b) => `[${(b as { text?: { text?: string } }).text?.text ?? ""}]`);
  return [textOf(blocks), ...buttons].join("\n");
}

/** Polls the tracker as time passes (its clock is the harness's). */
async function pollFor(seconds: number) {
  for (let i = 0; i < 2; i++) {
    h.clock.advance((seconds * 1000) / 2);
    await h.runtime.progress.step();
  }
}

describe("one card per campaign", () => {
  it("a held start's card is not followed as a live card; set again, the cancelled card is finished", async () => {
    const id = await draft("Held twice");
    const before = h.fake.messages.length;
    await confirmed(`campaign ${id} send at=${isoIn(20)}`);
    const first = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => /Starts at <!date\^/.test(textOf(m.blocks))),
    );
    const held = new HeldStarts(h.db, h.workspace);
    await eventually(async () => ((await held.ofCampaign(id))?.ts ? true : undefined), "the card kept");
    // Not followed: the tracker has nothing of this campaign, and its polls never draw on the held card.
    await pollFor(60);
    expect((await h.runtime.progress.store.live()).filter((t) => t.campaignId === id)).toEqual([]);
    expect(current(first.channel, first.ts as string)).not.toMatch(/about every|\[Send…\]/);

    // Cancelled, then set for another time: a new card; the cancelled one is finished, pointing at it.
    await h.req.command(`campaign ${id} cancel start`, { user: ALICE });
    await h.fake.waitFor(
      () => /Start cancelled by/.test(current(first.channel, first.ts as string)) || undefined,
    );
    const again = h.fake.messages.length;
    await confirmed(`campaign ${id} send at=${isoIn(10)}`);
    const second = await h.fake.waitFor(() =>
      h.fake.messages.slice(again).find((m) => /Starts at <!date\^/.test(textOf(m.blocks))),
    );
    const finished = await h.fake.waitFor(() => {
      const t = current(first.channel, first.ts as string);
      return /set again by <@U0ALICE>/.test(t) ? t : undefined;
    });
    expect(finished).toMatch(/the current card is below/);
    expect(finished).not.toMatch(/\[/);
    await pollFor(60);
    expect(current(first.channel, first.ts as string)).not.toMatch(/about every/);
    expect(current(second.channel, second.ts as string)).toMatch(/Cancel start/);
    expect((await new CampaignCards(h.db, h.workspace).open(id)).map((c) => c.ts)).toEqual([second.ts]);
  });

  it("Send now anyway on a held card: one live card, the held card finished and never drawn as sending", async () => {
    const id = await draft("Anyway once");
    const before = h.fake.messages.length;
    await confirmed(`campaign ${id} send at=${isoIn(20)}`);
    const heldCard = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => /Starts at <!date\^/.test(textOf(m.blocks))),
    );
    const sent = h.fake.messages.length;
    await confirmed(`campaign ${id} send now`);
    const live = await h.fake.waitFor(() =>
      h.fake.messages.slice(sent).find((m) => /Starting; the figures follow here/.test(textOf(m.blocks))),
    );
    const finished = await h.fake.waitFor(() => {
      const t = current(heldCard.channel, heldCard.ts as string);
      return /Started at .* by <@U0ALICE>: the live card is below/.test(t) ? t : undefined;
    });
    expect(finished).not.toMatch(/\[/);
    // The tracker follows the launch's card only, and its polls never touch the held card.
    await eventually(
      async () =>
        (await h.runtime.progress.store.live()).some((t) => t.campaignId === id) ? true : undefined,
      "the live card followed",
    );
    await pollFor(60);
    const followed = (await h.runtime.progress.store.live()).filter((t) => t.campaignId === id);
    expect(followed.map((t) => t.ts)).toEqual([live.ts]);
    expect(current(heldCard.channel, heldCard.ts as string)).not.toMatch(/about every|Updated/);
    expect(current(live.channel, live.ts as string)).toMatch(/Sending|Completed/);
  });

  it("a draft's card from `campaign add` is finished by the launch: no Send… left on it", async () => {
    const before = h.fake.messages.length;
    await h.req.command(`campaign add "Added then sent" template=1 group=1 first_name=Ana order_id=A-7`, {
      user: ALICE,
    });
    const added = await h.fake.waitFor(() =>
      h.fake.messages
        .slice(before)
        .find((m) => /Draft campaign \*Added then sent\* created/.test(textOf(m.blocks))),
    );
    const id = Number(/campaign #(\d+)/.exec(String(added.text))?.[1]);
    expect(id).toBeGreaterThan(0);
    expect(current(added.channel, added.ts as string)).toContain("[Send…]");
    await confirmed(`campaign ${id} send`);
    const finished = await h.fake.waitFor(() => {
      const t = current(added.channel, added.ts as string);
      return /the live card is below/.test(t) ? t : undefined;
    });
    expect(finished).not.toMatch(/\[/);
  });

  it("a held start that runs: its card becomes the live card, followed while it sends", async () => {
    const id = await draft("Runs on time");
    const before = h.fake.messages.length;
    await confirmed(`campaign ${id} send at=${isoIn(1)}`);
    const card = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => /Starts at <!date\^/.test(textOf(m.blocks))),
    );
    const held = new HeldStarts(h.db, h.workspace);
    const start = await eventually(async () => {
      const s = await held.ofCampaign(id);
      return s?.ts ? s : undefined;
    }, "the card kept");
    const runner = createHeldStarts({
      db: h.db,
      logger: h.logger,
      forWorkspace: async () => ({
        core: h.switchboard.core,
        bridge: h.switchboard.slack,
        hooks: h.runtime.hooks,
        stores: h.switchboard.stores,
      }),
      now: () => new Date(start.at.getTime() + 5_000),
    });
    expect(await runner.pass()).toEqual(["sent"]);
    const followed = await eventually(async () => {
      const rows = (await h.runtime.progress.store.live()).filter((t) => t.campaignId === id);
      return rows.length ? rows : undefined;
    }, "the start's card followed");
    expect(followed.map((t) => [t.channel, t.ts])).toEqual([[card.channel, card.ts]]);
    await pollFor(30);
    expect(current(card.channel, card.ts as string)).toMatch(/Sending|Completed/);
  });
});

itLeavesBUntouched(() => h);
