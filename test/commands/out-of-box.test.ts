// Out of the box (issue 9 §3): with no settings, the embedded sandbox's main
// channel is the default, its channels come named, `/sb send <phone> Hola`
// reaches a demo chat user inside the 24-hour window (kept so at each start),
// and a number that never wrote gets the rule and the templates, never a
// channel question. Against a real API with several channels known, the
// answer offers them as buttons.
import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import type { Reply } from "../../src/commands/types.ts";
import { keepDemoWindow } from "../../src/store/sandbox/conversations.ts";
import { startStack } from "../helpers/stack.ts";
import { useOutOfTheBox } from "./helpers.ts";

const ALICE = { userId: "U0ALICE", via: "slack" as const, channelId: "C0GENERAL" };
const text = (r: Reply) => blocksToText(r.blocks) || r.text;
const buttons = (r: Reply) =>
  r.blocks.flatMap((b) => (b.type === "actions" ? b.elements : [])) as Array<{
    text: { text: string };
    value: string;
  }>;

const { sb, db } = useOutOfTheBox(ALICE.userId);

describe("with no settings (the embedded sandbox)", () => {
  it("names the sandbox's channels and takes its main one as the default", async () => {
    expect(sb().sandbox).toBeDefined();
    const r = text(await sb().core.run("channels", ALICE));
    expect(r).toMatch(/Acme Store · channel 1 · the default/);
    expect(r).toMatch(/Acme Support · channel 2/);
  });

  it("sends free text to a demo chat user inside the 24-hour window", async () => {
    const users = (await sb().client.listChatUsers({ limit: 100 })).items;
    const inWindow = users.find(
      (u) =>
        u.type === "phonechat" &&
        typeof u.phone === "string" &&
        typeof u.lastInboundAt === "string" &&
        Date.now() - Date.parse(u.lastInboundAt) < 20 * 3_600_000,
    );
    expect(inWindow).toBeDefined();
    const r = await sb().core.run(`send ${inWindow?.phone} Hola`, ALICE);
    expect(text(r)).toMatch(/Sent to/);
    expect(text(r)).not.toMatch(/channel/i);
  });

  it("to a number that never wrote, explains the 24-hour rule and offers the templates, never a channel question", async () => {
    const r = await sb().core.run("send +1 415 555 0150 Hola", ALICE);
    expect(text(r)).toMatch(/has not written in the last 24 hours/);
    expect(text(r)).not.toMatch(/which channel|channel=/i);
    expect(buttons(r).map((b) => b.value)).toEqual(["send +14155550150", "templates status=approved"]);
    // The button opens the message form with this number in it.
    const form = await sb().core.run("send +14155550150", ALICE);
    expect(form.form?.kind).toBe("send");
    expect(form.form?.kind === "send" && form.form.data.prefill).toEqual({ to: "+14155550150" });
  });

  it("puts the latest demo conversations back inside the window at each start", async () => {
    const later = new Date(Date.now() + 3 * 24 * 3_600_000);
    expect(await keepDemoWindow(db(), later)).toBeGreaterThan(0);
    const r = await db().query<{ n: number | string }>(
      "select count(*) as n from sandbox.chat_users where last_inbound_at > $1",
      [new Date(later.getTime() - 24 * 3_600_000)],
    );
    expect(Number(r.rows[0]?.n)).toBeGreaterThan(0);
  });
});

describe("against a real API with no MESSAGING_CHANNEL_ID", () => {
  it("offers the known channels as buttons when there are several", async () => {
    const s = await startStack({
      writers: [ALICE.userId],
      env: { MESSAGING_CHANNEL_NAMES: "1=Main line,2=Support" },
    });
    try {
      const r = await s.core.run("send +1 415 555 0150 Hola", ALICE);
      expect(text(r)).toMatch(/choose the one to send on/);
      expect(text(r)).not.toMatch(/Which channel\?/);
      expect(buttons(r).map((b) => [b.text.text, b.value])).toEqual([
        ["Main line", "send +1 415 555 0150 Hola channel=1"],
        ["Support", "send +1 415 555 0150 Hola channel=2"],
      ]);
    } finally {
      await s.close();
    }
  });
});
