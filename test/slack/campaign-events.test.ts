// campaign.completed (issue 40 §3) on real parts: a campaign launched through
// Slack, sent by the sandbox (ticked by hand) and followed by the live
// progress (stepped by hand); the poll that draws its final figures tells the
// workspace's automations, once, and a real loopback receiver gets the event.
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { eventually } from "../helpers/eventually.ts";
import { ALICE, buttonsOf, type ReportsHarness, startReportsHarness } from "./reports-harness.ts";

const SHELL = { userId: "shell", via: "shell" as const };
let h: ReportsHarness;
const got: Array<Record<string, unknown>> = [];
const server = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => {
    body += c;
  });
  req.on("end", () => {
    got.push(JSON.parse(body));
    res.end();
  });
});

beforeAll(async () => {
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  h = await startReportsHarness({
    runtime: { scheduler: false },
    env: { SWITCHBOARD_SECRET_KEY: randomBytes(32).toString("base64"), AUTOMATIONS_ALLOW_PRIVATE: "1" },
  });
  await h.switchboard.automations.start();
}, 120_000);

afterAll(async () => {
  await h?.close();
  await new Promise<void>((r) => server.close(() => r()));
});

describe("a campaign's end to automations", { timeout: 90_000 }, () => {
  it("campaign.completed reaches the hook once, when the live card shows the final figures", async () => {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/done`;
    expect((await h.core.run(`automation add campaign.completed ${url}`, SHELL)).text).not.toMatch(
      /refused|not/i,
    );
    const c = await h.switchboard.client.createCampaign({
      name: "Ends well",
      integrationId: 1,
      templateId: 1,
      groupIds: [1],
    } as never);
    const id = Number(c.id);
    const ask = await h.req.command(`campaign ${id} send`, { user: ALICE });
    const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
    const confirm = buttonsOf(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
    await h.req.blockAction(
      { action_id: confirm!.action_id!, value: confirm!.value },
      { responseUrl: ask.responseUrl, user: ALICE },
    );
    await h.fake.waitFor(() =>
      h.fake.messages.find((m) => /Starting; the figures/.test(JSON.stringify(m.blocks))),
    );
    await eventually(
      async () => ((await h.runtime.progress.store.live()).length ? true : undefined),
      "followed",
    );
    const every = h.runtime.progress.pollIntervalMs(1);
    for (let i = 0; i < 40; i++) {
      await h.sandbox.tick();
      h.clock.advance(every);
      await h.runtime.progress.step();
      if (!(await h.runtime.progress.store.live()).some((t) => t.campaignId === id)) break;
    }
    const event = await eventually(
      async () => got.find((e) => e.type === "campaign.completed"),
      "campaign.completed delivered",
    );
    expect(event).toMatchObject({ type: "campaign.completed" });
    expect(JSON.stringify(event)).toContain("Ends well");
    expect(JSON.stringify(event)).toContain(String(id));
    // More polls tell nothing more.
    h.clock.advance(every);
    await h.runtime.progress.step();
    expect(got.filter((e) => e.type === "campaign.completed")).toHaveLength(1);
  });
});
