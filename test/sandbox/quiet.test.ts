// The sandbox's clock (src/sandbox/index.ts): ticked each interval while it has
// work (a write within the active window, something that moved, a campaign
// running), skipped while quiet: embedded, its statements would run on the
// thread that acks Slack for nothing. A write wakes it and what it wrote moves
// on (queued → sent → delivered → read), then it goes quiet again.
import { afterAll, describe, expect, it } from "vitest";
import { type Sandbox, startSandbox } from "../../src/sandbox/index.ts";
import { eventually } from "../helpers/eventually.ts";
import { call } from "../helpers/sandbox.ts";

let sb: Sandbox | undefined;
afterAll(() => sb?.close());

describe("the sandbox's clock", () => {
  it("skips its ticks while quiet, and a write wakes it until what it wrote has moved on", async () => {
    sb = await startSandbox({ seed: false, campaignTickMs: 20, quiet: { activeMs: 300, tickMs: 600_000 } });
    const s = sb;
    // Nothing written, nothing running: quiet once the active window has passed.
    await eventually(() => s.ticks().skipped > 0, "a skipped tick");
    const ranBefore = s.ticks().run;

    const [channel] = await s.channels();
    const customer = await s.inbound({ phone: "+14155550101", text: "Hi, is my order on its way?" });
    const sent = await call(s, "POST", "/messages", {
      body: { channelId: channel!.id, type: "text", to: "+14155550101", text: "It left this morning." },
    });
    expect(sent.status).toBe(201);
    const status = async () =>
      (
        await s.db.query<{ status: string }>("select status from sandbox.messages where id = $1", [
          Number(sent.body.id),
        ])
      ).rows[0]?.status;
    // Woken: the message moves on with the ticks that follow the write.
    await eventually(
      async () => ["delivered", "read"].includes((await status()) ?? ""),
      "the message delivered",
    );
    expect(s.ticks().run).toBeGreaterThan(ranBefore);
    expect(customer.conversationId).toBeTruthy();
    // And quiet again once it has.
    const skipped = s.ticks().skipped;
    await eventually(() => s.ticks().skipped > skipped, "quiet again");
  });
});
