// The Bolt app end to end: signed requests into the real HTTP receiver, the
// answers recorded by the fake Slack. The core here is TestCore (a small real
// CommandCore) so that crashes, slow forms and over-limit replies can be
// provoked; core.test.ts runs the same app on the real core and sandbox.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/commands/types.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { createSlackApp } from "../../src/slack/app.ts";
import { oneWorkspace } from "../../src/slack/tenancy/scope.ts";
import { captureLogger } from "../helpers/log.ts";
import { type Harness, startHarness } from "./harness.ts";
import { TestCore } from "./test-core.ts";

let h: Harness;
let core: TestCore;

beforeAll(async () => {
  h = await startHarness(
    () => {
      core = new TestCore();
      return core;
    },
    { env: { AUDIT_CHANNEL: "C0AUDIT" } },
  );
  h.fake.addChannel({ id: "C0AUDIT", name: "audit" });
});
afterAll(() => h.close());

type Block = { type: string; elements?: Array<{ action_id?: string; value?: string; text?: unknown }> };
const hasButtons = (blocks: unknown) =>
  ((blocks as Block[] | undefined) ?? []).some((b) => b.type === "actions");

describe("HTTP receiver", () => {
  it("answers GET /healthz", async () => {
    const res = await fetch(`${h.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("refuses a wrong signature with 401 and runs nothing", async () => {
    const before = core.lines.length;
    const res = await h.req.command("help", { secret: "not-the-secret" });
    expect(res.status).toBe(401);
    const stale = await h.req.command("help", { timestamp: Math.floor(Date.now() / 1000) - 10 * 60 });
    expect(stale.status).toBe(401);
    // Signed with a timestamp 10 minutes ahead: refused as well (Bolt alone checks only the past).
    const future = await h.req.command("help", { timestamp: Math.floor(Date.now() / 1000) + 10 * 60 });
    expect(future.status).toBe(401);
    // A valid request after them is answered, and only it reached the core.
    const ok = await h.req.command("help");
    expect(ok.status).toBe(200);
    await h.fake.waitForResponse(ok.responseUrl as string);
    expect(core.lines.length).toBe(before + 1);
    expect(h.fake.responsesTo(res.responseUrl as string)).toEqual([]);
    expect(h.fake.responsesTo(stale.responseUrl as string)).toEqual([]);
    expect(h.fake.responsesTo(future.responseUrl as string)).toEqual([]);
  });

  it.each([
    ["ahead of", 4 * 60],
    ["behind", -4 * 60],
  ])("accepts a request signed 4 minutes %s its clock (up to 5 either side)", async (_side, seconds) => {
    const res = await h.req.command("help", { timestamp: Math.floor(Date.now() / 1000) + seconds });
    expect(res.status).toBe(200);
    await h.fake.waitForResponse(res.responseUrl as string);
  });

  it("refuses a body that was changed after signing", async () => {
    const form = new URLSearchParams({ command: "/sb", text: "help", user_id: "U0ALICE" }).toString();
    const timestamp = Math.floor(Date.now() / 1000);
    const { sign } = await import("../fakes/slack-requests.ts");
    const res = await fetch(`${h.baseUrl}/slack/events`, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-slack-request-timestamp": String(timestamp),
        "x-slack-signature": sign("test-signing-secret-0123456789abcdef", timestamp, form),
      },
      body: form.replace("help", "tag+add+x"),
    });
    expect(res.status).toBe(401);
  });
});

describe("slash commands", () => {
  it("acks with an empty 200 and answers ephemerally through response_url", async () => {
    const res = await h.req.command("help");
    expect(res.status).toBe(200);
    expect(res.body).toBe("");
    const answer = await h.fake.waitForResponse(res.responseUrl as string);
    expect(answer.status).toBe(200);
    expect(answer.body.response_type).toBe("ephemeral");
    expect(answer.body.text).toBe("Switchboard help");
    expect(core.lines.at(-1)?.actor).toMatchObject({
      userId: "U0ALICE",
      channelId: "C0GENERAL",
      via: "slack",
    });
  });

  it("answers whatever the command is called", async () => {
    const res = await h.req.command("help", { command: "/switchboard" });
    expect(res.status).toBe(200);
    expect((await h.fake.waitForResponse(res.responseUrl as string)).body.text).toBe("Switchboard help");
  });

  it("posts in_channel answers to the channel, naming who did it, one a second per channel", async () => {
    const postsBefore = h.fake.callsOf("chat.postMessage").length;
    const [a, b] = await Promise.all([h.req.command("tag add vip"), h.req.command("tag add gold")]);
    expect([a.status, b.status]).toEqual([200, 200]);
    await h.fake.waitFor(
      () =>
        h.fake.messages.filter(
          (m) => m.channel === "C0GENERAL" && /Tag (vip|gold) created/.test(m.text ?? ""),
        ).length === 2,
      10_000,
      "two tag posts",
    );
    const posts = h.fake.messages.filter(
      (m) => m.channel === "C0GENERAL" && /Tag (vip|gold)/.test(m.text ?? ""),
    );
    for (const p of posts) {
      expect(p.text).toContain("<@U0ALICE>");
      expect(JSON.stringify(p.blocks)).toContain("by <@U0ALICE>");
    }
    // The queue spaced them: Slack (the fake) refused none.
    const calls = h.fake.callsOf("chat.postMessage").slice(postsBefore);
    expect(calls.filter((c) => c.status === 429)).toEqual([]);
    expect(h.fake.responsesTo(a.responseUrl as string)).toEqual([]);
  });

  it("falls back to response_url for a private channel the bot is not in", async () => {
    h.fake.addChannel({ id: "G0PRIV", name: "private", is_private: true, is_member: false });
    const res = await h.req.command("tag add secret", { channelId: "G0PRIV" });
    const answer = await h.fake.waitForResponse(res.responseUrl as string);
    expect(answer.body.response_type).toBe("in_channel");
    expect(answer.body.text).toContain("Tag secret created");
    expect(answer.body.text).toContain("<@U0ALICE>");
  });

  it("keeps an over-long reply within 50 blocks", async () => {
    const res = await h.req.command("long");
    const answer = await h.fake.waitForResponse(res.responseUrl as string);
    expect(answer.status).toBe(200);
    expect((answer.body.blocks as unknown[]).length).toBe(50);
  });

  it("shows a reference, not the error, when the core fails, and logs the error", async () => {
    const res = await h.req.command("boom");
    expect(res.status).toBe(200);
    const answer = await h.fake.waitForResponse(res.responseUrl as string);
    const text = String(answer.body.text);
    const ref = /ref ([0-9a-f]{8})/.exec(text)?.[1];
    expect(ref).toBeDefined();
    expect(text).not.toContain("exploded");
    expect(text).not.toContain("/srv/secret");
    const logged = await h.waitForLog((l) => l.ref === ref);
    expect(JSON.stringify(logged.err)).toContain("database exploded");
  });

  it("reports a reply Slack refuses (section over 3000 characters) as a failure with a reference", async () => {
    const res = await h.req.command("toolong");
    const [refused, told] = await h.fake.waitFor(() => {
      const r = h.fake.responsesTo(res.responseUrl as string);
      return r.length >= 2 ? r : undefined;
    });
    expect(refused?.error).toBe("invalid_blocks");
    expect(told?.body.text).toMatch(/Something went wrong \(ref [0-9a-f]{8}\)/);
  });
});

describe("buttons", () => {
  it("pages an ephemeral list in place", async () => {
    const first = await h.req.command("tags");
    const page1 = await h.fake.waitForResponse(first.responseUrl as string);
    const next = (page1.body.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION.run);
    expect(next?.value).toBe("tags page=2");
    const click = await h.req.blockAction(
      { action_id: ACTION.run, value: next?.value },
      { responseUrl: first.responseUrl },
    );
    expect(click.status).toBe(200);
    const page2 = await h.fake.waitForResponse(first.responseUrl as string, 2);
    expect(page2.body.replace_original).toBe(true);
    expect(page2.body.text).toBe("Tags, page 2 of 3");
    // The "Previous" button carries a suffixed id (`sb_run:2`) and still runs.
    const prev = (page2.body.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.value === "tags page=1");
    expect(prev?.action_id).toBe(`${ACTION.run}:2`);
    await h.req.blockAction(
      { action_id: prev?.action_id as string, value: prev?.value },
      { responseUrl: first.responseUrl },
    );
    expect((await h.fake.waitForResponse(first.responseUrl as string, 3)).body.text).toBe(
      "Tags, page 1 of 3",
    );
  });

  it("sends once when Confirm is clicked twice at once, and takes the buttons away", async () => {
    const ask = await h.req.command("campaign 7 send");
    const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
    const confirm = (prompt.body.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION.confirm);
    const id = confirm?.value as string;
    const postsBefore = h.fake.messages.filter((m) => m.text?.includes("Campaign 7 is sending")).length;
    const clicks = await Promise.all([
      h.req.blockAction({ action_id: ACTION.confirm, value: id }, { responseUrl: ask.responseUrl }),
      h.req.blockAction(
        { action_id: ACTION.confirm, value: id },
        { responseUrl: ask.responseUrl, user: { id: "U0BOB" } },
      ),
    ]);
    expect(clicks.map((c) => c.status)).toEqual([200, 200]);
    await h.fake.waitFor(
      () => h.fake.messages.some((m) => m.text?.includes("Campaign 7 is sending")),
      10_000,
      "the send post",
    );
    await h.fake.waitFor(
      () => h.fake.responsesTo(ask.responseUrl as string).some((r) => r.body.delete_original === true),
      10_000,
      "the prompt deleted once the outcome is in the channel",
    );
    expect(core.sends.filter((s) => s === id)).toEqual([id]);
    expect(h.fake.messages.filter((m) => m.text?.includes("Campaign 7 is sending")).length).toBe(
      postsBefore + 1,
    );
    // Every replacement of the prompt is without buttons.
    const replacements = h.fake
      .responsesTo(ask.responseUrl as string)
      .filter((r) => r.body.replace_original === true);
    expect(replacements.length).toBeGreaterThan(0);
    for (const r of replacements) expect(hasButtons(r.body.blocks)).toBe(false);
    // A later click reaches the core, which says it was handled already.
    const late = await h.req.blockAction(
      { action_id: ACTION.confirm, value: id },
      { responseUrl: ask.responseUrl },
    );
    await h.fake.waitFor(() =>
      h.fake
        .responsesTo(late.responseUrl as string)
        .find((r) => String(r.body.text).includes("Already handled")),
    );
    expect(core.sends.filter((s) => s === id)).toEqual([id]);
  });

  it("dismisses a confirmation and replaces the prompt", async () => {
    const ask = await h.req.command("campaign 8 send");
    const prompt = await h.fake.waitForResponse(ask.responseUrl as string);
    const cancel = (prompt.body.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION.dismiss);
    await h.req.blockAction(
      { action_id: ACTION.dismiss, value: cancel?.value },
      { responseUrl: ask.responseUrl },
    );
    const replaced = await h.fake.waitForResponse(ask.responseUrl as string, 2);
    expect(replaced.body.replace_original).toBe(true);
    expect(replaced.body.text).toBe("Cancelled");
    expect(hasButtons(replaced.body.blocks)).toBe(false);
    expect(core.dismissed).toContain(cancel?.value);
    expect(core.sends).not.toContain(cancel?.value);
  });

  it("answers a Home tab button in the app's DM (no response_url there)", async () => {
    const click = await h.req.blockAction(
      { action_id: ACTION.run, value: "help" },
      { home: true, user: { id: "U0BOB" } },
    );
    expect(click.status).toBe(200);
    const dm = await h.fake.waitFor(() => h.fake.messages.find((m) => m.channel === "U0BOB"));
    expect(dm.text).toBe("Switchboard help");
  });
});

describe("modals", () => {
  it("opens the modal with the command's trigger_id", async () => {
    const res = await h.req.command("campaign new");
    const call = await h.fake.waitFor(() =>
      h.fake.callsOf("views.open").find((c) => c.args.trigger_id === res.triggerId),
    );
    expect(call.response.ok).toBe(true);
    expect((call.args.view as { title: { text: string } }).title.text).toBe("New campaign");
    expect(h.fake.responsesTo(res.responseUrl as string)).toEqual([]);
  });

  it("offers a button when the trigger expired before the form was ready", async () => {
    const realNow = h.fake.now;
    // The core is slow: by the time the form is ready, the trigger is a minute old.
    core.beforeSlowForm = () => {
      h.fake.now = () => realNow() + 60_000;
    };
    const res = await h.req.command("slowform");
    const answer = await h.fake.waitForResponse(res.responseUrl as string);
    h.fake.now = realNow;
    core.beforeSlowForm = () => {};
    expect(
      h.fake.callsOf("views.open").find((c) => c.args.trigger_id === res.triggerId)?.response.error,
    ).toBe("expired_trigger_id");
    const button = (answer.body.blocks as Block[])
      .flatMap((b) => b.elements ?? [])
      .find((e) => e.action_id === ACTION.run);
    expect(button?.value).toBe("slowform");
    // The click brings a fresh trigger_id, and the form opens.
    const click = await h.req.blockAction(
      { action_id: ACTION.run, value: "slowform" },
      { responseUrl: res.responseUrl },
    );
    const opened = await h.fake.waitFor(() =>
      h.fake.callsOf("views.open").find((c) => c.args.trigger_id === click.triggerId),
    );
    expect(opened.response.ok).toBe(true);
  });
});

describe("events", () => {
  it("handles a retried event once", async () => {
    const event = { type: "app_home_opened", user: "U0ALICE", channel: "D0HOME", tab: "home" };
    const first = await h.req.event(event);
    expect(first.status).toBe(200);
    await h.fake.waitFor(() => h.fake.callsOf("views.publish").find((c) => c.args.user_id === "U0ALICE"));
    const retry = await h.req.event(event, { eventId: first.eventId, retryNum: 1 });
    expect(retry.status).toBe(200);
    await h.waitForLog((l) => l.eventId === first.eventId && l.retryNum === 1);
    expect(h.fake.callsOf("views.publish").filter((c) => c.args.user_id === "U0ALICE").length).toBe(1);
    // A new event is still handled.
    await h.req.event({ ...event, user: "U0BOB" });
    await h.fake.waitFor(() => h.fake.callsOf("views.publish").find((c) => c.args.user_id === "U0BOB"));
  });

  it("passes file_shared to the import hook", async () => {
    const seen = new Promise<string>((resolve) => {
      h.slack.hooks.onFileShared = async ({ fileId }) => resolve(fileId);
    });
    const res = await h.req.event({
      type: "file_shared",
      file_id: "F0CSV",
      user_id: "U0ALICE",
      channel_id: "C0GENERAL",
      file: { id: "F0CSV" },
    });
    expect(res.status).toBe(200);
    expect(await seen).toBe("F0CSV");
  });
});

describe("who may do what, and the audit channel", () => {
  it("resolves user group members through usergroups.users.list, cached", async () => {
    h.fake.setUserGroup("S0OPS", ["U0ALICE", "U0BOB"]);
    const before = h.fake.callsOf("usergroups.users.list").length;
    expect(await h.slack.resolveGroupMembers("S0OPS")).toEqual(["U0ALICE", "U0BOB"]);
    expect(await h.slack.resolveGroupMembers("S0OPS")).toEqual(["U0ALICE", "U0BOB"]);
    expect(h.fake.callsOf("usergroups.users.list").length).toBe(before + 1);
    // An unknown group has no members (fail closed).
    expect(await h.slack.resolveGroupMembers("S0NONE")).toEqual([]);
  });

  it("posts audit entries to AUDIT_CHANNEL", async () => {
    h.bridge.onAudit({
      at: new Date("2025-01-02T03:04:05Z"),
      actor: "U0ALICE",
      via: "slack",
      channel: "C0GENERAL",
      command: "tag add vip",
      operation: "createTag",
      ok: true,
      status: 201,
    });
    const post = await h.fake.waitFor(() => h.fake.messages.find((m) => m.channel === "C0AUDIT"));
    expect(post.text).toContain("<@U0ALICE>");
    expect(post.text).not.toMatch(/createTag|201/);
  });

  it("audit lines read as sentences about people and things, like the Home tab's (issue 22 §7)", async () => {
    const before = h.fake.messages.length;
    const at = new Date("2025-01-02T03:04:05Z");
    const base = { at, actor: "U0ALICE", via: "slack" as const, channel: "C0GENERAL", ok: true, status: 200 };
    h.bridge.onAudit({
      ...base,
      how: "typed",
      command: "tag add vip",
      operation: "createTag",
      answer: { id: 3, name: "vip" },
    });
    h.bridge.onAudit({
      ...base,
      command: "import (upload 7f3c2a10-5b1e-4c8e-9d2a-0e6f1b2c3d4e)",
      operation: "importContacts",
      answer: { created: 3, updated: 0, errors: 2 },
    });
    h.bridge.onAudit({ ...base, command: "contact 12 delete", operation: "deleteContact" });
    const posts = await h.fake.waitFor(() => {
      const mine = h.fake.messages.slice(before).filter((m) => m.channel === "C0AUDIT");
      return mine.length >= 3 ? mine : undefined;
    });
    const texts = posts.map((m) => `${m.text}\n${JSON.stringify(m.blocks)}`);
    expect(posts.map((m) => m.text)).toEqual([
      ":white_check_mark: <@U0ALICE> created tag *vip*",
      ":white_check_mark: <@U0ALICE> imported contacts: 3 created, 0 updated, 2 failed",
      ":white_check_mark: <@U0ALICE> deleted contact #12",
    ]);
    expect(texts[0]).toContain("Typed in <#C0GENERAL>: `tag add vip`");
    for (const t of texts) {
      expect(t).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-|\(multipart\)|soft-delete|a change: done|→/);
    }
  });
});

describe("configuration", () => {
  const base = { SLACK_BOT_TOKEN: "xoxb-1", LOG_LEVEL: "silent" };
  const make = (env: Record<string, string>) =>
    createSlackApp({
      workspaces: oneWorkspace(() => ({ core: new TestCore() })),
      config: loadConfig(env),
      logger: captureLogger().logger,
    });

  it("uses Socket Mode when SLACK_APP_TOKEN is set (no signing secret needed)", () => {
    expect(make({ ...base, SLACK_APP_TOKEN: "xapp-1" }).mode).toBe("socket");
  });

  it("uses HTTP mode otherwise, and says which setting is missing", () => {
    expect(make({ ...base, SLACK_SIGNING_SECRET: "s" }).mode).toBe("http");
    expect(() => make(base)).toThrow(/SLACK_SIGNING_SECRET/);
    expect(() => make({ LOG_LEVEL: "silent", SLACK_SIGNING_SECRET: "s" })).toThrow(/SLACK_BOT_TOKEN/);
  });
});

describe("start-up", () => {
  it("stops with a clear message when Slack refuses the bot token", async () => {
    const config = loadConfig({
      SLACK_BOT_TOKEN: "xoxb-wrong",
      SLACK_SIGNING_SECRET: "s",
      SLACK_API_URL: h.fake.apiUrl,
      LOG_LEVEL: "silent",
    });
    const app = createSlackApp({
      workspaces: oneWorkspace(() => ({ core: new TestCore() })),
      config,
      logger: captureLogger().logger,
    });
    await expect(app.start({ port: 0, host: "127.0.0.1" })).rejects.toThrow(
      /SLACK_BOT_TOKEN \(invalid_auth\)/,
    );
    await app.stop().catch(() => {});
  });
});
