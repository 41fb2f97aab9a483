// A tour of many commands through the core, as a new user would take it
// (issue 9 §1): help, lists, adds, errors, pages. Every answer is read as
// text and held to the everyday rules: no API member names, no "(s)", plurals
// right, no page past the last one, no glued sentences, no HTTP codes; and
// (issue 30) every family's mistakes answered without grammar or commands the
// person did not type, every form without setting names, typed commands or ids.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { blocksToText } from "../../src/blocks/blocks.ts";
import { TOPICS } from "../../src/commands/defs/help.ts";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import type { FormRequest } from "../../src/commands/form-kinds.ts";
import { ACTION, type Actor, type Reply } from "../../src/commands/types.ts";
import { replyToText } from "../../src/shell/index.ts";
import { auditSentence } from "../../src/slack/features/audit-words.ts";
import { createHomeView } from "../../src/slack/features/home/view.ts";
import { formView } from "../../src/slack/forms/index.ts";
import { templateParams } from "../../src/slack/forms/parts.ts";
import { SETTINGS_GROUPS, settingsGroupModal } from "../../src/slack/forms/settings.ts";
import { auditMessage } from "../../src/slack/io/bridge.ts";
import { WorkspaceStores } from "../../src/store/workspace-stores.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { SHELL, SLACK_USER, useHarness } from "./helpers.ts";

const h = useHarness();

/** What a person reads: the fallback text and the blocks as text. */
const readable = (r: Reply) => `${r.text}\n${blocksToText(r.blocks)}`;

const PLURALS =
  "saved replies|contacts|templates|groups|tags|campaigns|recipients|messages|users|chat users|fields|pages|rows|members|channels|schedules|reports|placeholders|requests|conversations|values|errors";

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
  // Issue 39 §2: a plural made by cutting an "s" ("1 saved replie"), a word said twice ("`now` now"), and one spelling (the app's "colour").
  find("a plural cut short", /\b\d+ [a-z ]*\w(?:ie|che|sse)\b(?!s)/g);
  find("a word said twice", /\b([a-z]{2,})`? +`?\1\b/g);
  find("“Color” where the app says “Colour”", /\bColor\b/g);
  find(
    "developer word",
    /\(integration\)|\(body\)|\bE(?:NOENT|NOTFOUND|CONNREFUSED|CONNRESET|AI_AGAIN)\b|\bundefined\b|\bnull\b|\[object Object\]/g,
  );
  // Issue 39 §2: the words a team member met and could not use.
  find(
    "developer word",
    /\(scopes?:|\bwithin \d+ (?:API )?reads\b|\barguments\b|is not understood|`?npm start`?|[Ss]et where Switchboard runs|\{\{\w+\}\}:/g,
  );
  return problems;
}

/** The headline texts of a reply: sections and headers, not the quiet context lines where numbers belong. */
function headlines(r: Reply): string {
  const out: string[] = [];
  for (const b of r.blocks as Array<{
    type: string;
    text?: { text?: string };
    fields?: Array<{ text: string }>;
  }>) {
    if (b.type === "section" || b.type === "header") {
      if (b.text?.text) out.push(b.text.text);
      for (const f of b.fields ?? []) out.push(f.text);
    }
  }
  return out.join("\n");
}

/**
 * Issue 22's rules: no id where a name is known (in the headlines), no API
 * path, no setting name, and in the terminal no raw Slack markup nor
 * Slack-only advice.
 */
