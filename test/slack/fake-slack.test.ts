// The fake Slack must refuse what Slack refuses, or the end-to-end tests
// prove nothing. These drive it with the real WebClient.
import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeSlack } from "../fakes/slack.ts";

let fake: FakeSlack;
let clock = 1_700_000_000_000;
let client: webApi.WebClient;

const section = (text: string) => ({ type: "section", text: { type: "mrkdwn", text } });
const button = (text: string, action_id: string) => ({
  type: "button",
  action_id,
  text: { type: "plain_text", text },
  value: "v",
});

async function failure(
  p: Promise<unknown>,
): Promise<{ error?: string; messages?: string[]; retryAfter?: number }> {
  try {
    await p;
  } catch (err) {
    const e = err as {
      code?: string;
      data?: { error?: string; response_metadata?: { messages?: string[] } };
      retryAfter?: number;
    };
    return {
      error: e.data?.error ?? e.code,
      messages: e.data?.response_metadata?.messages,
      retryAfter: e.retryAfter,
    };
  }
  throw new Error("expected the call to be refused");
}

// Each post goes to its own channel unless the test is about the per-channel rate.
let n = 0;
const freshChannel = () => fake.addChannel({ id: `C${++n}`, name: `c${n}` }).id;

beforeAll(async () => {
  fake = await FakeSlack.start({ now: () => clock });
  client = new webApi.WebClient(fake.botToken, {
    slackApiUrl: fake.apiUrl,
    rejectRateLimitedCalls: true,
    retryConfig: { retries: 0 },
  });
});
afterAll(() => fake.close());

describe("fake Slack Web API", () => {
  it("checks the bearer token", async () => {
    const bad = new webApi.WebClient("xoxb-wrong", { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });
    expect((await failure(bad.auth.test())).error).toBe("invalid_auth");
    const ok = await client.auth.test();
    expect(ok.user_id).toBe(fake.botUserId);
  });

  it("posts a valid message and records the call", async () => {
    const channel = freshChannel();
    const res = await client.chat.postMessage({ channel, text: "hello", blocks: [section("hello")] });
    expect(res.ok).toBe(true);
    expect(fake.messages.find((m) => m.ts === res.ts)?.text).toBe("hello");
    const call = fake.callsOf("chat.postMessage").at(-1);
    expect(call?.args.channel).toBe(channel);
    expect(call?.args.blocks).toEqual([section("hello")]);
  });

  it.each([
    [
      "more than 50 blocks",
      Array.from({ length: 51 }, (_, i) => section(`s${i}`)),
      "must be less than 51 items",
    ],
    ["section text over 3000", [section("x".repeat(3001))], "must be less than 3001 characters"],
    ["header over 150", [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }], "151"],
    ["button text over 75", [{ type: "actions", elements: [button("b".repeat(76), "a1")] }], "76"],
    [
      "duplicate action_id",
      [{ type: "actions", elements: [button("one", "same"), button("two", "same")] }],
      "duplicate action_id",
    ],
    [
      "duplicate block_id",
      [
        { ...section("a"), block_id: "b" },
        { ...section("b"), block_id: "b" },
      ],
      "duplicate block_id",
    ],
    [
      "an input block in a message",
      [{ type: "input", label: { type: "plain_text", text: "l" }, element: { type: "plain_text_input" } }],
      "input",
    ],
    ["an unknown block type", [{ type: "table" }], "unsupported block type"],
  ])("refuses %s with invalid_blocks", async (_what, blocks, hint) => {
    const channel = freshChannel();
    const before = fake.messages.length;
    const f = await failure(client.chat.postMessage({ channel, text: "fallback", blocks: blocks as never }));
    expect(f.error).toBe("invalid_blocks");
    expect(f.messages?.join("\n")).toContain(hint);
    expect(fake.messages.length).toBe(before);
  });

  it("accepts exactly 50 blocks, 3000 characters and a 75-character button", async () => {
    const blocks = [
      ...Array.from({ length: 48 }, (_, i) => section(`s${i}`)),
      section("x".repeat(3000)),
      { type: "actions", elements: [button("b".repeat(75), "a1")] },
    ];
    const res = await client.chat.postMessage({
      channel: freshChannel(),
      text: "ok",
      blocks: blocks as never,
    });
    expect(res.ok).toBe(true);
  });

  it("refuses blocks without fallback text, and an over-long text", async () => {
    expect(
      (await failure(client.chat.postMessage({ channel: freshChannel(), blocks: [section("x")] } as never)))
        .error,
    ).toBe("no_text");
    expect(
      (await failure(client.chat.postMessage({ channel: freshChannel(), text: "x".repeat(40_001) }))).error,
    ).toBe("msg_too_long");
  });

  it("refuses unknown channels and private channels the bot is not in", async () => {
    fake.addChannel({ id: "G1", name: "secret", is_private: true, is_member: false });
    expect((await failure(client.chat.postMessage({ channel: "C404", text: "x" }))).error).toBe(
      "channel_not_found",
    );
    expect((await failure(client.chat.postMessage({ channel: "G1", text: "x" }))).error).toBe(
      "not_in_channel",
    );
  });

  it("allows one message a second per channel (sliding window) with Retry-After", async () => {
    const channel = freshChannel();
    const other = freshChannel();
    await client.chat.postMessage({ channel, text: "first" });
    clock += 999;
    const f = await failure(client.chat.postMessage({ channel, text: "second" }));
    expect(f.error).toBe("slack_webapi_rate_limited_error");
    expect(f.retryAfter).toBe(1);
    expect(fake.callsOf("chat.postMessage").at(-1)?.status).toBe(429);
    // Another channel is not held back.
    expect((await client.chat.postMessage({ channel: other, text: "elsewhere" })).ok).toBe(true);
    clock += 1;
    expect((await client.chat.postMessage({ channel, text: "third" })).ok).toBe(true);
    clock += 1000;
  });

  it("updates and deletes messages it has", async () => {
    const channel = freshChannel();
    const { ts } = await client.chat.postMessage({ channel, text: "v1" });
    await client.chat.update({ channel, ts: ts as string, text: "v2", blocks: [section("v2")] });
    expect(fake.messages.find((m) => m.ts === ts)?.text).toBe("v2");
    expect((await failure(client.chat.update({ channel, ts: "1.2", text: "x" }))).error).toBe(
      "message_not_found",
    );
    expect(
      (
        await failure(
          client.chat.update({ channel, ts: ts as string, text: "v3", blocks: [section("y".repeat(3001))] }),
        )
      ).error,
    ).toBe("invalid_blocks");
    await client.chat.delete({ channel, ts: ts as string });
    expect((await failure(client.chat.update({ channel, ts: ts as string, text: "x" }))).error).toBe(
      "message_not_found",
    );
  });
});

