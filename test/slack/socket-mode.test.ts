// Socket Mode end to end (issue 10 §6), against a fake Slack on loopback: the
// app opens its connection through apps.connections.open at SLACK_API_URL
// (not slack.com), then a slash command, a button click and an event arrive
// as envelopes on the WebSocket (the payloads of test/fakes/slack-requests.ts),
// are acked and answered as the core replies; Slack's `disconnect`
// (refresh_requested) makes it reconnect; an event delivered again (the same
// event id, a retry) is handled once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/blocks/actions.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { blockActions, eventCallback, slashCommand } from "../fakes/slack-requests.ts";
import { ALICE, slackEnv, startFakeSlack } from "../helpers/fake-slack.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { manifestFunctions } from "./steps-harness.ts";

let stack: Stack;
let fake: FakeSlack;
let stopApp: (() => Promise<void>) | undefined;

beforeAll(async () => {
  fake = await startFakeSlack();
  stack = await startStack({ mode: "single", env: { ...slackEnv(fake, "socket"), PORT: "0" } });
  const { startSlackApp } = await import("../../src/slack/app.ts");
  const app = await startSlackApp(stack.switchboard.deployment, stack.config, stack.logger);
  expect(app.mode).toBe("socket");
  stopApp = () => app.stop();
}, 60_000);

afterAll(async () => {
  await stopApp?.();
  await stack?.close();
  await fake?.close();
});

const alice: Actor = { userId: ALICE.id, userName: ALICE.name, channelId: "C0GENERAL", via: "slack" };

/** What alice is answered, privately at the response_url, for `line`: the core's reply to her. */
async function expectAnswer(responseUrl: string, line: string) {
  const answer = await fake.waitForResponse(responseUrl, 1, 20_000);
  const reply: Reply = await stack.core.run(line, alice);
  expect(reply.visibility).toBe("ephemeral");
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({
    response_type: "ephemeral",
    text: reply.text.trim(),
    blocks: reply.blocks,
  });
}

const homeOpened = (eventId: string) =>
  eventCallback(
    fake,
    { type: "app_home_opened", user: ALICE.id, channel: "D0ALICE", tab: "home", event_ts: "1.0" },
    { eventId },
  ).payload;

describe("Socket Mode", () => {
  it("connects through apps.connections.open at SLACK_API_URL with the app token", async () => {
    await fake.socketMode.connected(1);
    const open = fake.callsOf("apps.connections.open");
    expect(open.length).toBeGreaterThanOrEqual(1);
    expect(open[0]?.response.ok).toBe(true);
  });

  it("answers a slash command envelope: acked, then the answer at its response_url", async () => {
    const c = slashCommand(fake, "help", { user: ALICE });
    const ack = await fake.socketMode.send("slash_commands", c.payload);
    expect(ack.envelope_id).toBeTruthy();
    await expectAnswer(c.responseUrl, "help");
  });

  it("handles a button click (block_actions) envelope: the button's command answered", async () => {
    const click = blockActions(fake, { action_id: ACTION.run, value: "help" }, { user: ALICE });
    const ack = await fake.socketMode.send("interactive", click.payload);
    expect(ack.envelope_id).toBeTruthy();
    await expectAnswer(click.responseUrl as string, "help");
  });

  it("handles an event, and the same event delivered again (a retry) once", async () => {
    const before = fake.callsOf("views.publish").length;
    await fake.socketMode.send("events_api", homeOpened("Ev0SOCKET1"), {
      retry_attempt: 0,
      retry_reason: "",
    });
    const publish = await fake.waitFor(() => fake.callsOf("views.publish")[before], 20_000, "the Home tab");
    expect(publish.response.ok).toBe(true);
    expect(publish.args.user_id).toBe(ALICE.id);
    expect((publish.args.view as { type?: string }).type).toBe("home");
    // Slack did not see the ack in time and sends it again: a new envelope, the same event id.
    await fake.socketMode.send("events_api", homeOpened("Ev0SOCKET1"), {
      retry_attempt: 1,
      retry_reason: "timeout",
    });
    await stack.waitForLog((l) => l.msg === "repeated Slack event dropped" && l.eventId === "Ev0SOCKET1");
    expect(fake.callsOf("views.publish").length).toBe(before + 1);
  });

  it("acknowledges a workflow step's event delivered again (a redelivery), and runs the step once", async () => {
    fake.defineFunctions(manifestFunctions());
    // No such contact: the step fails in words, an answer to Slack all the same.
    const { execution, event } = fake.executeFunction("look_up_contact", { email: "ana@example.com" });
    const envelope = () => ({
      token: "deprecated-verification-token",
      team_id: fake.teamId,
      api_app_id: "A0SWITCH",
      type: "event_callback",
      event_id: "Ev0SOCKETFN",
      event_time: Math.floor(Date.now() / 1000),
      event,
    });
    const first = await fake.socketMode.send("events_api", envelope(), {
      retry_attempt: 0,
      retry_reason: "",
    });
    expect(first.envelope_id).toBeTruthy();
    await fake.waitFor(() => execution.state !== "running", 20_000, "the step's end");
    // The redelivery gets its own ack (send() waits for it), and no second answer to Slack.
    const again = await fake.socketMode.send("events_api", envelope(), {
      retry_attempt: 1,
      retry_reason: "timeout",
    });
    expect(again.envelope_id).not.toBe(first.envelope_id);
    await stack.waitForLog((l) => l.msg === "repeated Slack event dropped" && l.eventId === "Ev0SOCKETFN");
    const endings = fake.calls.filter(
      (c) => c.method.startsWith("functions.complete") && c.args.function_execution_id === execution.id,
    );
    expect(endings).toHaveLength(1);
  });

  it("reconnects when Slack sends disconnect (refresh_requested), and works on the new connection", async () => {
    const opened = fake.callsOf("apps.connections.open").length;
    const connections = fake.socketMode.connections.length;
    await fake.socketMode.disconnect("refresh_requested");
    await fake.socketMode.connected(connections + 1);
    expect(fake.callsOf("apps.connections.open").length).toBeGreaterThan(opened);
    const c = slashCommand(fake, "help", { user: ALICE });
    await fake.socketMode.send("slash_commands", c.payload);
    await expectAnswer(c.responseUrl, "help");
  });
});
