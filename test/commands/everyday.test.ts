// Everyday answers read right (issue 9): each case failed before its fix.
import { describe, expect, it } from "vitest";
import { showValue } from "../../src/commands/render.ts";
import { all, useHarness } from "./helpers.ts";

const h = useHarness();

describe("secrets are masked by what they are, not by a member's name", () => {
  it("shows a custom field's key as typed", async () => {
    const key = `loyalty_tier_${Date.now() % 100000}`;
    const r = await h().run(`field add ${key} Loyalty tier`);
    expect(all(r)).toContain(key);
    expect(all(r)).not.toMatch(/…tier/);
  });

  it("still masks tokens and keys, whatever member holds them", () => {
    expect(showValue("key", "loyalty_tier")).toBe("loyalty_tier");
    expect(showValue("apiKey", "abc")).not.toContain("abc");
    expect(showValue("note", "xoxb-1234-5678-abcdefSECRET")).not.toContain("abcdefSECRET");
    expect(showValue("value", "Zq8LmN2pR5tV7wX9yB3cD4eF")).not.toContain("Zq8LmN2pR5tV7wX9yB3cD4eF");
    expect(showValue("website", "https://example.com/Path/To/Page2024abc")).toContain("example.com");
  });
});