function namesProblems(r: Reply, shell: boolean): string[] {
  const problems: string[] = [];
  const find = (name: string, text: string, re: RegExp) => {
    for (const m of text.matchAll(re)) problems.push(`${name}: “${m[0]}”`);
  };
  const all = `${r.text}\n${blocksToText(r.blocks)}`;
  find(
    "an id where a name is known",
    headlines(r),
    /\b(?:[Cc]ontact|[Cc]hat user|[Tt]ag|[Gg]roup|[Tt]emplate|[Ff]ield|[Mm]essage) #\d+ (?:created|changed|deleted|sent|opted|submitted)|sent to (?:contact|chat user) #\d+|\bcontact #\d+ · /g,
  );
  find("an API path", all, /\/v1\/|\b(?:GET|POST|PUT|PATCH|DELETE) \/[a-z]/g);
  find(
    "an API field path",
    all,
    /\b(?:template\.parameters|custom_fields|contacts|groupIds|contactIds)\.(?!csv\b)\w+|\b\d+ does not name an? /g,
  );
  find(
    "a setting name",
    all,
    /\b(?:SWITCHBOARD|MESSAGING|SLACK|WORKFLOW|IMPORT|AUDIT|DEFAULT|API)_[A-Z_]{2,}\b/g,
  );
  if (shell) {
    const printed = replyToText(r);
    find(
      "raw mrkdwn in the terminal",
      printed,
      /(?<![\w*])\*[^*\s][^*\n]*\*(?![\w*])|<(?:@[UW]|#C|!(?:here|channel|subteam))|<https?:[^>]*\||&(?:lt|gt|amp);|(?<![\w:]):[a-z][a-z0-9_+-]*:(?![\w\d])/g,
    );
    find("Slack-only advice in the terminal", printed, /type # and pick|Slack's list|(?<!`)\/sb /g);
  }
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
    // Issue 22: refusals a status answers, names after writes, people as recipients.
    "campaign 1 cancel",
    "campaign 1 recipients",
    `tag add "Tour tag ${stamp}" #123456`,
    "send contact:1 template=order_update lang=en first_name=Ana order_id=T-2",
    "send +14155550123",
    "inbox on #nosuch",
    "report every day at 09:00 to nosuch",
    // Issue 39 §2: a word a schedule does not know; a schedule made where nothing posts it (the shell).
    "report 1 evry day at 09:00",
    "report 1 every day at 09:00 C0GENERAL",
    "report now all",
    // Issue 22 §4: the API's refusals name the field as typed.
    "group 1 add 999",
    "send contact:999 hello",
    `contact add +1415556${String(stamp).padStart(4, "0").slice(-4)} points=abc`,
    // Issue 30: every family, mistyped and misused; settings; refusals in words.
    ...MISTAKES,
    "settings",
    "channels",
    // One saved reply, counted: "1 saved reply" (issue 39 §2).
    "reply add tour_thanks Thank you {first_name|there}!",
    "replies",
    "inbox",
    "report list",
  ];
}

/** Answers to mistakes, one or more per command family (issue 30 §3). */
const MISTAKES = [
  "campain 2",
  "campaign 2 sned",
  "campaign",
  "campaign abc",
  "campaigns status=nope",
  "tgas",
  "tag add Hot red",
  "tag 999999 edit color=#000000",
  "contacs",
  "contact abc",
  "contact add 12",
  "group ad Foo",
  "group abc",
  "templat 1",
  "template abc",
  "fiels",
  "field add",
  "user abc",
  "usres",
  "send",
  "send 12 hola",
  "send +1415 image",
  "send +1415 template=x",
  "histroy 1",
  "repot now all",
  "report now",
  "chanels",
  "channel name abc Main",
  "inbox assign C0NOPE 1 me",
  "inbox resolve",
  "inbox of",
  "reply add",
  "settings set nope=1",
  "settings set country=XX",
  "connect key=",
];

/** A reply that answers a mistake: its first block is a warning. */
const isMistake = (r: Reply) =>
  (r.blocks[0] as { text?: { text?: string } } | undefined)?.text?.text?.startsWith(":warning:") ?? false;

/**
 * Issue 30's rules for an answer to a mistake: no `|`/`<…>` grammar, and no
 * command the person did not type (the corrected line of what they typed,
 * and help, excepted).
 */
function mistakeProblems(line: string, r: Reply): string[] {
  if (!isMistake(r)) return [];
  const problems: string[] = [];
  // A saved reply's `{first_name|there}` is its own syntax, not grammar.
  const text = `${r.text}\n${blocksToText(r.blocks)}`.replace(/\{[^{}\n]*\}/g, "{…}");
  for (const m of text.matchAll(/&lt;[^&\n]{1,40}&gt;|`[^`\n]*\s\|\s[^`\n]*`|`[^`\n]*\w\|\w[^`\n]*`/g))
    problems.push(`grammar in an answer to a mistake: “${m[0]}”`);
  const typed = line.trim().split(/\s+/)[0]!.toLowerCase();
  for (const m of text.matchAll(/`\/sb ([^`\n]+)`/g)) {
    const cmd = m[1]!.trim();
    const first = cmd.split(/\s+/)[0]!.toLowerCase();
    const corrected = text.includes(`Did you mean \`/sb ${cmd}\``);
    // The same family ("report list" → `/sb reports`), help, or the corrected line.
    const family = (w: string) => w.replace(/s$/, "");
    if (family(first) === family(typed) || first === "help" || corrected || cmd === line.trim()) continue;
    problems.push(`a command the person did not type: “/sb ${cmd}”`);
  }
  return problems;
}

