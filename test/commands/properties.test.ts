// Properties of the tokenizer and the command core over generated command
// lines (fast-check): every line gets an answer, nothing throws, and nothing
// the user typed becomes a ping (`<!channel>`, `<!here>`, `<@U…>`) in a reply
// or in the audit post. The core runs against the sandbox, as in the other
// command tests; each file has its own sandbox, so the writes here stay here.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ALL_COMMANDS } from "../../src/commands/defs/index.ts";
import { TokenizeError, tokenize } from "../../src/commands/tokenize.ts";
import type { Actor, Reply } from "../../src/commands/types.ts";
import { auditMessage } from "../../src/slack/io/bridge.ts";
import { itLeavesBUntouched } from "../helpers/stack-many.ts";
import { expectSlackValid, useHarness } from "./helpers.ts";

const h = useHarness();

// The actor's own id is a legitimate mention (who may confirm); the input's are UEVIL….
const ACTOR: Actor = { userId: "U0WRITER", userName: "writer", channelId: "C0GENERAL", via: "slack" };

/** What Slack sends for pings, and what a user typing the brackets themselves sends. */
const PINGS = [
  "<!channel>",
  "<!here>",
  "<!everyone>",
  "<!channel|@channel>",
  "<!here|here>",
  "<@UEVIL1>",
  "<@UEVIL2|boss>",
  "<!subteam^SEVIL|@team>",
  "&lt;!channel&gt;",
  "&lt;@UEVIL3&gt;",
  "<!date^1|x>",
];
/** A ping that would notify someone, anywhere in Slack mrkdwn. */
const LIVE_PING = /<!(channel|here|everyone)\b|<@UEVIL|<!subteam\^SEVIL/i;
const INTERNAL = /Cannot read properties|is not a function|is not defined|TypeError|ReferenceError/;

/** Command words with their `<slot>`s filled, so lines reach each command's own checks. */
const PREFIXES = [
  "",
  ...new Set(ALL_COMMANDS.map((c) => c.words.map((w) => (w.startsWith("<") ? "1" : w)).join(" "))),
];

const ping = fc.constantFrom(...PINGS);
const piece = fc.oneof(
  ping,
  fc.string({ maxLength: 12 }),
  fc.constantFrom("1", "#1", "+14155550123", "#FF0000", "yes", "contact:1", "lang=en", "x"),
  fc
    .tuple(fc.constantFrom("name", "first", "body", "description", "label", "text", "topic"), ping)
    .map(([k, p]) => `${k}=${p}`),
  fc.tuple(ping, fc.string({ maxLength: 6 })).map(([p, s]) => `"${p} ${s}"`),
  fc.tuple(fc.string({ maxLength: 4 }), ping, fc.string({ maxLength: 4 })).map(([a, p, b]) => a + p + b),
);
/** Free text with a ping in it, quoted so it stays one argument. */
const pinged = fc
  .tuple(fc.string({ maxLength: 4 }), ping, fc.constantFrom("", " x", " <@UEVIL1>"))
  .map(([a, p, b]) => `"${a.replace(/["“”„'‘’<>&]/g, "")}${p}${b}"`);
const phone = fc.integer({ min: 2_000_000, max: 9_999_999 }).map((n) => `+1415${n}`);
/** Writes that succeed and echo what was typed: names, labels, texts, descriptions. */
const echoing = fc.oneof(
  pinged.map((n) => `tag add ${n} #FF0000 description=${n}`),
  pinged.map((n) => `group add ${n}`),
  fc.tuple(phone, pinged).map(([p, n]) => `contact add ${p} first=${n} last=${n}`),
  fc.tuple(fc.integer({ min: 1, max: 1_000_000 }), pinged).map(([k, n]) => `field add k${k} ${n}`),
  pinged.map((n) => `tag 1 edit name=${n}`),
  pinged.map((n) => `tag edit 1 description=${n}`),
  fc.tuple(phone, pinged).map(([p, n]) => `send ${p} ${n}`),
  pinged.map((n) => `help ${n}`),
  pinged.map((n) => `contacts ${n}`),
  pinged.map((n) => `campaign add ${n} template=1 group=1`),
  pinged.map((n) => `tag 1 delete ${n}`),
  pinged.map((n) => `group 1 remove 1 ${n}`),
);
const line = fc.oneof(
  fc
    .tuple(fc.constantFrom(...PREFIXES), fc.array(piece, { maxLength: 6 }))
    .map(([prefix, rest]) => [prefix, ...rest].join(" ")),
  echoing,
);

/** The fallback text and every mrkdwn text of the blocks: where Slack turns `<!channel>` into a ping. */
function shown(r: { text: string; blocks: unknown[] }): string {
  const out = [r.text];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "mrkdwn" && typeof o.text === "string") out.push(o.text);
      for (const x of Object.values(o)) walk(x);
    }
  };
  walk(r.blocks);
  return out.join("\n");
}

function expectSafe(reply: Reply, input: string) {
  expectSlackValid(reply);
  expect(shown(reply), input).not.toMatch(LIVE_PING);
  expect(shown(reply), input).not.toMatch(INTERNAL);
}

describe("tokenize, on any line", () => {
  it("returns tokens or refuses with a TokenizeError, nothing else", () => {
    fc.assert(
      fc.property(
        fc.oneof(line, fc.string({ maxLength: 80 }), fc.string({ unit: "binary", maxLength: 40 })),
        (l) => {
          try {
            const tokens = tokenize(l);
            for (const t of tokens) expect(t.text.length + t.raw.length).toBeGreaterThan(0);
          } catch (err) {
            expect(err).toBeInstanceOf(TokenizeError);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("the core, on any line", () => {
  it("answers, throws nothing, and echoes no ping from the input in a reply or an audit post", async () => {
    const { core, audits } = h();
    await fc.assert(
      fc.asyncProperty(line, fc.boolean(), async (input, confirm) => {
        const before = audits.length;
        const reply = await core.run(input, ACTOR);
        expectSafe(reply, input);
        if (reply.confirmation) {
          const id = reply.confirmation.id;
          expectSafe(await (confirm ? core.confirm(id, ACTOR) : core.dismiss(id, ACTOR)), input);
        }
        for (const entry of audits.slice(before)) {
          const post = auditMessage(entry);
          expect(shown(post), input).not.toMatch(LIVE_PING);
        }
      }),
      { numRuns: 300 },
    );
  }, 300_000);

  it("an audit post shows a typed ping as text", async () => {
    const { core, audits } = h();
    const before = audits.length;
    await core.run('tag add "<!channel> <@UEVIL1>" #FF0000 description=<!here>', ACTOR);
    const entry = audits.slice(before).find((e) => e.operation === "createTag")!;
    const post = auditMessage(entry);
    expect(shown(post)).toContain("&lt;!channel&gt; &lt;@UEVIL1&gt;");
    expect(post.text).not.toMatch(LIVE_PING);
  });
});

itLeavesBUntouched(h);
