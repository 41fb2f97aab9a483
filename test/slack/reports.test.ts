// `/sb report…` through signed Slack requests, the real core and the sandbox,
// with the scheduler on pg-boss and a hand-moved clock: schedules answered in
// the user's Slack time zone, bad input refused with nothing stored, the
// channel's list, delete with confirmation, a report now (with its chart), a
// scheduled slot posted through the app's Slack poster (and a refusal), the
// report missed while down posted once after a restart, and the shell.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { createSwitchboard } from "../../src/host/app.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { machineTimeZone } from "../../src/reports/service.ts";
import { eventually } from "../helpers/eventually.ts";
import { captureLogger } from "../helpers/log.ts";
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
let campaignId: number;

beforeAll(async () => {
  // Friday 21 Nov 2025, 11:00 in Paris.
  h = await startReportsHarness({ start: new Date("2025-11-21T10:00:00Z") });
  campaignId = await seedCampaign(h.sandbox.db, {
    name: "Black Friday",
    status: "running",
    counts: { pending: 40, sent: 30, delivered: 20, read: 6, failed: 4 },
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
});

const schedules = () => h.switchboard.reports.listSchedules();
const bossKeys = async () => (await h.runtime.boss!.getSchedules("reports")).map((s) => s.key).sort();

async function answer(text: string, user = ALICE, channelId = "C0GENERAL") {
  const res = await h.req.command(text, { user, channelId });
  expect(res.status).toBe(200);
  return h.fake.waitForResponse(res.responseUrl as string);
}

describe("/sb report: schedules", () => {
  it("creates a schedule in the user's Slack time zone and says so, with the next run", async () => {
    const before = h.fake.messages.length;
    const res = await h.req.command("report running every weekday at 09:00", { user: ALICE });
    expect(res.status).toBe(200);
    const post = await h.fake.waitFor(() =>
      h.fake.messages
        .slice(before)
        .find((m) => m.channel === "C0GENERAL" && /Report #\d+ scheduled/.test(m.text ?? "")),
    );
    expect(post.text).toContain("every weekday at 09:00 (Europe/Paris)");
    // Friday 11:00 Paris: the next weekday 09:00 is Monday.
    expect(post.text).toContain("Next: Mon 24 Nov 2025, 09:00");
    expect(post.text).toContain(`<@${ALICE.id}>`);
    expect(h.fake.callsOf("users.info").some((c) => c.args.user === ALICE.id)).toBe(true);

    const rows = await schedules();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      channel: "C0GENERAL",
      target: "running",
      tz: "Europe/Paris",
      cron: "0 9 * * 1-5",
      createdBy: ALICE.id,
    });
    // Registered with pg-boss at once, keyed by the schedule id.
    expect(await bossKeys()).toEqual([String(rows[0]!.id)]);
  });

  it("takes another channel (Slack's escaped link), a zone and every N hours", async () => {
    const before = h.fake.messages.length;
    await h.req.command(`report ${campaignId} every 6h at 09:30 tz=America/New_York <#C0OTHERCH|other>`, {
      user: ALICE,
    });
    const post = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => /Report #\d+ scheduled/.test(m.text ?? "")),
    );
    expect(post.text).toContain("America/New_York");
    expect(post.text).toContain("<#C0OTHERCH>");
    // Issue 22 §3: the schedule names the campaign, not its number.
    expect(post.text).toContain("campaign *Black Friday*");
    expect(post.text).not.toContain(`campaign ${campaignId}`);
    const row = (await schedules()).find((s) => s.channel === "C0OTHERCH");
    expect(row).toMatchObject({
      target: String(campaignId),
      tz: "America/New_York",
      cron: "30 3,9,15,21 * * *",
    });
  });

  it.each([
    ["report running tz=Europe/Pariss", /did you mean tz=Europe\/Paris/],
    ["report running at 25:00", /at.*`25:00` is not a time/s],
    ["report running every 5h", /5h does not divide the day/],
    ["report running every fortnight", /`fortnight` is not a cadence/],
    ["report 99999 every day", /There is no campaign #99999/],
    ["report soon", /`soon` is not a campaign id/],
    ["report running #general", /not a channel link/],
  ])("refuses %s clearly and stores nothing", async (line, pattern) => {
    const before = await schedules();
    const keys = await bossKeys();
    const r = await answer(line);
    expect(r.body.response_type).toBe("ephemeral");
    expect(String(r.body.text)).toMatch(pattern);
    expect(await schedules()).toEqual(before);
    expect(await bossKeys()).toEqual(keys);
  });

  it("refuses schedules from someone who may not write, naming who may", async () => {
    const before = await schedules();
    const r = await answer("report running", BOB);
    expect(String(r.body.text)).toContain(`<@${ALICE.id}>`);
    expect(await schedules()).toEqual(before);
  });

  it("/sb reports lists the channel's schedules with the next run and who made it", async () => {
    const r = await answer("reports", BOB);
    expect(r.body.response_type).toBe("ephemeral");
    const text = textOf(r.body.blocks);
    expect(text).toContain("running");
    expect(text).toContain("every weekday at 09:00 (Europe/Paris)");
    expect(text).toContain("Next: Mon 24 Nov 2025, 09:00");
    expect(text).toContain(`<@${ALICE.id}>`);
    // Only this channel's: the other channel's schedule is not listed.
    expect(text).not.toContain("America/New_York");
    const del = buttonsOf(r.body.blocks).map((b) => b.value);
    expect(del).toHaveLength(1);
    expect(del[0]).toMatch(/^report delete \d+$/);
  });

  it("report delete asks to confirm, then removes it from the store and pg-boss", async () => {
    const row = (await schedules()).find((s) => s.channel === "C0OTHERCH")!;
    const ask = await h.req.command(`report delete ${row.number}`, { user: ALICE, channelId: "C0OTHERCH" });
    const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
    expect(textOf(prompt.body.blocks)).toContain("America/New_York");
    expect(textOf(prompt.body.blocks)).toContain("campaign *Black Friday*");
    // Nothing is deleted before the confirmation.
    expect((await schedules()).some((s) => s.id === row.id)).toBe(true);
    const confirm = buttonsOf(prompt.body.blocks).find((b) => b.action_id?.startsWith(ACTION.confirm));
    expect(confirm).toBeDefined();
    const before = h.fake.messages.length;
    await h.req.blockAction(
      { action_id: confirm!.action_id!, value: confirm!.value },
      { responseUrl: ask.responseUrl, user: ALICE, channelId: "C0OTHERCH" },
    );
    const gone = await h.fake.waitFor(() =>
      h.fake.messages.slice(before).find((m) => m.text?.includes(`Report schedule #${row.number}`)),
    );
    expect(gone.text).toContain("campaign *Black Friday*");
    expect((await schedules()).some((s) => s.id === row.id)).toBe(false);
    expect(await bossKeys()).not.toContain(String(row.id));
  });

  it("report delete of an unknown id says so and asks nothing", async () => {
    const r = await answer("report delete 4242");
    expect(String(r.body.text)).toContain("There is no report schedule #4242");
    expect(buttonsOf(r.body.blocks).some((b) => b.action_id?.startsWith(ACTION.confirm))).toBe(false);
  });
});

describe("/sb report now and scheduled posts", () => {
  it("posts a summary with its chart inside, as one message, to the channel at once, for a writer", async () => {
    const before = h.fake.messages.length;
    const r = await answer(`report now ${campaignId}`, ALICE);
    expect(r.body.response_type).toBe("ephemeral");
    expect(String(r.body.text)).toContain("posted");
    const post = h.fake.messages.slice(before).find((m) => m.channel === "C0GENERAL");
    expect(post?.text).toContain("Black Friday");
    const text = textOf(post?.blocks);
    expect(text).toMatch(/\b40 pending\b/);
    expect(text.match(/[▓░]{20}/g)).toHaveLength(1);
    expect(buttonsOf(post?.blocks).map((b) => b.value)).toContain(
      `campaign ${campaignId} recipients status=failed`,
    );
    // In the user's zone (Alice's Slack profile: Paris).
    expect(text).toContain("GMT+1");
    // The chart is in the same message: an image block showing the app's uploaded PNG, not a second post.
    const image = ((post?.blocks ?? []) as Array<{ type: string; slack_file?: { id: string } }>).find(
      (b) => b.type === "image",
    );
    const chart = h.fake.files.get(String(image?.slack_file?.id));
    expect(chart?.name).toMatch(/\.png$/);
    expect(chart?.content.subarray(1, 4).toString()).toBe("PNG");
    expect(chart?.channels).toEqual([]);
    expect(h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL")).toHaveLength(1);
  });

  it("a chart Slack is still processing: the message is tried once more and shows it", async () => {
    h.fake.fileProcessingPosts = 1;
    try {
      const before = h.fake.messages.length;
      await answer(`report now ${campaignId}`, ALICE);
      const posts = h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL");
      expect(posts).toHaveLength(1);
      const image = ((posts[0]?.blocks ?? []) as Array<{ type: string; slack_file?: { id: string } }>).find(
        (b) => b.type === "image",
      );
      expect(h.fake.files.get(String(image?.slack_file?.id))?.name).toMatch(/\.png$/);
    } finally {
      h.fake.fileProcessingPosts = 0;
    }
  });

  it("a chart Slack keeps refusing: the report goes without it, the chart in its thread, nothing lost", async () => {
    h.fake.fileProcessingPosts = 5;
    try {
      const before = h.fake.messages.length;
      const uploadsBefore = h.fake.callsOf("files.completeUploadExternal").length;
      await answer(`report now ${campaignId}`, ALICE);
      const posts = h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL");
      expect(posts).toHaveLength(1);
      expect(((posts[0]?.blocks ?? []) as Array<{ type: string }>).some((b) => b.type === "image")).toBe(
        false,
      );
      expect(textOf(posts[0]?.blocks)).toMatch(/Black Friday/);
      const inThread = await h.fake.waitFor(
        () =>
          h.fake
            .callsOf("files.completeUploadExternal")
            .slice(uploadsBefore)
            .find((c) => c.args.thread_ts === posts[0]?.ts),
        15_000,
        "the chart uploaded into the report's thread",
      );
      expect(inThread.args.channel_id).toBe("C0GENERAL");
    } finally {
      h.fake.fileProcessingPosts = 0;
    }
  });

  it("for someone who may not write, answers privately and posts nothing in the channel", async () => {
    const before = h.fake.messages.length;
    const filesBefore = h.fake.files.size;
    const r = await answer(`report now ${campaignId}`, BOB);
    expect(r.body.response_type).toBe("ephemeral");
    expect(String(r.body.text)).toContain("Black Friday");
    expect(String(r.body.text)).toContain("Only you can see this report");
    const text = textOf(r.body.blocks as never);
    expect(text).toMatch(/\b40 pending\b/);
    // In the user's zone (Bob's Slack profile: New York).
    expect(text).toContain("GMT-5");
    expect(h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL")).toEqual([]);
    expect(h.fake.files.size).toBe(filesBefore);
  });

  it("report now of an unknown campaign says so and posts nothing", async () => {
    const before = h.fake.messages.length;
    const r = await answer("report now 99999");
    expect(String(r.body.text)).toContain("There is no campaign #99999");
    expect(h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL")).toEqual([]);
  });

  it("report now where the bot cannot post says how to fix it", async () => {
    const r = await answer(`report now ${campaignId}`, ALICE, "G0SECRET1");
    expect(String(r.body.text)).toMatch(/I am not in this channel, or it was archived\. Invite me/);
    expect(h.fake.messages.filter((m) => m.channel === "G0SECRET1")).toEqual([]);
  });

  it("a due slot is posted once through the app's Slack poster", async () => {
    const row = (await schedules()).find((s) => s.channel === "C0GENERAL")!;
    // Monday 24 Nov, 09:00 Paris.
    const slot = new Date("2025-11-24T08:00:00Z");
    h.clock.advance(slot.getTime() - h.clock.now().getTime());
    const before = h.fake.messages.length;
    const outcome = await h.runtime.scheduler!.runSlot(row.id, slot);
    expect(outcome).toMatchObject({ kind: "posted", late: false });
    const posted = h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL");
    expect(posted).toHaveLength(1);
    expect(posted[0]?.text).toContain("Black Friday");
    expect(await h.runtime.scheduler!.runSlot(row.id, slot)).toMatchObject({ kind: "skipped" });
    expect(h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL")).toHaveLength(1);
  });

  it("a report Slack refuses (private channel the bot is not in) is failed, not posted, and retryable", async () => {
    const row = await h.switchboard.reports.store.createSchedule(
      {
        channel: "G0SECRET1",
        target: "running",
        cron: "0 9 * * *",
        tz: "Europe/Paris",
        description: "every day at 09:00 (Europe/Paris)",
        createdBy: ALICE.id,
      },
      new Date("2025-11-01T00:00:00Z"),
    );
    const slot = new Date("2025-11-24T08:00:00Z");
    await expect(h.runtime.scheduler!.runSlot(row.id, slot)).rejects.toThrow(/not_in_channel/);
    const run = await h.switchboard.reports.store.getRun(row.id, slot);
    expect(run?.state).toBe("failed");
    await h.switchboard.reports.removeSchedule(row.number);
  });

  it("after a restart, the report missed while down is posted once, marked late", async () => {
    await h.runtime.stop();
    const row = (await schedules()).find((s) => s.channel === "C0GENERAL")!;
    // Down over Tuesday's 09:00; back at 10:30 Paris.
    h.clock.advance(new Date("2025-11-25T09:30:00Z").getTime() - h.clock.now().getTime());
    const before = h.fake.messages.length;
    await h.restart();
    const late = await h.fake.waitFor(
      () => h.fake.messages.slice(before).find((m) => m.channel === "C0GENERAL"),
      30_000,
      "the late report",
    );
    expect(textOf(late.blocks)).toMatch(/Late:.*Tue 25 Nov 2025, 09:00/);
    const run = await eventually(async () => {
      const r = await h.switchboard.reports.store.getRun(row.id, new Date("2025-11-25T08:00:00Z"));
      return r?.state === "posted" ? r : undefined;
    }, "the run marked posted");
    expect(run.late).toBe(true);
    // Starting again finds it posted: nothing more is queued.
    expect(await h.runtime.scheduler!.catchUp()).toBe(0);
  });
});

describe("the shell", () => {
  it("stores schedules with the machine's zone, needs a channel, and prints report now", async () => {
    const { logger } = captureLogger();
    const config = loadConfig({
      MESSAGING_API_URL: h.sandbox.url,
      MESSAGING_API_KEY: h.sandbox.apiKey,
      LOG_LEVEL: "silent",
    });
    const shell = await createSwitchboard(config, { logger, db: h.db });
    try {
      const actor = { userId: "shell", via: "shell" as const };
      const noChannel = await shell.core.run("report running every day at 08:00", actor);
      expect(noChannel.text).toMatch(/channel.*is required in the shell/s);

      const before = (await shell.reports.listSchedules()).length;
      const slacks = (await schedules()).length;
      const made = await shell.core.run("report running every day at 08:00 C0GENERAL", actor);
      expect(made.text).toContain(`(${machineTimeZone()})`);
      expect(textOf(made.blocks)).toContain("posted only while Switchboard runs in Slack");
      expect(await shell.reports.listSchedules()).toHaveLength(before + 1);
      // The shell's workspace (`env`) is not the Slack workspace's, though both keep their rows in one database.
      expect(await schedules()).toHaveLength(slacks);

      const now = await shell.core.run(`report now ${campaignId}`, actor);
      expect(now.text).toContain("Black Friday");
      expect(textOf(now.blocks)).toMatch(/\b4 failed\b/);
    } finally {
      await shell.close();
    }
  });
});

describe("/sb report now all", () => {
  it("posts a report of several campaigns with failures: one Failed recipients button each, ids unique", async () => {
    // Two more campaigns with failures: each gets its own button in the same message.
    const more = [
      await seedCampaign(h.sandbox.db, {
        name: "Cyber Monday",
        status: "completed",
        counts: { delivered: 50, read: 10, failed: 5 },
      }),
      await seedCampaign(h.sandbox.db, {
        name: "Winter sale",
        status: "completed",
        counts: { delivered: 30, failed: 2 },
      }),
    ];
    const before = h.fake.messages.length;
    const r = await answer("report now all", ALICE);
    expect(String(r.body.text)).toMatch(/^Report on .* posted in <#C0GENERAL>/);
    const posts = h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL");
    expect(posts.length).toBeGreaterThan(0);
    for (const p of posts) {
      const ids = buttonsOf(p.blocks).map((b) => b.action_id);
      expect(new Set(ids).size).toBe(ids.length);
    }
    const values = posts.flatMap((p) => buttonsOf(p.blocks).map((b) => b.value));
    for (const id of [campaignId, ...more])
      expect(values).toContain(`campaign ${id} recipients status=failed`);
  });

  it("a report Slack refuses for its blocks is told as a refusal, not as 'invite me'", async () => {
    // Every try (with the chart, once more, without it) refused: nothing is posted.
    h.fake.refuseNext("chat.postMessage", "invalid_blocks", 3);
    try {
      const before = h.fake.messages.length;
      const r = await answer(`report now ${campaignId}`, ALICE);
      const text = String(r.body.text);
      expect(text).toContain("Slack refused the report, so nothing was posted");
      expect(text).not.toMatch(/invite|not in this channel|archived/i);
      expect(h.fake.messages.slice(before).filter((m) => m.channel === "C0GENERAL")).toEqual([]);
    } finally {
      h.fake.refuseNext("chat.postMessage", "invalid_blocks", 0);
    }
  });
});