describe("fake Slack views", () => {
  const modal = (title: string, blocks: unknown[] = [section("x")]) => ({
    type: "modal" as const,
    title: { type: "plain_text" as const, text: title },
    blocks: blocks as never,
  });

  it("opens a modal with a fresh trigger_id, once", async () => {
    const trigger = fake.newTriggerId();
    const res = await client.views.open({ trigger_id: trigger, view: modal("New campaign") });
    expect(res.view?.id).toMatch(/^V/);
    expect((await failure(client.views.open({ trigger_id: trigger, view: modal("Again") }))).error).toBe(
      "exchanged_trigger_id",
    );
  });

  it("refuses a trigger_id older than 3 seconds", async () => {
    const trigger = fake.newTriggerId();
    clock += 3001;
    expect((await failure(client.views.open({ trigger_id: trigger, view: modal("Late") }))).error).toBe(
      "expired_trigger_id",
    );
  });

  it("refuses a modal title over 24 characters and more than 100 blocks", async () => {
    const long = await failure(
      client.views.open({ trigger_id: fake.newTriggerId(), view: modal("x".repeat(25)) }),
    );
    expect(long.error).toBe("invalid_arguments");
    expect(long.messages?.join()).toContain("/view/title/text");
    const many = Array.from({ length: 101 }, (_, i) => section(`s${i}`));
    expect(
      (await failure(client.views.open({ trigger_id: fake.newTriggerId(), view: modal("Many", many) })))
        .error,
    ).toBe("invalid_arguments");
    const hundred = Array.from({ length: 100 }, (_, i) => section(`s${i}`));
    expect(
      (await client.views.open({ trigger_id: fake.newTriggerId(), view: modal("Hundred", hundred) })).ok,
    ).toBe(true);
  });

  it("updates a view by id and honours the hash", async () => {
    const opened = await client.views.open({ trigger_id: fake.newTriggerId(), view: modal("One") });
    const id = opened.view?.id as string;
    const updated = await client.views.update({ view_id: id, hash: opened.view?.hash, view: modal("Two") });
    expect(updated.view?.title?.text).toBe("Two");
    expect(
      (await failure(client.views.update({ view_id: id, hash: opened.view?.hash, view: modal("Three") })))
        .error,
    ).toBe("hash_conflict");
  });

  it("publishes a Home tab", async () => {
    const res = await client.views.publish({
      user_id: "U1",
      view: { type: "home", blocks: [section("hi")] as never },
    });
    expect(res.ok).toBe(true);
  });
});