/** With AUDIT_DUMP set, the audit's lines of what the tests wrote, for reading them by eye. */
function dumpAudits(): void {
  if (process.env.AUDIT_DUMP)
    console.log(
      h()
        .audits.map((e) => auditMessage(e).text)
        .join("\n"),
    );
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

  it("names, not ids; no API path, no setting name; no Slack markup in the terminal; hints run as printed (issue 22)", async () => {
    const problems: string[] = [];
    const hints = new Set<string>();
    for (const line of tourLines()) {
      for (const actor of [undefined, SHELL]) {
        const r = await h().run(line, actor);
        for (const p of [...namesProblems(r, actor === SHELL), ...mistakeProblems(line, r)])
          problems.push(`${line} (${actor ? "shell" : "slack"}): ${p}`);
        if (r.confirmation) await h().core.dismiss(r.confirmation.id, actor ?? SLACK_USER);
        if (actor !== SHELL) continue;
        for (const b of r.blocks as Array<{
          type: string;
          elements?: Array<{ action_id?: string; value?: string }>;
        }>) {
          for (const e of b.type === "actions" ? (b.elements ?? []) : []) {
            if (e.action_id?.startsWith(ACTION.run) && e.value) hints.add(e.value);
          }
        }
      }
    }
    // Every button the shell prints as a hint runs as printed: no input error, no usage.
    for (const hint of hints) {
      const r = await h().run(hint, SHELL);
      if (r.confirmation) await h().core.dismiss(r.confirmation.id, SHELL);
      if (/is required|unexpected|Usage:|is not a command/i.test(replyToText(r)))
        problems.push(`hint “${hint}” does not run as printed: ${replyToText(r).slice(0, 160)}`);
    }
    expect([...new Set(problems)]).toEqual([]);
  });

  it("issue 22's rules catch what it found", () => {
    const reply = (text: string): Reply => ({
      visibility: "ephemeral",
      text,
      blocks: [{ type: "section", text: { type: "mrkdwn", text } }] as Reply["blocks"],
    });
    for (const bad of [
      "Message #7 (text) sent to chat user #1",
      "Tag #3 deleted",
      "contact #100061 · failed",
      "ask the operator to add you to SWITCHBOARD_WRITERS",
      "The messaging API refused: POST /v1/campaigns/1/cancel",
      "• *template.parameters.first_name* is required",
      "• *contactId* 999 does not name a contact",
      "• *custom_fields.points* must be a number",
    ]) {
      expect(namesProblems(reply(bad), false), bad).not.toEqual([]);
    }
    // What the terminal converter misses: bold around a code span, Slack-only advice.
    expect(namesProblems(reply("*Create one (with `campaign add`)*"), true)).not.toEqual([]);
    expect(namesProblems(reply("type # and pick the channel from Slack's list"), true)).not.toEqual([]);
    expect(namesProblems(reply("Tag *Sales* deleted"), false)).toEqual([]);
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
      "Page 1 of 1 · 1 saved replie",
      "• `now` now, even in the quiet hours",
      "Color: #123456",
      "(the service could not be reached (ENOTFOUND))",
      "Connected to Acme (scopes: read, write).",
      "at least where a count was not read, within 10 reads",
      "• *arguments* `evry` is not understood",
      "It runs while the Slack app runs (`npm start` with the token set).",
    ]) {
      expect(everydayProblems(bad), bad).not.toEqual([]);
    }
    expect(everydayProblems("1 contact, 2 contacts, 1,234 contacts, Page 1 of 2.")).toEqual([]);
  });
});

