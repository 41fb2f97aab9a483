import { describe, expect, it } from "vitest";
import { plainLine, stripCommandName, TokenizeError, tokenize } from "../../src/commands/tokenize.ts";

const texts = (line: string) => tokenize(line).map((t) => t.text);

describe("tokenize", () => {
  it("splits words and key=value options", () => {
    const t = tokenize("tag edit 3 color=#FF8800");
    expect(t.map((x) => x.kind)).toEqual(["word", "word", "word", "option"]);
    expect(t[3]).toMatchObject({ key: "color", value: "#FF8800" });
  });

  it("keeps quoted text together, in straight, single and smart quotes", () => {
    expect(texts('tag add "VIP lead" #1D9BD1')).toEqual(["tag", "add", "VIP lead", "#1D9BD1"]);
    expect(texts("group add 'Spring sale'")).toEqual(["group", "add", "Spring sale"]);
    expect(texts("group add “Spring sale” now")).toEqual(["group", "add", "Spring sale", "now"]);
    expect(texts("group add ‘a b’")).toEqual(["group", "add", "a b"]);
  });

  it("reads quoted option values", () => {
    const [, opt] = tokenize('x body="Hi {{name}}, welcome"');
    expect(opt).toMatchObject({ kind: "option", key: "body", value: "Hi {{name}}, welcome", quoted: true });
    const [, smart] = tokenize("x description=“two words”");
    expect(smart).toMatchObject({ key: "description", value: "two words" });
  });

  it("keeps an apostrophe inside a word", () => {
    expect(texts("send +14155550123 don't worry")).toEqual(["send", "+14155550123", "don't", "worry"]);
  });

  it("does not treat a quoted key=value as an option", () => {
    const [t] = tokenize('"a=b"');
    expect(t).toMatchObject({ kind: "word", text: "a=b" });
  });

  it("lower-cases option keys", () => {
    expect(tokenize("Status=Approved")[0]).toMatchObject({ key: "status", value: "Approved" });
  });

  it("decodes Slack's escaped forms", () => {
    expect(texts("<@U123|ana> <#C42|general> <!subteam^S9|@ops>")).toEqual([
      "<@U123>",
      "C42",
      "<!subteam^S9>",
    ]);
    expect(texts("image <https://example.com/a.png|example.com/a.png>")).toEqual([
      "image",
      "https://example.com/a.png",
    ]);
    expect(texts("<https://example.com/x?a=1&amp;b=2>")).toEqual(["https://example.com/x?a=1&b=2"]);
    const [mail] = tokenize("email=<mailto:ana@example.com|ana@example.com>");
    expect(mail).toMatchObject({ kind: "option", key: "email", value: "ana@example.com" });
    expect(texts("<tel:+14155550123|+1 415 555 0123>")).toEqual(["+1 415 555 0123"]);
  });

  it("decodes links with spaces in their label as one token", () => {
    expect(texts("a <https://x.io|my label> b")).toEqual(["a", "https://x.io", "b"]);
  });

  it("decodes links inside quotes", () => {
    const [, opt] = tokenize('x button="Open|<https://example.com/p|example.com/p>"');
    expect(opt).toMatchObject({ key: "button", value: "Open|https://example.com/p" });
  });

  it("decodes HTML entities and never lets a decoded < start a link", () => {
    expect(texts("a &lt;b&gt; &amp; c")).toEqual(["a", "<b>", "&", "c"]);
    expect(texts("x=&lt;1")).toEqual(["x=<1"]);
  });

  it("keeps the raw form of each token for rebuilding a line", () => {
    const t = tokenize('contacts "ana maria" group=2 <mailto:a@b.co|a@b.co>');
    expect(t.map((x) => x.raw)).toEqual(["contacts", '"ana maria"', "group=2", "<mailto:a@b.co|a@b.co>"]);
  });

  it("refuses an unterminated quote or link", () => {
    expect(() => tokenize('tag add "VIP')).toThrow(TokenizeError);
    expect(() => tokenize("a <https://x.io")).toThrow(TokenizeError);
  });

  it("URLs with = are words, not options", () => {
    expect(tokenize("https://x.io/?a=b")[0]!.kind).toBe("word");
  });

  it("strips a leading /sb", () => {
    expect(stripCommandName("/sb tags")).toBe("tags");
    expect(stripCommandName("  tags ")).toBe("tags");
    expect(stripCommandName("/switchboard")).toBe("");
  });
});

describe("plainLine", () => {
  it("undoes Slack's escapes, so esc() can show the line as text", () => {
    expect(plainLine("tag add <!channel> <@U1|ana> &lt;b&gt; <https://x.io|x.io> <#C1|general>")).toBe(
      "tag add <!channel> <@U1> <b> https://x.io C1",
    );
  });
});