describe("fake Slack lookups and files", () => {
  it("answers users.info, usergroups.users.list and conversations.info", async () => {
    fake.addUser({ id: "U9", name: "nine", tz: "Europe/Paris" });
    fake.setUserGroup("S1", ["U9", "U8"]);
    expect((await client.users.info({ user: "U9" })).user?.tz).toBe("Europe/Paris");
    expect((await client.usergroups.users.list({ usergroup: "S1" })).users).toEqual(["U9", "U8"]);
    expect((await failure(client.usergroups.users.list({ usergroup: "S404" }))).error).toBe(
      "no_such_subteam",
    );
    expect((await failure(client.users.info({ user: "U404" }))).error).toBe("user_not_found");
    fake.addChannel({ id: "C77", name: "ops" });
    expect((await client.conversations.info({ channel: "C77" })).channel?.name).toBe("ops");
  });

  it("serves files with the bot token only, and takes uploads", async () => {
    const file = fake.addFile({
      name: "contacts.csv",
      content: Buffer.from("phone\n+15550001\n"),
      mimetype: "text/csv",
    });
    const info = await client.files.info({ file: file.id });
    const url = info.file?.url_private_download as string;
    const ok = await fetch(url, { headers: { authorization: `Bearer ${fake.botToken}` } });
    expect(await ok.text()).toBe("phone\n+15550001\n");
    const anonymous = await fetch(url, { redirect: "manual" });
    expect(anonymous.status).toBe(302);

    fake.addChannel({ id: "C88", name: "imports" });
    const up = await client.filesUploadV2({
      channel_id: "C88",
      filename: "errors.csv",
      file: Buffer.from("row,error\n"),
    });
    expect(up.ok).toBe(true);
    const stored = [...fake.files.values()].find((f) => f.name === "errors.csv");
    expect(stored?.content.toString()).toBe("row,error\n");
  });
});

describe("fake response_url", () => {
  it("records valid posts and refuses what Slack refuses", async () => {
    const url = fake.newResponseUrl();
    const post = (body: unknown) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post({ text: "hi", response_type: "ephemeral" })).status).toBe(200);
    expect((await post({ blocks: [section("no text")] })).status).toBe(400);
    expect((await post({ text: "t", blocks: Array.from({ length: 51 }, () => section("x")) })).status).toBe(
      400,
    );
    const recorded = fake.responsesTo(url);
    expect(recorded.map((r) => r.error)).toEqual([undefined, "no_text", "invalid_blocks"]);
    // Five uses, like Slack.
    for (let i = 0; i < 4; i++) expect((await post({ text: `n${i}` })).status).toBe(200);
    expect((await post({ text: "sixth" })).status).toBe(404);
  });
});

describe("fake custom steps (functions.completeSuccess / completeError)", () => {
  const def = {
    title: "Look up",
    input_parameters: { phone: { type: "string", title: "Phone" } },
    output_parameters: {
      found: { type: "boolean", title: "Found", is_required: true },
      contact_id: { type: "integer", title: "Contact id" },
    },
  };
  const stepClient = (token: string) =>
    new webApi.WebClient(token, { slackApiUrl: fake.apiUrl, retryConfig: { retries: 0 } });

  it("sends the function_executed event as Slack does, with a token of the execution", () => {
    fake.defineFunctions({ look_up: def });
    const { execution, event } = fake.executeFunction("look_up", { phone: "+14155550123" });
    expect(event).toMatchObject({
      type: "function_executed",
      function: {
        callback_id: "look_up",
        input_parameters: [{ name: "phone", type: "string" }],
        output_parameters: [expect.objectContaining({ name: "found", is_required: true }), expect.anything()],
      },
      inputs: { phone: "+14155550123" },
      function_execution_id: execution.id,
      workflow_execution_id: execution.workflowExecutionId,
      bot_access_token: execution.token,
    });
    expect(execution.token).toMatch(/^xwfp-/);
    expect(() => fake.executeFunction("nope", {})).toThrow(/no function nope/);
  });

  it("completes once with outputs that match the definition", async () => {
    const { execution } = fake.executeFunction("look_up", {});
    const c = stepClient(execution.token);
    expect(
      (await failure(c.functions.completeSuccess({ function_execution_id: execution.id, outputs: {} })))
        .error,
    ).toBe("parameter_validation_failed");
    expect(
      (
        await failure(
          c.functions.completeSuccess({
            function_execution_id: execution.id,
            outputs: { found: true, contact_id: "12" },
          }),
        )
      ).error,
    ).toBe("parameter_validation_failed");
    await c.functions.completeSuccess({
      function_execution_id: execution.id,
      outputs: { found: true, contact_id: 12 },
    });
    expect(fake.executions.get(execution.id)).toMatchObject({
      state: "completed",
      outputs: { found: true, contact_id: 12 },
    });
    expect(
      (await failure(c.functions.completeError({ function_execution_id: execution.id, error: "late" })))
        .error,
    ).toBe("execution_not_in_running_state");
    expect(fake.callsOf("functions.completeSuccess").at(-1)?.response.ok).toBe(true);
  });

  it("fails an execution with a message; refuses unknown ids and another execution's token", async () => {
    const a = fake.executeFunction("look_up", {}).execution;
    const b = fake.executeFunction("look_up", {}).execution;
    const c = stepClient(a.token);
    expect(
      (await failure(c.functions.completeError({ function_execution_id: b.id, error: "x" }))).error,
    ).toBe("access_denied");
    expect(
      (await failure(client.functions.completeError({ function_execution_id: "Fx0NOPE", error: "x" }))).error,
    ).toBe("function_execution_not_found");
    expect((await failure(c.functions.completeError({ function_execution_id: a.id, error: "" }))).error).toBe(
      "invalid_arguments",
    );
    await c.functions.completeError({ function_execution_id: a.id, error: "No contact has this phone" });
    expect(fake.executions.get(a.id)).toMatchObject({ state: "failed", error: "No contact has this phone" });
  });
});