describe("every edit command with an empty value (issue 39 §3)", () => {
  it("is refused in words, naming how to clear where a field may be empty, and writes nothing", async () => {
    const writes = () => h().forwarder.requests.filter((r) => !r.startsWith("GET ")).length;
    const audits = () => h().audits.length;
    const problems: string[] = [];
    const edits = ALL_COMMANDS.filter(
      (c) => /\.edit$|^settings\.set$/.test(c.id) && Object.keys(c.options ?? {}).length,
    );
    expect(edits.map((c) => c.id).sort()).toEqual(
      expect.arrayContaining([
        "contact.edit",
        "field.edit",
        "group.edit",
        "settings.set",
        "tag.edit",
        "user.edit",
      ]),
    );
    for (const c of edits) {
      const at = (c.positionals ?? []).map(() => "1");
      for (const option of Object.keys(c.options ?? {})) {
        const line = [...c.words, ...at, `${option}=`].join(" ");
        const [before, kept] = [writes(), audits()];
        const r = await h().run(line, c.id === "settings.set" ? SHELL : undefined);
        const said = readable(r);
        if (!said.includes(`\`${option}=\` has no value`))
          problems.push(`${line}: not refused in words: ${said.slice(0, 160)}`);
        if (
          /\b(?:changed|cleared|saved)\b(?! nothing)/i.test(
            blocksToText(r.blocks).replace(/nothing was (?:changed|saved)/gi, ""),
          )
        )
          problems.push(`${line}: says something changed: ${said.slice(0, 160)}`);
        if (writes() !== before || audits() !== kept) problems.push(`${line}: wrote`);
      }
    }
    expect(problems).toEqual([]);
  });
});

