// Socket Mode end to end (issue 10 §6), against a fake Slack on loopback: the
// app opens its connection through apps.connections.open at SLACK_API_URL
// (not slack.com), then a slash command, a button click and an event arrive
// as envelopes on the WebSocket and are acked; Slack's `disconnect`
// (refresh_requested) makes it reconnect; an event delivered again (the same
// event id, a retry) is handled once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACTION } from "../../src/blocks/actions.ts";
import type { FakeSlack } from "../fakes/slack.ts";
import { type Stack, startStack } from "../helpers/stack.ts";
import { manifestFunctions } from "./steps-harness.ts";

let stack: Stack;
let fake: FakeSlack;
let stopApp: (() => Promise<void>) | undefined;
const ALICE = { id: "U0ALICE", name: "alice" };

beforeAll(async () => {
  const { FakeSlack } = await import("../fakes/slack.ts");
  fake = await FakeSlack.start();
  fake.addChannel({ id: "C0GENERAL", name: "general" });
  fake.addUser(ALICE);
  stack = await startStack({
    env: {
      SLACK_BOT_TOKEN: fake.botToken,
      SLACK_APP_TOKEN: fake.appToken,
      SLACK_API_URL: fake.apiUrl,
      PORT: "0",
    },
  });
  const { startSlackApp } = await import("../../src/slack/app.ts");
  const app = await startSlackApp(stack.switchboard, stack.config, stack.logger);
  expect(app.mode).toBe("socket");
  stopApp = () => app.stop();
}, 60_000);

afterAll(async () => {
  await stopApp?.();
  await stack?.close();
  await fake?.close();
});

const command = (text: string) => {
  const responseUrl = fake.newResponseUrl();
  return {
    responseUrl,
    payload: {
      token: "deprecated-verification-token",
      team_id: fake.teamId,
      team_domain: "fake",
      channel_id: "C0GENERAL",
      channel_name: "general",
      user_id: ALICE.id,
      user_name: ALICE.name,
      command: "/sb",
      text,
      api_app_id: "A0SWITCH",
      is_enterprise_install: "false",
      response_url: responseUrl,
      trigger_id: fake.newTriggerId(),
    },
  };
};

const homeOpened = (eventId: string) => ({
  token: "deprecated-verification-token",
  team_id: fake.teamId,
  api_app_id: "A0SWITCH",
  type: "event_callback",
  event_id: eventId,
  event_time: Math.floor(Date.now() / 1000),
  event: { type: "app_home_opened", user: ALICE.id, channel: "D0ALICE", tab: "home", event_ts: "1.0" },
});

describe("Socket Mode", () => {
  it("connects through apps.connections.open at SLACK_API_URL with the app token", async () => {
    await fake.socketMode.connected(1);
    const open = fake.callsOf("apps.connections.open");
    expect(open.length).toBeGreaterThanOrEqual(1);
    expect(open[0]?.response.ok).toBe(true);
  });

  it("answers a slash command envelope: acked, then the answer at its response_url", async () => {
    const c = command("help");
    const ack = await fake.socketMode.send("slash_commands", c.payload);
    expect(ack.envelope_id).toBeTruthy();
    const answer = await fake.waitForResponse(c.responseUrl, 1, 20_000);
    expect(String(answer.body.text ?? JSON.stringify(answer.body.blocks))).toMatch(/sb/);
  });

  it("handles a button click (block_actions) envelope", async () => {
    const responseUrl = fake.newResponseUrl();
    const ts = `${Math.floor(Date.now() / 1000)}.000200`;
    const payload = {
      type: "block_actions",
      user: { id: ALICE.id, username: ALICE.name, name: ALICE.name, team_id: fake.teamId },
      api_app_id: "A0SWITCH",
      token: "deprecated-verification-token",
      container: { type: "message", message_ts: ts, channel_id: "C0GENERAL", is_ephemeral: true },
      channel: { id: "C0GENERAL", name: "general" },
      response_url: responseUrl,
      trigger_id: fake.newTriggerId(),
      team: { id: fake.teamId, domain: "fake" },
      enterprise: null,
      is_enterprise_install: false,
      actions: [
        {
          type: "button",
          action_id: ACTION.run,
          block_id: "b1",
          value: "help",
          text: { type: "plain_text", text: "Help" },
          action_ts: `${Date.now() / 1000}`,
        },
      ],
    };
    await fake.socketMode.send("interactive", payload);
    await fake.waitForResponse(responseUrl, 1, 20_000);
  });

  it("handles an event, and the same event delivered again (a retry) once", async () => {
    const before = fake.callsOf("views.publish").length;
    await fake.socketMode.send("events_api", homeOpened("Ev0SOCKET1"), {
      retry_attempt: 0,
      retry_reason: "",
    });
    await fake.waitFor(() => fake.callsOf("views.publish").length > before, 20_000, "the Home tab");
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
    const c = command("help");
    await fake.socketMode.send("slash_commands", c.payload);
    await fake.waitForResponse(c.responseUrl, 1, 20_000);
  });
});
