// README's pictures (docs/screens/*.png) are rendered by hand from the Block
// Kit that `npm run screens` builds through the real code paths (CI has no
// browser). This keeps that Block Kit valid: every screen built, every
// message and view within Slack's rules as the fake Slack checks them, and the
// screens README shows.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { checkMessageBlocks, checkView } from "../fakes/block-kit.ts";
import { buildScreens, type Screen } from "./build.ts";

describe("npm run screens", () => {
  it("builds every screen README shows, each valid Block Kit", async () => {
    const screens: Screen[] = await buildScreens();
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    for (const s of screens) {
      const payloads = Array.isArray(s.payload) ? s.payload : [s.payload];
      expect(payloads.length, s.name).toBeGreaterThan(0);
      for (const p of payloads) {
        const problems = p.type === "home" ? checkView(p) : checkMessageBlocks(p.blocks);
        expect(problems, s.name).toEqual([]);
        if (p.type !== "home") expect(String(p.text ?? "").trim(), s.name).not.toBe("");
      }
    }
    for (const name of ["campaign-running", "campaign-launch", "report", "contact", "chat-user", "home"]) {
      expect(screens.map((s) => s.name)).toContain(name);
      expect(readme).toContain(`docs/screens/${name}.png`);
    }
    // The report of all campaigns is posted, not refused (Slack refused repeated button ids).
    const all = screens.find((s) => s.name === "report-all")?.payload as { text?: string } | undefined;
    expect(all?.text).not.toMatch(/refused/i);
    // The launch is one message.
    const launch = screens.find((s) => s.name === "campaign-launch")?.payload;
    expect(Array.isArray(launch) ? launch : [launch]).toHaveLength(1);
  }, 240_000);
});
