// Held starts in Slack (issue 28 §4): Send at… on a draft's card opens the
// modal, its submission is the confirmation and posts the card "Starts at …",
// kept; the runner then starts it and edits that card (chat.update); Cancel
// start edits the card of another start. Through Bolt, the fake Slack, the
// core and the sandbox; the runner's clock is the test's.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { createHeldStarts } from "../../src/slack/features/held-starts/runtime.ts";
import { HeldStarts } from "../../src/store/held-starts.ts";
import { checkView } from "../fakes/block-kit.ts";
import { eventually } from "../helpers/eventually.ts";
import type { SlackStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { ALICE, AUDIT, draftCampaign, startAuditedStack } from "../helpers/timers.ts";
import { Forms } from "./forms-harness.ts";

let stack: SlackStack;
let forms: Forms;

beforeAll(async () => {
  stack = await startAuditedStack();
  forms = new Forms(stack.req, stack.fake);
}, 120_000);

afterAll(async () => {
  await stack?.close();
});

const text = (blocks: unknown) => JSON.stringify(blocks ?? []);
/** The first group the campaign form offers (its audience). */
const groupOf = (view: { blocks?: unknown }): string =>
  (view.blocks as Array<{ block_id?: string; element?: { options?: Array<{ value: string }> } }>).find(
    (b) => b.block_id === "groups",
  )?.element?.options?.[0]?.value ?? "";

const draft = (name: string) => draftCampaign(stack.client, name);

/** The runner (the app's, its clock moved past `at`) starts the start; the card `posted` edited to say so. */
async function runsAndEdits(at: number, posted: { channel: string; ts: string }) {
  const runner = createHeldStarts({
    db: stack.db,
    logger: stack.logger,
    forWorkspace: async () => ({ core: stack.switchboard.core, bridge: stack.switchboard.slack }),
    now: () => new Date((at + 5) * 1000),
  });
  expect(await runner.pass()).toEqual(["sent"]);
  const edit = stack.fake
    .callsOf("chat.update")
    .find((c) => c.args.channel === posted.channel && c.args.ts === posted.ts);
  expect(edit?.response.ok).toBe(true);
  expect(text(edit?.args.blocks)).toMatch(/Started at <!date\^/);
  return edit;
}

describe("held starts in Slack", () => {
  it("Send at… opens the modal; submitted, the card says when and is edited when the start runs", async () => {
    const id = await draft("Held in Slack");
    const card = await stack.req.command(`campaign ${id}`, { user: ALICE });
    const shown = await stack.fake.waitForResponse(card.responseUrl as string);
    expect(text(shown.body.blocks)).toContain(`campaign ${id} send-at`);

    const modal = await forms.open(`campaign ${id} send-at`);
    expect(checkView(modal.view as never)).toEqual([]);
    expect(modal.view.callback_id).toBe("sb_send_at");
    expect(text(modal.view.blocks)).toMatch(/datetimepicker/);
    const at = Math.floor(Date.now() / 1000) + 3600;
    const before = stack.fake.messages.length;
    const answer = await forms.submit(modal.id, { at: String(at) });
    expect(answer.response_action).toBe("clear");
    const posted = await stack.fake.waitFor(() =>
      stack.fake.messages.slice(before).find((m) => /Starts at <!date\^/.test(text(m.blocks))),
    );
    expect(text(posted.blocks)).toContain(`campaign ${id} cancel start`);
    const store = new HeldStarts(stack.db, stack.workspace);
    const held = await eventually(async () => {
      const s = await store.ofCampaign(id);
      return s?.ts ? s : undefined;
    }, "the held start's card kept");
    expect(held).toMatchObject({
      state: "held",
      channel: posted.channel,
      ts: posted.ts,
      requestedBy: "U0ALICE",
    });
    expect(held.at.getTime()).toBe(at * 1000);

    // Due: the runner (the app's, its clock moved) starts it and edits the card in place.
    await runsAndEdits(at, posted);
    expect(String((await stack.client.getCampaign(id)).status)).not.toBe("draft");
  });

  it("Cancel start on the card edits the card to say who cancelled it", async () => {
    const id = await draft("Cancelled in Slack");
    // A start within the year a start may be set ahead (docs/campaigns.md), to the second.
    const at = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const iso = new Date(at * 1000).toISOString().replace(".000Z", "Z");
    const ask = await stack.req.command(`campaign ${id} send at=${iso}`, { user: ALICE });
    const prompt = await stack.fake.waitForResponse(ask.responseUrl as string);
    const confirm = (
      prompt.body.blocks as Array<{ type: string; elements?: Array<{ action_id?: string; value?: string }> }>
    )
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id?.startsWith(ACTION.confirm));
    expect(confirm).toBeDefined();
    const before = stack.fake.messages.length;
    await stack.req.blockAction(
      { action_id: confirm!.action_id!, value: confirm!.value },
      { responseUrl: ask.responseUrl, user: ALICE },
    );
    const posted = await stack.fake.waitFor(() =>
      stack.fake.messages.slice(before).find((m) => text(m.blocks).includes(`Starts at <!date^${at}^`)),
    );
    const store = new HeldStarts(stack.db, stack.workspace);
    await eventually(async () => ((await store.ofCampaign(id))?.ts ? true : undefined), "the card kept");

    const click = await stack.req.blockAction(
      { action_id: `${ACTION.run}:2`, value: `campaign ${id} cancel start` },
      {
        user: ALICE,
        channelId: "C0GENERAL",
        messageTs: posted.ts,
        message: { text: posted.text, blocks: posted.blocks as unknown[] },
      },
    );
    expect(click).toBeDefined();
    const edit = await stack.fake.waitFor(() =>
      stack.fake
        .callsOf("chat.update")
        .find((c) => c.args.ts === posted.ts && /Start cancelled by <@U0ALICE>/.test(text(c.args.blocks))),
    );
    expect(edit.response.ok).toBe(true);
    expect((await store.ofCampaign(id))?.state).toBe("cancelled");
  });

  it("Send now anyway on a held card: one launch card; the held card finished, no buttons (issue 37 §4)", async () => {
    const id = await draft("Sent anyway");
    const at = Math.floor(Date.now() / 1000) + 30 * 86_400;
    const iso = new Date(at * 1000).toISOString().replace(".000Z", "Z");
    const ask = await stack.req.command(`campaign ${id} send at=${iso}`, { user: ALICE });
    const prompt = await stack.fake.waitForResponse(ask.responseUrl as string);
    const confirmOf = (blocks: unknown) =>
      (blocks as Array<{ type: string; elements?: Array<{ action_id?: string; value?: string }> }>)
        .flatMap((b) => b.elements ?? [])
        .find((e) => e.action_id?.startsWith(ACTION.confirm));
    const first = confirmOf(prompt.body.blocks)!;
    const before = stack.fake.messages.length;
    await stack.req.blockAction(
      { action_id: first.action_id!, value: first.value },
      { responseUrl: ask.responseUrl, user: ALICE },
    );
    const posted = await stack.fake.waitFor(() =>
      stack.fake.messages.slice(before).find((m) => text(m.blocks).includes(`Starts at <!date^${at}^`)),
    );
    const store = new HeldStarts(stack.db, stack.workspace);
    await eventually(async () => ((await store.ofCampaign(id))?.ts ? true : undefined), "the card kept");
    // Held for the quiet hours instead (the same row, the same card): Send now anyway is offered.
    const s = (await store.ofCampaign(id))!;
    await store.hold({ ...s, reason: "quiet", now: new Date() });

    const click = await stack.req.blockAction(
      { action_id: ACTION.run, value: `campaign ${id} send now` },
      { user: ALICE, channelId: "C0GENERAL", messageTs: posted.ts },
    );
    const anyway = await stack.fake.waitForResponse(click.responseUrl!);
    const go = confirmOf(anyway.body.blocks);
    expect(go, JSON.stringify(anyway.body)).toBeDefined();
    const sent = stack.fake.messages.length;
    await stack.req.blockAction(
      { action_id: go!.action_id!, value: go!.value },
      { responseUrl: click.responseUrl, user: ALICE, channelId: "C0GENERAL" },
    );
    const edit = await stack.fake.waitFor(() =>
      stack.fake
        .callsOf("chat.update")
        .find(
          (c) =>
            c.args.ts === posted.ts &&
            /Started at .* by <@U0ALICE>: the live card is below/.test(text(c.args.blocks)),
        ),
    );
    expect(text(edit.args.blocks)).not.toContain('"type":"actions"');
    const launches = stack.fake.messages
      .slice(sent)
      .filter((m) => text(m.blocks).includes("Starting; the figures follow here"));
    expect(launches).toHaveLength(1);
    expect(launches[0]?.ts).not.toBe(posted.ts);
    expect((await store.ofCampaign(id))?.state).toBe("cancelled");
  });

  it("a start its check holds is said in the audit channel, as a command's entry is", async () => {
    const id = await draft("Held by its check");
    const at = new Date(Date.now() + 3_600_000);
    await new HeldStarts(stack.db, stack.workspace).hold({
      campaignId: id,
      campaignName: "Held by its check",
      at,
      requestedBy: ALICE.id,
      via: "slack",
      reason: "created",
      now: new Date(),
    });
    const runner = createHeldStarts({
      db: stack.db,
      logger: stack.logger,
      forWorkspace: async () => ({ core: stack.switchboard.core, bridge: stack.switchboard.slack }),
      check: async () => ({ ok: false, reason: "its approval expired" }),
      now: () => new Date(at.getTime() + 5_000),
    });
    expect(await runner.pass()).toEqual(["refused"]);
    const entry = await stack.fake.waitFor(() =>
      stack.fake.messages.find(
        (m) => m.channel === AUDIT && /was held: its approval expired/.test(String(m.text)),
      ),
    );
    expect(String(entry.text)).toContain("Held by its check");
  });

  it("a start a killed process left running is told as unknown by the next pass, not ten minutes later", async () => {
    const id = await draft("Left running");
    const store = new HeldStarts(stack.db, stack.workspace);
    const claimedAt = new Date(Date.now() - 120_000);
    const start = await store.hold({
      campaignId: id,
      campaignName: "Left running",
      at: claimedAt,
      requestedBy: ALICE.id,
      via: "slack",
      reason: "created",
      now: claimedAt,
    });
    if (!start) throw new Error("the start was not held");
    // Claimed two minutes ago by a process that is no longer alive (no heartbeat: killed).
    expect(
      await store.move(start.id, ["held"], "running", claimedAt, { claimedBy: "a-killed-process" }),
    ).toBeDefined();
    const runner = createHeldStarts({
      db: stack.db,
      logger: stack.logger,
      forWorkspace: async () => ({ core: stack.switchboard.core, bridge: stack.switchboard.slack }),
    });
    expect(await runner.pass()).toEqual([]);
    expect((await store.ofCampaign(id))?.state).toBe("unknown");
    const told = await stack.fake.waitFor(() =>
      stack.fake.messages.find(
        (m) => m.channel === ALICE.id && /Left running/.test(text(m.blocks) + String(m.text)),
      ),
    );
    expect(text(told.blocks) + String(told.text)).toMatch(/not known|unknown/i);
    expect(String((await stack.client.getCampaign(id)).status)).toBe("draft");
  });

  it("the campaign form's start time: its post is the card the start edits when it runs", async () => {
    const v = await forms.open("campaign new");
    const [order] = await forms.suggest(v.id, "template", "order_update");
    const shown = await forms.act(v.id, "template", { template: order!.value });
    const at = Math.floor(Date.now() / 1000) + 7200;
    const before = stack.fake.messages.length;
    const answer = await forms.submit(shown.id, {
      name: "Form start",
      template: order!.value,
      "param:first_name": "friend",
      "param:order_id": "F-1",
      groups: [groupOf(shown.view)],
      start: String(at),
    });
    expect(answer.response_action).toBeUndefined();
    const posted = await stack.fake.waitFor(
      () =>
        stack.fake.messages
          .slice(before)
          .find((m) => /Form start/.test(String(m.text)) && /Starts at <!date\^/.test(text(m.blocks))),
      10_000,
      "the form's post",
    );
    const id = Number(/campaign #(\d+)/i.exec(String(posted.text))?.[1]);
    const store = new HeldStarts(stack.db, stack.workspace);
    await eventually(
      async () => ((await store.ofCampaign(id))?.ts === posted.ts ? true : undefined),
      "the card kept",
      {
        timeoutMs: 10_000,
      },
    );
    const edit = await runsAndEdits(at, posted);
    // Its Cancel start no longer offered on a start that ran.
    expect(text(edit?.args.blocks)).not.toContain("cancel start");
  });
});

itLeavesBUntouched(() => stack);