describe("every form reads in the team's words (issue 30 §3)", () => {
  const origin = { kind: "environment", name: "SWITCHBOARD_WRITERS" } as const;
  const settings = {
    writers: { value: ["U0ALICE", "S0SUPPORT"], origin },
    broadcasters: { value: [], origin: { kind: "default" } as const },
    auditChannel: { value: "C0AUDIT", origin: { kind: "environment", name: "AUDIT_CHANNEL" } as const },
    messagingChannel: { value: 2, origin: { kind: "environment", name: "MESSAGING_CHANNEL_ID" } as const },
    reportsTimeZone: { value: undefined, origin: { kind: "default" } as const },
    workflowSteps: {
      value: "writers" as const,
      origin: { kind: "environment", name: "WORKFLOW_STEPS" } as const,
    },
    country: { value: "ES", origin: { kind: "environment", name: "DEFAULT_COUNTRY" } as const },
    away: { value: undefined, origin: { kind: "default" } as const },
    awayNow: { value: undefined, origin: { kind: "default" } as const },
    quietHours: { value: "21:00-08:00", origin: { kind: "default" } as const },
    businessHours: { value: "mon-fri 09:00-18:00", origin: { kind: "default" } as const },
    approvers: { value: ["U0LUIS", "S0SUPPORT"], origin: { kind: "default" } as const },
    approveFrom: { value: 500, origin: { kind: "default" } as const },
  };
  const record = { id: 3, phone: "+14155550100", name: "Ana", custom_fields: { birthday: "1990-01-02" } };
  const fields = [
    { key: "loyalty_tier", label: "Loyalty tier", type: "text" },
    { key: "birthday", label: "Birthday", type: "date" },
  ];
  const requests: FormRequest[] = [
    {
      kind: "campaign",
      data: { channels: [1, 2], defaultChannelId: 1, tags: [], groups: [{ id: 1, name: "VIP" }] },
    },
    { kind: "send", data: { channels: [1, 2], defaultChannelId: 1 } },
    { kind: "template", data: { channels: [] } },
    { kind: "contact", data: { id: 3, record, fields } },
    { kind: "chat-user", data: { id: 3, record, fields } },
    { kind: "import", data: { groups: [] } },
    { kind: "connect", data: { demo: true } },
    {
      kind: "settings",
      data: {
        settings,
        channels: [
          { id: 1, name: "Main line" },
          { id: 2, name: "Support" },
        ],
        groups: { available: true, names: { S0SUPPORT: "Support team (@support)" } },
      },
    },
  ];
  const actor = { userId: "U0ALICE", channelId: "C0GENERAL", via: "slack" as const };

  /** What a person reads in a view: titles, labels, hints, placeholders, texts, options. */
  function readable(view: unknown): string[] {
    const out: string[] = [];
    const walk = (v: unknown, key = "") => {
      if (typeof v === "string") {
        if (["text", "title"].includes(key)) out.push(v);
        return;
      }
      if (Array.isArray(v)) for (const x of v) walk(x, key);
      else if (v && typeof v === "object")
        for (const [k, x] of Object.entries(v)) if (k !== "private_metadata" && k !== "value") walk(x, k);
    };
    walk(view);
    return out;
  }

  it("no setting name, no typed command, no id where a name is known, no hint against its value", () => {
    const problems: string[] = [];
    // The settings form: its list of groups and each group's own form (issue 39 §2).
    const views = requests.flatMap((r) => [
      { r, view: formView(r, actor) as unknown },
      ...(r.kind === "settings"
        ? SETTINGS_GROUPS.map((g) => ({ r, view: settingsGroupModal(r.data, g, {}) as unknown }))
        : []),
    ]);
    for (const { r, view } of views) {
      for (const text of readable(view)) {
        if (
          /\b(?:SWITCHBOARD|MESSAGING|SLACK|WORKFLOW|IMPORT|AUDIT|DEFAULT|API|REPORTS)_[A-Z_]{2,}\b/.test(
            text,
          )
        )
          problems.push(`${r.kind}: a setting name in “${text}”`);
        if (/\/sb |settings set/.test(text)) problems.push(`${r.kind}: a typed command in “${text}”`);
        if (/where Switchboard runs|\{\{\w+\}\}$/.test(text))
          problems.push(`${r.kind}: a developer's word in “${text}”`);
        if (/\bS0[A-Z0-9]+\b|(?:^|\s|\()#\d+\b|Custom field/.test(text))
          problems.push(`${r.kind}: an id in “${text}”`);
      }
    }
    // A chosen template's placeholders (the campaign and send forms): a label in words, its line as the hint (issue 39 §2).
    const chosen = { id: 1, name: "order_update", language: "en", placeholders: ["first_name", "order_id"] };
    const body = "Hi {{first_name}},\nyour order {{order_id}} is on its way.";
    for (const b of templateParams({ ...chosen, body }, undefined) as Array<{
      type: string;
      label?: { text: string };
      hint?: { text: string };
      elements?: Array<{ text: string }>;
    }>) {
      // The template quoted above the inputs: its placeholders by name in words (issue 39).
      if (
        b.type === "context" &&
        (!b.elements?.[0]?.text.includes("[First name]") || /\{\{/.test(b.elements[0].text))
      )
        problems.push(`a quoted template with its placeholders as code: “${b.elements?.[0]?.text}”`);
      if (b.type !== "input") continue;
      if (/\{\{|\}\}|_/.test(b.label?.text ?? "")) problems.push(`a placeholder's label “${b.label?.text}”`);
      if (!b.hint?.text.includes(`[${b.label?.text}]`) || /\{\{/.test(b.hint.text))
        problems.push(`a placeholder without its line, its place marked: “${b.hint?.text}”`);
    }
    const settingsRequest = requests.at(-1) as Extract<FormRequest, { kind: "settings" }>;
    const s = settingsGroupModal(settingsRequest.data, "people", {}) as {
      blocks: Array<{ block_id?: string; hint?: { text: string } }>;
    };
    const hint = s.blocks.find((b) => b.block_id === "writers")?.hint?.text ?? "";
    if (/Nobody chosen/.test(hint)) problems.push(`settings: “${hint}” under a chosen person`);
    dumpAudits();
    expect(problems).toEqual([]);
  });
});

describe("the audit's lines of the tour's writes (issue 39 §1)", () => {
  it("are sentences of what the person did: no “Typed” for a click, no command syntax, no ids, no ISO times", async () => {
    const stamp = Date.now() % 100000;
    const problems: string[] = [];
    const clicked = { ...SLACK_USER, how: "button" as const };
    const typed = { ...SLACK_USER, how: "typed" as const };
    const campaign = await h().run(
      `campaign add "Audit tour ${stamp}" template=1 group=1 first_name=Ana order_id=A-7`,
    );
    const id = Number(/campaign #(\d+)/i.exec(campaign.text)?.[1]);
    expect(id, campaign.text).toBeGreaterThan(0);
    const at = new Date(Date.now() + 3 * 86_400_000).toISOString();
    const form = { ...SLACK_USER, how: "form" as const };
    const csv = join(mkdtempSync(join(tmpdir(), "tour-")), "tour.csv");
    writeFileSync(
      csv,
      `phone,first_name\n+14155552${String(stamp).padStart(3, "0").slice(-3)},Tour\n12,Nobody\n`,
    );
    const writes: Array<readonly [string, Actor]> = [
      [`tag add "Audit ${stamp}" #FF0000`, typed],
      [`group add "Audit ${stamp}"`, clicked],
      [`contact add +14155550${String(stamp).padStart(3, "0").slice(-3)} firstName=Tour`, clicked],
      [`campaign ${id} send at=${at}`, clicked],
      [`campaign ${id} cancel start`, clicked],
      [`send +14155550100 "Hello" channel=99`, typed],
      [`campaign ${id} test +14155550123`, clicked],
      // Issue 39 §3: every kind of write, typed, clicked or from a form.
      [`tag edit 1 description="Tour ${stamp}"`, typed],
      [`group edit 1 description="Tour ${stamp}"`, form],
      [`field add tour_${stamp} Tour field`, form],
      ["contact edit 1 last=Tour", form],
      ['user edit 1 address="1 Tour Street"', form],
      ["contact opt-out 2", clicked],
      ["contact opt-in 2", clicked],
      ["group 1 add 2", clicked],
      ["group 1 remove 2", typed],
      [`reply add tour_${stamp} Thank you!`, form],
      ["channel name 2 Tour line", clicked],
      ["send contact:1 template=order_update lang=en first_name=Ana order_id=T-9", form],
      [`import ${csv} update=no`, SHELL],
      ["settings set quiet=22:00-07:00", SHELL],
    ];
    for (const [line, actor] of writes) {
      const r = await h().run(line, actor);
      if (r.confirmation) await h().core.confirm(r.confirmation.id, actor);
    }
    const tag = (await h().client.listTags()).items.find((t) => t.name === `Audit ${stamp}`);
    for (const line of [`tag delete ${tag?.id}`, `campaign ${id} delete`]) {
      const r = await h().run(line, clicked);
      if (r.confirmation) await h().core.confirm(r.confirmation.id, clicked);
    }
    // Every kind of write the tour made is in the audit, each as its own sentence.
    const kinds = new Set(h().audits.map((e) => e.operation));
    for (const op of [
      "updateTag",
      "updateGroup",
      "createContactField",
      "updateContact",
      "updateChatUser",
      "optOutContact",
      "addGroupContacts",
      "removeGroupContacts",
      "importContacts",
      "deleteTag",
    ])
      if (!kinds.has(op)) problems.push(`${op}: no audit line for it`);
    for (const e of h().audits) {
      const post = auditMessage(e);
      const sentence = auditSentence(e);
      const context = JSON.stringify(post.blocks[1]);
      const say = (p: string) =>
        problems.push(`${e.operation} (${e.how ?? "-"}, ${e.command}): ${p}: ${sentence}`);
      if (/`|\w=\S|\b(?:tried:|a change|undefined|null)\b/.test(sentence)) say("not a sentence");
      if (/\d{4}-\d\d-\d\dT\d\d:\d\d/.test(`${sentence}${context}`)) say("an ISO time");
      if (/#\d{7,}/.test(sentence)) say("a phone's digits as a record's number");
      // A record that exists is named (one that does not has only its number).
      if (e.ok && /\b(?:group|contact|chat user|tag|field|template) #\d+/.test(sentence))
        say("an id where a name is known");
      if (/<#[DU][A-Z0-9]+>/.test(`${sentence}${context}`)) say("a DM's or a person's id as a channel");
      if (e.how !== "typed" && /Typed/.test(context)) say("“Typed” for what was not typed");
      if (e.how === "typed" && !context.includes("Typed")) say("a typed line not kept");
    }
    // The Home tab's recent changes: the same sentences, with their date, never a typed line.
    const home = await createHomeView({
      client: h().client,
      stores: new WorkspaceStores(h().db, h().workspace),
      apiKey: "sb_test_tour",
    })(SLACK_USER.userId);
    const recent = JSON.stringify(home.blocks).match(/Recent changes[^"]*/)?.[0] ?? "";
    if (!recent.includes(":white_check_mark:"))
      problems.push(`Home: no recent change shown: ${recent.slice(0, 200)}`);
    for (const line of recent.split("\\n").slice(1)) {
      if (/Typed|`|\w=\S/.test(line)) problems.push(`Home: a typed line or command syntax: ${line}`);
      if (/\d{4}-\d\d-\d\dT\d\d:\d\d/.test(line)) problems.push(`Home: an ISO time: ${line}`);
      if (/<#[DU][A-Z0-9]+>|#\d{7,}/.test(line)) problems.push(`Home: an id: ${line}`);
    }
    dumpAudits();
    expect(problems).toEqual([]);
  });
});

itLeavesBUntouched(h);
