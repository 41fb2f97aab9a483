// The Slack client never retries a call that may have taken effect: a post
// whose answer was lost is not sent again (no double post), while a 429 is
// waited out and retried (Slack did nothing).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/platform/config.ts";
import { createLogger } from "../../src/platform/log.ts";
import { createSlackClient } from "../../src/slack/io/bridge.ts";
import { safeToRetry } from "../../src/slack/io/retry-policy.ts";
import { FakeSlack } from "../fakes/slack.ts";

let fake: FakeSlack;
beforeAll(async () => {
  fake = await FakeSlack.start();
  fake.addChannel({ id: "C0RETRY", name: "retry" });
});
afterAll(() => fake.close());

const client = () =>
  createSlackClient(
    loadConfig({ SLACK_BOT_TOKEN: fake.botToken, SLACK_API_URL: fake.apiUrl }),
    createLogger("silent"),
  );

describe("Slack client retries", () => {
  it("does not post again when the answer to a post is lost", async () => {
    fake.loseAnswers("chat.postMessage", 1);
    const before = fake.messages.filter((m) => m.channel === "C0RETRY").length;
    await expect(client().chat.postMessage({ channel: "C0RETRY", text: "once" })).rejects.toThrow();
    const posted = fake.messages.filter((m) => m.channel === "C0RETRY").slice(before);
    expect(posted.map((m) => m.text)).toEqual(["once"]);
    expect(fake.calls.filter((c) => c.method === "chat.postMessage" && c.args.text === "once")).toHaveLength(
      1,
    );
  });

  it("waits out a 429 and posts once it may", async () => {
    const c = client();
    await c.chat.postMessage({ channel: "C0RETRY", text: "first" });
    // Straight after, bypassing the per-channel queue: the fake answers 429.
    await c.chat.postMessage({ channel: "C0RETRY", text: "second" });
    const calls = fake.calls.filter((x) => x.method === "chat.postMessage" && x.args.text === "second");
    expect(calls.map((x) => x.status)).toEqual([429, 200]);
    expect(fake.messages.filter((m) => m.text === "second")).toHaveLength(1);
  });

  it("retries only what certainly did not reach Slack", () => {
    const refused = Object.assign(new Error("request failed"), {
      original: Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }),
    });
    expect(safeToRetry(refused)).toBe(true);
    expect(safeToRetry(new Error("A rate limit was exceeded (url: x, retry-after: 1)"))).toBe(true);
    expect(safeToRetry(Object.assign(new Error("reset"), { original: { code: "ECONNRESET" } }))).toBe(false);
    expect(safeToRetry(new Error("An HTTP protocol error occurred: statusCode = 500"))).toBe(false);
  });
});
