// The shell on piped input, in-process (the same runShell as `npm start`,
// on streams): what it prints is terminal text, with no Slack markup.
import { describe, expect, it } from "vitest";
import { useHarness } from "../commands/helpers.ts";
import { pipedIo } from "./helpers.ts";

const h = useHarness({ mode: "single" });

/** Feeds `lines` on a pipe and collects what the shell prints. */
async function piped(
  lines: string[],
  opts: { yes?: boolean; color?: boolean; end?: boolean } = {},
): Promise<{ code: number; out: string }> {
  const s = pipedIo(lines, opts);
  const code = await s.run({ core: h().core, interactive: false, ...opts });
  return { code, out: s.text() };
}

/** Slack's markup, which a terminal would show as is. */
const SLACK_MARKUP = /:[a-z_]+:|<[@#!]|&(lt|gt|amp);|```|(^|\s)\*[^*\s][^*]*\*|^>/m;

describe("piped shell: answers are terminal text", () => {
  it("has no emoji codes, stars, mentions, date tokens, code fences or entities", async () => {
    const { code, out } = await piped([
      "campaign 1",
      "contact 1",
      "report now all",
      "help nosuch",
      "nosuch command",
      "tag delete 1",
    ]);
    expect(code).toBe(0);
    expect(out).toMatch(/✓ Spring sale 2026\nCompleted · 16 of 16 processed: \d+ sent, delivered or read/);
    expect(out).toMatch(/⚠ There is no help topic `nosuch`/);
    expect(out).toMatch(/✓ Spring sale 2026 · completed · 16 recipients/);
    expect(out).not.toMatch(SLACK_MARKUP);
    // Piped output is not a terminal: no ANSI escapes.
    expect(out).not.toContain("\x1b[");
  });

  it("styles only when colour is on (a terminal without NO_COLOR)", async () => {
    const { out } = await piped(["help nosuch"], { color: true });
    expect(out).toContain("\x1b[33m⚠\x1b[39m");
  });

  it.each(["exit", "quit", "QUIT"])("stops at %s, even when the input stays open", async (word) => {
    const { code, out } = await piped(["tags", word, "groups"], { end: false });
    expect(code).toBe(0);
    expect(out).toMatch(/== Tags ==/);
    expect(out).not.toMatch(/== Groups ==/);
  });

  it("puts one blank line between answers, none after the last", async () => {
    const { out } = await piped(["tag 404", "tag 405"]);
    expect(out).toMatch(/No such tag #404.*\n\n.*No such tag #405/s);
    expect(out).not.toMatch(/\n\n$/);
  });
});
