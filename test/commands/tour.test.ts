// A tour of many commands through the core, as a new user would take it
// (issue 9 §1): help, lists, adds, errors, pages. Every answer is read as
// text and held to the everyday rules: no API member names, no "(s)", plurals
// right, no page past the last one, no glued sentences, no HTTP codes.
import { writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { TOPICS } from "../../src/commands/defs/help.ts";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import type { Reply } from "../../src/commands/types.ts";
import { SHELL, useHarness } from "./helpers.ts";

const h = useHarness();

/** What a person reads: the fallback text and the blocks as text. */
const readable = (r: Reply) => `${r.text}\n${blocksToText(r.blocks)}`;

const PLURALS =
  "contacts|templates|groups|tags|campaigns|recipients|messages|users|chat users|fields|pages|rows|members|channels|schedules|reports|placeholders|requests|conversations|values|errors";

/** The rules, each a name and what breaks it in a text. */
function everydayProblems(text: string): string[] {
  const problems: string[] = [];
  const find = (name: string, re: RegExp) => {
    for (const m of text.matchAll(re)) problems.push(`${name}: “${m[0]}”`);
  };
  // API member names: lower-case start, an upper-case letter inside (groupIds, sendCampaign).
  find("API member name", /(?<![\w./:@#-])[a-z]+[A-Z][A-Za-z]*\b/g);
  find("“(s)”", /\w\(s\)/g);
  find("plural after 1", new RegExp(`(?<![\\d,.#=]|campaign )\\b1 (?:${PLURALS})\\b`, "g"));
  find(
    "singular after another number",
    /(?<![\d,.#+=])\b(?:0|[2-9]|\d{2,}) (?:contact|template|group|tag|campaign|recipient|message|page|row|member)\b(?![s=])/g,
  );
  for (const m of text.matchAll(/Page (\d+) of (\d+)/g)) {
    if (Number(m[1]) > Number(m[2])) problems.push(`page past the end: “${m[0]}”`);
  }
  find(
    "glued sentences",
    /[a-z0-9)”] (?:Usage|Example|Try|Add|Nothing|Check|Ask|Use|Give|Choose|Create|Open) [a-z]/g,
  );
  find("HTTP code", /\bHTTP\b|\((?:40[0-9]|42[29]|5\d\d)\)|\b(?:answered|returned|status) [1-5]\d\d\b/g);
  find("developer word", /\(integration\)|\(body\)|ENOENT|\bundefined\b|\bnull\b|\[object Object\]/g);
  return problems;
}

/** The tour: help (overview, topics, commands), lists and pages, shows, adds, errors. */
function tourLines(): string[] {
  const stamp = Date.now() % 100000;
  return [
    "help",
    ...Object.keys(TOPICS).map((t) => `help ${t}`),
    ...ALL_COMMANDS.filter((c) => !c.hidden).map(
      (c) => `help ${c.words.filter((w) => !w.startsWith("<")).join(" ")}`,
    ),
    "me",
    "contacts",
    "contacts limit=1",
    "contacts page=2 limit=5",
    "contacts page=999",
    "groups",
    "groups limit=1",
    "tags",
    "templates",
    "templates status=approved limit=1",
    "campaigns",
    "campaigns limit=1",
    "campaigns page=99",
    "users",
    "users limit=1",
    "fields",
    "reports all",
    "contact 1",
    "group 1",
    "template 1",
    "campaign 1",
    "campaign 1 recipients limit=2",
    "user 1",
    "history 1 limit=3",
    `tag add Tour ${stamp} color=#123456`,
    `group add Tour ${stamp}`,
    `field add tour_${stamp} Tour field`,
    `contact add +1415555${String(stamp).padStart(4, "0").slice(-4)} first=Tour`,
    "campaign add Tour template=1 group=1",
    "campaign add Tour template=1 group=1 first_name=Ana order_id=T-1",
    "campaign add Tour template=2",
    "campaign 999999",
    "contact 999999",
    "tagz",
    "contacts limit=0",
    "contact add 12",
    "send +14155550123",
    "campaign 1 send",
    "group 1 remove 999",
    "template delete 1",
  ];
}

describe("a tour of the commands reads as everyday English (issue 9)", () => {
  it("no API member names, no (s), plurals right, no page past the end, no glued sentences, no HTTP codes", async () => {
    const seen: string[] = [];
    const problems: string[] = [];
    for (const line of tourLines()) {
      for (const actor of [undefined, SHELL]) {
        const r = await h().run(line, actor);
        const text = readable(r);
        seen.push(`### ${line} (${actor ? "shell" : "slack"})\n${text}`);
        for (const p of everydayProblems(text)) problems.push(`${line}: ${p}`);
      }
    }
    if (process.env.TOUR_DUMP) writeFileSync(process.env.TOUR_DUMP, seen.join("\n\n"));
    expect([...new Set(problems)]).toEqual([]);
  });

  it("the rules catch what issue 9 found", () => {
    for (const bad of [
      "1 templates",
      "contact(s)",
      "Page 2 of 1",
      "the body groupIds is wrong",
      "give templateParameters",
      "Could not sendCampaign",
      "channel (integration) id",
      "The messaging API failed (HTTP 500)",
      "created Try again",
    ]) {
      expect(everydayProblems(bad), bad).not.toEqual([]);
    }
    expect(everydayProblems("1 contact, 2 contacts, 1,234 contacts, Page 1 of 2.")).toEqual([]);
  });
});
