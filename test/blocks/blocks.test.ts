import type { KnownBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { actions, blocksToText, finishBlocks, linesToSections, section } from "../../src/blocks/blocks.ts";

describe("Block Kit limits", () => {
  it("keeps a message to 50 blocks and says what was left out", () => {
    const many: KnownBlock[] = Array.from({ length: 80 }, (_, i) => section(`line ${i}`));
    const out = finishBlocks(many);
    expect(out).toHaveLength(50);
    expect(blocksToText(out.slice(-1))).toMatch(/31 more/);
  });

  it("gives unique block ids and action ids", () => {
    const out = finishBlocks([
      actions([
        { text: "Prev", actionId: "sb_run", value: "a" },
        { text: "Next", actionId: "sb_run", value: "b" },
      ]),
      actions([{ text: "Again", actionId: "sb_run", value: "c" }]),
    ]);
    const ids = out.flatMap((b) =>
      b.type === "actions" ? b.elements.map((e) => ("action_id" in e ? e.action_id : "")) : [],
    );
    expect(new Set(ids).size).toBe(3);
    expect(ids.every((id) => id?.startsWith("sb_run"))).toBe(true);
    expect(new Set(out.map((b) => b.block_id)).size).toBe(2);
  });

  it("cuts section text at 3000 characters and button text at 75", () => {
    const s = section("x".repeat(5000));
    expect(s.text!.text.length).toBe(3000);
    const a = actions([{ text: "y".repeat(100), actionId: "a", value: "v" }]);
    expect((a.elements[0] as { text: { text: string } }).text.text.length).toBe(75);
  });

  it("packs many lines into few sections under the limit", () => {
    const lines = Array.from({ length: 100 }, (_, i) => `*#${i}* ${"n".repeat(80)}`);
    const sections = linesToSections(lines);
    expect(sections.length).toBeLessThan(10);
    for (const s of sections) expect(s.text!.text.length).toBeLessThanOrEqual(3000);
  });
});

describe("blocksToText", () => {
  it("renders headers, fields, context, links, mentions and buttons as plain text", () => {
    const text = blocksToText([
      { type: "header", text: { type: "plain_text", text: "Tags" } },
      section("*#1* Sale &amp; more by <@U123> see <https://x.io|the site> <!subteam^S1|@ops>"),
      { type: "section", fields: [{ type: "mrkdwn", text: "*Name*\nAna" }] },
      { type: "context", elements: [{ type: "mrkdwn", text: "Page 1 of 2" }] },
      actions([{ text: "Next ›", actionId: "sb_run", value: "tags page=2" }]),
    ]);
    expect(text).toBe(
      "== Tags ==\n#1 Sale & more by @U123 see the site (https://x.io) @ops\nName: Ana\nPage 1 of 2\n[Next ›: tags page=2]",
    );
  });
});
