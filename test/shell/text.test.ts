// The shell's one converter of Slack replies (Block Kit, mrkdwn) to terminal
// text: nothing of Slack's markup reaches the terminal, user text comes back
// as typed, and ANSI styling only when asked (a terminal without NO_COLOR).
import { PassThrough } from "node:stream";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { actions, context, esc, fieldsSection, header, section, slackDate } from "../../src/blocks/blocks.ts";
import { blocksToText, mrkdwnToText } from "../../src/blocks/text.ts";
import { replyToText, wantsColor } from "../../src/shell/index.ts";

const ESC = "\x1b[";
/** Text without its ANSI escapes (ESC [ n m). */
const unstyled = (s: string) =>
  s
    .split(ESC)
    .map((part, i) => (i === 0 ? part : part.replace(/^\d+m/, "")))
    .join("");

describe("mrkdwnToText", () => {
  it.each([
    ["*Bold* and _italic_ and ~gone~", "Bold and italic and gone"],
    ["by <@U123ABC> and <@U9|ana>", "by @U123ABC and @ana"],
    [
      "<!here> <!channel|@channel> <!subteam^S1|@ops> <#C1|general> <#C2>",
      "@here @channel @ops #general #C2",
    ],
    ["see <https://x.io/a?b=1&amp;c=2|the site>", "see the site (https://x.io/a?b=1&c=2)"],
    ["<https://x.io> <mailto:a@b.co|a@b.co>", "https://x.io a@b.co"],
    [`due ${slackDate("2026-11-02T07:04:40Z")}`, "due 2026-11-02 07:04 UTC"],
    ["<!date^1762066800^{date_short}>", "2025-11-02 07:00 UTC"],
    [":warning: Failed", "⚠ Failed"],
    [":white_check_mark: done · :x: not · :memo: draft", "✓ done · ✗ not · draft"],
    [":bar_chart: Report", "Report"],
    ["Report :calendar:", "Report"],
    [":+1::skin-tone-2: ok", "ok"],
    ["&gt; quoted line\n&gt; and another\nnot quoted", "│ quoted line\n│ and another\nnot quoted"],
    ["a &lt;b&gt; &amp;amp; c", "a <b> &amp; c"],
    ["`/sb tag &lt;id&gt;` and `*not bold*`", "`/sb tag <id>` and `*not bold*`"],
    ["*Sample*\n```row  1 | *x* | <@U1>\nrow  2```", "Sample\n  row  1 | *x* | @U1\n  row  2"],
    ["before ```code``` after", "before\n  code\nafter"],
    // Not markup: words with underscores, times, arithmetic, a lone star, colons in values.
    ["loyalty_tier snake_case_name", "loyalty_tier snake_case_name"],
    ["at 09:30:00, 5 * 3 * 2, a*b*c, key:value:x", "at 09:30:00, 5 * 3 * 2, a*b*c, key:value:x"],
    ["Template parameters: discount: 20%", "Template parameters: discount: 20%"],
  ])("%j → %j", (input, expected) => {
    expect(mrkdwnToText(input)).toBe(expected);
  });

  it("styles with ANSI only when asked", () => {
    expect(mrkdwnToText("*Bold* :warning: `code`")).not.toContain(ESC);
    const styled = mrkdwnToText("*Bold* :warning: `code`", { color: true });
    expect(styled).toBe("\x1b[1mBold\x1b[22m \x1b[33m⚠\x1b[39m \x1b[36mcode\x1b[39m");
  });
});

describe("blocksToText", () => {
  it("renders headers, fields (several lines indented), context, links, mentions and buttons", () => {
    const text = blocksToText([
      header(":bar_chart: Tags"),
      section("*#1* Sale &amp; more by <@U123> see <https://x.io|the site> <!subteam^S1|@ops>"),
      ...fieldsSection([
        ["Name", "Ana"],
        ["Custom fields", "VIP: yes\nPoints: 1200"],
      ]),
      context("Page 1 of 2"),
      actions([
        { text: "Next ›", actionId: "sb_run", value: "tags page=2" },
        { text: "Edit", actionId: "sb_open_edit", value: "contact:1" },
      ]),
      actions([{ text: "Edit", actionId: "sb_open_edit", value: "contact:1" }]),
      { type: "divider" },
      { type: "image", image_url: "https://x.io/c.png", alt_text: "Chart of the campaign" },
    ]);
    expect(text).toBe(
      [
        "== Tags ==",
        "#1 Sale & more by @U123 see the site (https://x.io) @ops",
        "Name: Ana",
        "Custom fields:",
        "  VIP: yes",
        "  Points: 1200",
        "Page 1 of 2",
        "[Next ›: tags page=2]",
        "----",
        "[image: Chart of the campaign]",
      ].join("\n"),
    );
  });

  it("reads rich_text as people write it", () => {
    const text = blocksToText([
      {
        type: "rich_text",
        elements: [
          {
            type: "rich_text_section",
            elements: [
              { type: "text", text: "Hi " },
              { type: "user", user_id: "U1" },
              { type: "emoji", name: "warning" },
              { type: "text", text: " see " },
              { type: "link", url: "https://x.io", text: "this" },
            ],
          },
          {
            type: "rich_text_list",
            style: "bullet",
            elements: [{ type: "rich_text_section", elements: [{ type: "text", text: "one" }] }],
          },
        ],
      },
    ]);
    expect(text).toBe("Hi @U1⚠ see this (https://x.io)\n• one");
  });
});

// ---- properties ----

