// GET /metrics as the Slack app serves it (docs/operations.md): every call of
// a Slack WebClient counted by method and error (the bridge's client, Bolt's
// listener clients, auth.test), not only chat.postMessage through the post
// queue; commands counted by front end (slack, shell). Labels stay bounded.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { type SlackStack, startStack } from "../helpers/stack.ts";

let stack: SlackStack;

beforeAll(async () => {
  stack = await startStack({ slack: {} });
}, 60_000);
afterAll(() => stack?.close());

/** The value of `name` whose labels include every one of `labels` (0 when absent), as GET /metrics says. */
async function value(name: string, labels: Record<string, string>): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${stack.slack.port}/metrics`);
  expect(res.status).toBe(200);
  let total = 0;
  for (const line of (await res.text()).split("\n")) {
    const m = /^(\w+)\{([^}]*)\} (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...m[2]!.matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) total += Number(m[3]);
  }
  return total;
}

const calls = (method: string, error: string) => value("switchboard_slack_calls_total", { method, error });

describe("GET /metrics", () => {
  it("counts every Slack Web API call by method and error, whichever client made it", async () => {
    expect(await calls("auth.test", "ok")).toBeGreaterThanOrEqual(1); // Bolt's authorize, at start
    const before = {
      info: await calls("conversations.info", "channel_not_found"),
      open: await calls("views.open", "ok"),
    };
    // The bridge's client (the core's audit posts, the runtimes), a call Slack refuses.
    await expect(stack.slack.client.conversations.info({ channel: "C0NOPE" })).rejects.toThrow();
    expect(await calls("conversations.info", "channel_not_found")).toBe(before.info + 1);
    // A listener's client (Bolt's, from clientOptions): a form opened by a slash command.
    await stack.req.command("campaign new", { user: { id: "U0ALICE", name: "alice" } });
    await eventually(async () => (await calls("views.open", "ok")) > before.open, "views.open counted");
    expect(await calls("views.open", "ok")).toBe(before.open + 1);
  });

  it("counts commands by front end (slack, shell)", async () => {
    const help = (front_end: string) =>
      value("switchboard_commands_total", { command: "help", front_end, outcome: "ok" });
    const before = { slack: await help("slack"), shell: await help("shell") };
    await stack.core.run("help", { userId: "shell", via: "shell" });
    expect(await help("shell")).toBe(before.shell + 1);
    expect(await help("slack")).toBe(before.slack);
    await stack.core.run("help", { userId: "U0ALICE", via: "slack", channelId: "C0GENERAL" });
    expect(await help("slack")).toBe(before.slack + 1);
  });

  it("puts no user, channel or workspace id in a label", async () => {
    const res = await fetch(`http://127.0.0.1:${stack.slack.port}/metrics`);
    const labels = [...(await res.text()).matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!).join("\n");
    expect(labels).toContain('method="conversations.info"');
    expect(labels).not.toMatch(/"[UCDTGWR]0[A-Z0-9]{3,}"/);
  });
});
