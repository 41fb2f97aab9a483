// Channels by name: the API cannot list its channels, so they are named once
// (`/sb channel name`, writers only, stored and audited; MESSAGING_CHANNEL_NAMES
// seeds them) and every screen shows the name instead of a number.

import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import type { Reply } from "../../src/commands/types.ts";
import { loadConfig } from "../../src/platform/config.ts";
import { ConfigError } from "../../src/platform/errors.ts";
import { AuditLog } from "../../src/store/audit.ts";
import { useStack } from "../helpers/stack.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";

const ALICE = { userId: "U0ALICE", via: "slack" as const, channelId: "C0GENERAL" };
const BOB = { userId: "U0BOB", via: "slack" as const, channelId: "C0GENERAL" };
const text = (r: Reply) => blocksToText(r.blocks) || r.text;

const s = useStack({ writers: [ALICE.userId], env: { MESSAGING_CHANNEL_NAMES: "1=Main line, 2=Support" } });

describe("channel names", () => {
  it("MESSAGING_CHANNEL_NAMES seeds them; `channels` lists them", async () => {
    const r = await s().core.run("channels", BOB);
    expect(text(r)).toMatch(/Main line · channel 1/);
    expect(text(r)).toMatch(/Support · channel 2/);
  });

  it("a campaign shows its channel by name, never #1", async () => {
    const r = await s().core.run("campaign 1", BOB);
    expect(text(r)).toMatch(/Channel Main line/);
    expect(text(r)).not.toMatch(/#1\b/);
    expect(text(await s().core.run("template 1", BOB))).toMatch(/^Channel: Main line$/m);
  });

  it("the templates list names each template's channel", async () => {
    const list = text(await s().core.run("templates", BOB));
    expect(list).toMatch(/order_update · en · Utility · Approved · Main line/);
    expect(list).toMatch(/support_followup · en · Utility · Approved · Support/);
    expect(list).not.toMatch(/channel \d/);
  });

  it("a writer renames a channel: stored, audited, said in the channel; others may not", async () => {
    const refused = await s().core.run("channel name 1 Sales", BOB);
    expect(text(refused)).toMatch(/Only @U0ALICE may make changes/);
    const r = await s().core.run("channel name 1 Store front", ALICE);
    expect(r.visibility).toBe("in_channel");
    expect(text(r)).toMatch(/renamed from “Main line” to Store front/);
    expect(text(await s().core.run("campaign 1", BOB))).toMatch(/Channel Store front/);
    const audit = (await new AuditLog(s().db, s().workspace).list({ limit: 5 })).find(
      (e) => e.operation === "nameChannel",
    );
    expect(audit).toMatchObject({ actor: ALICE.userId, ok: true, answer: { id: 1, name: "Store front" } });
  });

  it("a bad MESSAGING_CHANNEL_NAMES stops the start naming the setting", () => {
    expect(() => loadConfig({ MESSAGING_CHANNEL_NAMES: "1=Main,Support" })).toThrow(ConfigError);
    expect(() => loadConfig({ MESSAGING_CHANNEL_NAMES: "1=Main,Support" })).toThrow(
      /MESSAGING_CHANNEL_NAMES/,
    );
    expect(loadConfig({ MESSAGING_CHANNEL_NAMES: "1=Main line,2=Support" }).MESSAGING_CHANNEL_NAMES).toEqual(
      new Map([
        [1, "Main line"],
        [2, "Support"],
      ]),
    );
  });
});

// A real API's channels come unnamed: every screen says "Channel 1" (never a
// bare number) and asks for the names, until each has one.
describe("channels without names", () => {
  const bare = useStack({ writers: [ALICE.userId] });
  const asks = (ids: number[]) =>
    `Name your channels so people see names, not numbers: ${ids.map((id) => `Channel ${id}`).join(", ")}.`;

  it("`channels` lists the channels the templates use, each without a name asked for one", async () => {
    const r = text(await bare().core.run("channels", BOB));
    expect(r).toMatch(/^Channel 1 · no name yet$/m);
    expect(r).toMatch(/^Channel 2 · no name yet$/m);
    expect(r).toContain(asks([1, 2]));
    expect(r).toContain("`/sb channel name 1 Main line`");
  });

  it("the templates list says Channel 1 and asks for the names; a name, once given, is shown and not asked again", async () => {
    const before = text(await bare().core.run("templates", BOB));
    expect(before).toMatch(/order_update · en · Utility · Approved · Channel 1/);
    expect(before).toContain(asks([1, 2]));
    await bare().core.run("channel name 1 Main line", ALICE);
    const after = text(await bare().core.run("templates", BOB));
    expect(after).toMatch(/order_update · en · Utility · Approved · Main line/);
    expect(after).toContain(asks([2]));
    const channels = text(await bare().core.run("channels", BOB));
    expect(channels).toMatch(/Main line · channel 1/);
    expect(channels).toContain(asks([2]));
  });
});

itLeavesBUntouched(s);