/** Text a person typed, as the replies carry it: escaped. */
const typed = fc.string({ maxLength: 20 });
const word = fc.stringMatching(/^[a-z][a-z0-9]{0,8}$/);
const id = fc.stringMatching(/^[UCS][A-Z0-9]{2,9}$/);
const emoji = fc.constantFrom(
  "warning",
  "white_check_mark",
  "x",
  "memo",
  "calendar",
  "bar_chart",
  "tada",
  "smile",
);
/** Every kind of mrkdwn markup the replies use, around escaped user text. */
const markup = fc.oneof(
  typed.map(esc),
  fc.tuple(id, fc.option(word, { nil: undefined })).map(([u, n]) => (n ? `<@${u}|${n}>` : `<@${u}>`)),
  fc.constantFrom("<!here>", "<!channel>", "<!everyone|@everyone>"),
  fc.tuple(id, word).map(([s, n]) => `<!subteam^${s}|@${n}>`),
  fc.tuple(id, word).map(([c, n]) => `<#${c}|${n}>`),
  fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map(slackDate),
  fc.tuple(word, word).map(([host, label]) => `<https://${host}.example/x|${label}>`),
  emoji.map((e) => `:${e}:`),
  word.map((w) => `*${w}*`),
  word.map((w) => `_${w}_`),
  word.map((w) => `\`${w}\``),
  fc.constant("\n&gt; "),
  fc.constant("\n"),
  fc.constant(" "),
);
const message = fc.array(markup, { maxLength: 12 }).map((parts) => parts.join(" "));

describe("properties", () => {
  it("no Slack markup survives: mentions, dates, links, entities, emoji codes, quotes", () => {
    fc.assert(
      fc.property(message, (m) => {
        const out = mrkdwnToText(m);
        // What the user typed may hold `<@`, `:tada:` or `&lt;` literally; the rest must be gone. An emoji code has a
        // letter in its name, as Slack's do (`:_:` is text, as in text.ts; fast-check found it, seed -859665646).
        // Bold and italic only where Slack reads them: markers at word edges (`*a*0` is not bold).
        const userText = m.replace(
          /<[^<>]*>|:(?=[a-z_]*[a-z])[a-z_]+:|(?<![\w*])\*[a-z0-9]+\*(?![\w*])|(?<![\w_])_[a-z0-9]+_(?![\w_])|`[a-z0-9]+`|&gt; /g,
          "",
        );
        if (!/[<>&:*_`]/.test(userText)) {
          expect(out).not.toMatch(
            /<[@#!]|<https?:|&(lt|gt|amp);|:(?=[a-z_]*[a-z])[a-z_]+:|(?<![\w*])\*[a-z0-9]+\*(?![\w*])|(?<![\w_])_[a-z0-9]+_(?![\w_])/,
          );
          expect(out).not.toMatch(/^>/m);
        }
        // A backtick the user typed can open code around an emoji code, which then stays as typed (as in Slack).
        if (!userText.includes("`"))
          for (const code of m.match(/(?<!\w):(?=[a-z_]*[a-z])[a-z_]+:(?!\w)/g) ?? [])
            expect(out).not.toContain(code);
        expect(out).not.toContain(ESC);
      }),
      { numRuns: 400 },
    );
  });

  it("text a person typed comes back as typed, once escaped", () => {
    fc.assert(
      fc.property(typed, (t) => {
        // Markup characters are Slack's to read; everything else is the user's.
        fc.pre(!/[*_~`:]|^\s*>|[\uE000-\uE002]/.test(t));
        expect(mrkdwnToText(esc(t))).toBe(t);
      }),
      { numRuns: 400 },
    );
  });

  it("styled and plain text say the same once the escapes are removed", () => {
    fc.assert(
      fc.property(message, (m) => {
        const styled = unstyled(mrkdwnToText(m, { color: true }));
        const plain = mrkdwnToText(m).replace(/`/g, "");
        expect(styled.replace(/`/g, "")).toBe(plain);
      }),
      { numRuns: 200 },
    );
  });
});

describe("colour in the shell", () => {
  it("only on a terminal, and never with NO_COLOR", () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true });
    expect(wantsColor(tty, {})).toBe(true);
    expect(wantsColor(tty, { NO_COLOR: "1" })).toBe(false);
    expect(wantsColor(new PassThrough(), {})).toBe(false);
  });

  it("a reply without blocks is converted too", () => {
    expect(replyToText({ visibility: "ephemeral", text: ":warning: *No* <@U1>", blocks: [] })).toBe(
      "⚠ No @U1",
    );
  });
});

describe("Slack dates in a zone (the shell: the workspace's, issue 39 §1)", () => {
  const at = Math.floor(Date.parse("2026-11-30T08:00:00Z") / 1000);
  it("shows a date token in the zone, named, and leaves out 'your time'", () => {
    const line = `Starts at 09:00 · <!date^${at}^{date_short_pretty} {time}|2026-11-30 09:00> your time`;
    expect(mrkdwnToText(line, { tz: "Europe/Madrid" })).toBe(
      "Starts at 09:00 · Mon 30 Nov 2026, 09:00 GMT+1",
    );
    expect(mrkdwnToText(`<!date^${at}^{time_secs}|x>`, { tz: "Asia/Kolkata" })).toBe("13:30:00 GMT+5:30");
  });
  it("without a zone, the fallback as before; a UTC one is not 'your time' either", () => {
    expect(mrkdwnToText(`<!date^${at}^{time}|2026-11-30 08:00 UTC> your time`)).toBe("2026-11-30 08:00 UTC");
    expect(mrkdwnToText(`<!date^${at}^{time}|08:00> your time`)).toBe("08:00 your time");
  });
});
