import { describe, expect, it } from "vitest";
import { takeRecipient } from "../../src/commands/args.ts";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import { ArgumentError, bindArguments, Registry } from "../../src/commands/registry.ts";
import { tokenize } from "../../src/commands/tokenize.ts";

const registry = new Registry(ALL_COMMANDS);
const idOf = (line: string) => registry.match(tokenize(line))?.spec.id;
const parse = (line: string) => {
  const m = registry.match(tokenize(line))!;
  const raw = bindArguments(m.spec, m);
  return { raw, parsed: m.spec.schema.safeParse(raw) };
};

describe("command matching", () => {
  it("prefers literal words over id slots", () => {
    const commandOf: Record<string, string> = {
      "group add Friends": "group.add",
      "group 5": "group.show",
      "group 5 add 1 2": "group.members.add",
      "group 5 remove 1": "group.members.remove",
      "campaign new": "campaign.new",
      "campaign 3 send": "campaign.send",
      "campaign 3": "campaign.show",
      "templates sync": "templates.sync",
      "templates status=approved": "templates.list",
      TAGS: "tags.list",
    };
    for (const [line, id] of Object.entries(commandOf)) expect(idOf(line), line).toBe(id);
  });

  it("a quoted word is never a sub-command", () => {
    expect(idOf('group add "add"')).toBe("group.add");
    expect(idOf('contacts "add"')).toBe("contacts.list");
  });

  it("finds nothing for an unknown word", () => {
    expect(idOf("tagz")).toBeUndefined();
  });
});

describe("argument binding and validation", () => {
  it("binds positionals, rest text and options", () => {
    const { parsed } = parse('tag add "VIP lead" #1d9bd1 big accounts');
    expect(parsed.success && parsed.data).toEqual({
      name: "VIP lead",
      color: "#1D9BD1",
      description: "big accounts",
    });
  });

  it("binds flags and options of users", () => {
    const { parsed } = parse("users ana need-human unread order=desc sort=name");
    expect(parsed.success && parsed.data).toMatchObject({
      search: "ana",
      "need-human": true,
      unread: true,
      order: "DESC",
      sort: "name",
    });
  });

  it("splits id lists on spaces and commas", () => {
    const { parsed } = parse("group 5 add 1, 2,3 #4");
    expect(parsed.success && parsed.data).toMatchObject({ id: 5, contacts: [1, 2, 3, 4] });
  });

  it("keeps unknown options as extra when the command takes them", () => {
    const { parsed } = parse("contact add +14155550123 first=Ana tier=gold");
    expect(parsed.success && parsed.data).toMatchObject({ first: "Ana", extra: { tier: "gold" } });
  });

  it("keeps a=b inside free text as text", () => {
    const { parsed } = parse("send +14155550123 2+2=4 ok");
    expect(parsed.success && parsed.data).toMatchObject({ words: ["+14155550123", "2+2=4", "ok"] });
  });

  it("refuses an unknown option, naming the known ones", () => {
    const m = registry.match(tokenize("tags colour=red"))!;
    expect(() => bindArguments(m.spec, m)).toThrow(ArgumentError);
    const m2 = registry.match(tokenize("campaigns stat=x"))!;
    expect(() => bindArguments(m2.spec, m2)).toThrow(/status=/);
  });

  it("refuses an option given twice and extra words", () => {
    const m = registry.match(tokenize("campaigns page=1 page=2"))!;
    expect(() => bindArguments(m.spec, m)).toThrow(/twice/);
    const m2 = registry.match(tokenize("tag 3 4"))!;
    expect(() => bindArguments(m2.spec, m2)).toThrow(/unexpected "4"/);
  });

  it("names the field of every bad value", () => {
    const bad = parse("tag add Hot red").parsed;
    expect(bad.success).toBe(false);
    expect(bad.error?.issues[0]?.path).toEqual(["color"]);
    expect(parse("tag x").parsed.error?.issues[0]?.path).toEqual(["id"]);
    expect(parse("contacts limit=500").parsed.error?.issues[0]?.path).toEqual(["limit"]);
    expect(parse("contacts opted-out=maybe").parsed.error?.issues[0]?.message).toMatch(/yes or no/);
    expect(parse("campaigns status=lost").parsed.error?.issues[0]?.message).toMatch(/draft/);
    expect(parse("tag edit 3").parsed.success).toBe(false);
    expect(parse("field edit 3 key=x").parsed.error?.issues[0]?.message).toMatch(/immutable/);
  });

  it("accepts ids written #12", () => {
    expect(parse("tag #12").parsed.data).toEqual({ id: 12 });
  });
});

describe("recipients", () => {
  it("reads a phone number spread over words, and stops at the text", () => {
    expect(takeRecipient(["+1", "(415)", "555-0123", "hi", "there"])).toEqual({
      recipient: { kind: "phone", to: "+14155550123" },
      rest: ["hi", "there"],
    });
    expect(takeRecipient(["+14155550123", "2", "apples"])).toMatchObject({ rest: ["2", "apples"] });
  });

  it.each([
    [["+34", "612", "345", "678", "hola"], "+34612345678", ["hola"]],
    [["0034", "612", "345", "678", "hola"], "+34612345678", ["hola"]],
    [["+34", "612", "345", "678", "2", "cafés"], "+34612345678", ["2", "cafés"]],
    [["+43", "1", "234", "5678", "hola"], "+4312345678", ["hola"]],
    // Greedy: +49 30 1234 is a possible Berlin number already, but the longer one is read.
    [["+49", "30", "1234", "5678", "hallo"], "+493012345678", ["hallo"]],
    [["+44", "20", "7946", "0958", "3", "things"], "+442079460958", ["3", "things"]],
  ])("reads %j greedily as %s, then the text", (words, to, rest) => {
    expect(takeRecipient(words)).toEqual({ recipient: { kind: "phone", to }, rest });
  });

  it.each([
    [
      ["+34", "12", "hola"],
      "`+34 12` is too short for a phone number in Spain: numbers there have 9 digits after +34",
    ],
    [
      ["+346123456789"],
      "`+346123456789` is too long for a phone number in Spain: numbers there have 9 digits after +34",
    ],
  ])("refuses %j quoting it: %s", (words, error) => {
    expect(takeRecipient(words)).toEqual({ error });
  });

  it("uses the default country for national numbers", () => {
    expect(takeRecipient(["(415)", "555-0123", "x"], "US")).toMatchObject({
      recipient: { to: "+14155550123" },
    });
  });

  it("reads contact: and user: references", () => {
    expect(takeRecipient(["contact:12", "hi"])).toEqual({
      recipient: { kind: "contact", contactId: 12 },
      rest: ["hi"],
    });
    expect(takeRecipient(["user:#3"])).toEqual({ recipient: { kind: "user", chatUserId: 3 }, rest: [] });
    expect(takeRecipient(["contact:x"])).toHaveProperty("error");
    expect(takeRecipient(["hello"])).toHaveProperty("error");
  });
});
