import type { KnownBlock } from "@slack/types";
import { z } from "zod";
import { ACTION } from "../../blocks/actions.ts";
import { actions, capitalize, context, esc, fieldsSection, header, section } from "../../blocks/blocks.ts";
import type { AnySpec, CommandContext, Registry } from "../registry.ts";
import { pick, show } from "../render.ts";
import type { Reply } from "../types.ts";
import { about, bare, inTopic } from "./shapes.ts";

const command = inTopic("help");

export const TOPICS: Record<string, string> = {
  account: "The API key and its organization",
  channels: "Names of the messaging channels",
  messages: "Send messages, read their status and conversation history",
  contacts: "Contacts, opt-out, import",
  fields: "Custom contact fields",
  groups: "Contact groups and their members",
  tags: "Conversation tags",
  templates: "Message templates",
  campaigns: "Campaigns: create, send, cancel, recipients",
  reports: "Campaign reports: on a schedule in a channel, or now",
  users: "Chat users",
  inbox: "Customers' conversations in Slack threads, answered from the thread",
  workspace: "Connecting this workspace to its messaging account, and its settings (admins)",
  help: "This help",
};

/** The command's words without its options: `campaign <id> send`. */
const shortForm = (c: AnySpec) => {
  const positionals = c.usage.slice(c.words.join(" ").length).match(/^(\s+<[^>]+>)*/)?.[0] ?? "";
  return `${c.words.join(" ")}${positionals}`;
};

/** What most people do first: five commands to try. */
const FIRST_STEPS: Array<[string, string]> = [
  ["campaigns", "the campaigns and how each is going"],
  ["contacts ana", "find a contact by name or number"],
  ["send +1 415 555 0123 Hello!", "send one message"],
  ["report now running", "a report of what is sending now"],
  ["templates status=approved", "the templates ready to use"],
];

/**
 * The forms, as buttons (Slack only: the shell types command lines), each shown only to those who may use
 * it: `write` as a command's access (SWITCHBOARD_WRITERS), `admin` the workspace's admins (settings).
 */
const FORMS: Array<{ text: string; line: string; style?: "primary"; who: "write" | "admin" }> = [
  { text: "New campaign", line: "campaign new", style: "primary", who: "write" },
  { text: "Send a message", line: "send", who: "write" },
  { text: "Import contacts", line: "import", who: "write" },
  { text: "New template", line: "template new", who: "write" },
  { text: "Settings", line: "settings", who: "admin" },
];

/** Slack's `/sb help`: what each topic is for, one line each, its details one `/sb help <topic>` away. */
const SLACK_TOPICS: Array<[string, string]> = [
  ["campaigns", "create, send and follow campaigns"],
  ["messages", "send one message, read its status"],
  ["contacts", "find, add, opt out and import contacts"],
  ["templates", "the messages campaigns send"],
  ["reports", "campaign figures, now or on a schedule"],
  ["inbox", "customers' conversations in Slack threads"],
  ["workspace", "the account and its settings"],
];

/** The shell's `help`: what most people do first, and the full reference one line away. */
function shellStart(): Reply {
  const steps = FIRST_STEPS.map(([line, what]) => `• \`${esc(line)}\` — ${esc(what)}`);
  return {
    visibility: "ephemeral",
    text: `Switchboard: what most people do first\n${steps.join("\n")}`,
    blocks: [
      header("Switchboard"),
      section(`*What most people do first*\n${steps.join("\n")}`),
      context(
        "`help all` lists every command; `help <topic>` (for example `help campaigns`) shows the options and an example.",
      ),
    ],
  };
}

/** Slack's `/sb help`: a short list by topic, the forms the person may use as buttons, every command one click away. */
async function slackStart(ctx: CommandContext): Promise<Reply> {
  const lines = SLACK_TOPICS.map(
    ([topic, what]) => `• *${capitalize(topic)}* — ${esc(what)} · \`/sb help ${topic}\``,
  );
  const [writes, admin] = await Promise.all([
    ctx.may("write").catch(() => false),
    ctx.admin?.mayAdminister(ctx.actor).catch(() => false) ?? false,
  ]);
  const forms = FORMS.filter((f) => (f.who === "write" ? writes : admin));
  const blocks: KnownBlock[] = [header("Switchboard"), section(lines.join("\n"))];
  if (forms.length) {
    blocks.push(
      section("*Fill in a form*"),
      actions(
        forms.map((f, i) => ({
          text: f.text,
          actionId: i ? `${ACTION.run}:${i + 1}` : ACTION.run,
          value: f.line,
          style: f.style,
        })),
      ),
    );
  }
  blocks.push(
    actions([{ text: "All commands", actionId: `${ACTION.run}:${FORMS.length + 1}`, value: "help all" }]),
  );
  return { visibility: "ephemeral", text: `Switchboard help\n${lines.join("\n")}`, blocks };
}

/**
 * A command's words as Slack shows them: no shell advice ("; in the shell, use `campaign add`",
 * "(Slack)", sentences about the shell). The shell keeps the command's own words.
 */
export function slackWords(t: string): string {
  const words = t
    .replace(/\s*\(Slack: ([^;)]*); shell: [^)]*\)/g, " ($1)")
    .replace(/;\s*in the shell,.*$/i, "")
    .replace(/\s*\(Slack\)/g, "");
  if (!/\bIn the shell\b/.test(words)) return words;
  return words
    .split(/(?<=\.) (?=[A-Z])/)
    .filter((sentence) => !sentence.startsWith("In the shell"))
    .join(" ");
}

/** Commands whose words in Slack are not the shell's (`import <path>` reads a file on the host: the shell's). */
const SLACK_FORMS: Record<string, { usage: string; help: string; example: string }> = {
  import: {
    usage: "import [group=] [update=yes|no]",
    help: "Opens the upload form; sharing a CSV or xlsx file with the bot does the same. The preview shows the columns, a sample and the rows that will fail, before anything is imported.",
    example: "import",
  },
};

/** One short section per topic; the options and examples are one `help <topic>` away. */
function overview(registry: Registry): Reply {
  const blocks: KnownBlock[] = [header("Switchboard commands")];
  const lines: string[] = [];
  for (const topic of Object.keys(TOPICS)) {
    const cmds = registry.visible().filter((c) => c.topic === topic);
    if (!cmds.length || topic === "help") continue;
    const line = `*${capitalize(topic)}* — ${esc(TOPICS[topic])}\n${cmds
      .map((c) => `\`${esc(shortForm(c))}\``)
      .join("  ")}`;
    lines.push(line);
    blocks.push(section(line));
  }
  blocks.push(
    context(
      "`/sb help &lt;topic&gt;` (for example `/sb help campaigns`) or `/sb help &lt;command&gt;` shows the options and an example. Options are written `key=value`; quote text with spaces.",
    ),
  );
  return {
    visibility: "ephemeral",
    text: `Switchboard commands: /sb help &lt;topic&gt; for details\n${lines.join("\n")}`,
    blocks,
  };
}

function details(title: string, cmds: AnySpec[], via: string): Reply {
  const slack = via !== "shell";
  const lines = cmds.map((spec) => {
    const own = slack ? SLACK_FORMS[spec.id] : undefined;
    const c = {
      ...spec,
      ...own,
      // The upload form shows its own preview before anything is imported: no "asks for confirmation" line.
      ...(own ? { preview: undefined } : {}),
      summary: slack ? slackWords(spec.summary) : spec.summary,
      help: own?.help ?? (slack && spec.help ? slackWords(spec.help) : spec.help),
    };
    // One option per line: a list reads faster than a paragraph of `a=` …; `b=` ….
    const opts = [
      ...Object.entries(c.options ?? {}).map(([k, d]) => `• \`${k}=\` ${esc(d)}`),
      ...Object.entries(c.flags ?? {}).map(([k, d]) => `• \`${k}\` ${esc(d)}`),
      ...(c.extraOptions ? [`• \`&lt;key&gt;=&lt;value&gt;\` ${esc(c.extraOptions)}`] : []),
    ];
    const parts = [
      // Bold around a `code` span does not render (Slack nor the terminal): plain then.
      `${c.summary.includes("`") ? esc(c.summary) : `*${esc(c.summary)}*`}${c.preview && !/confirm/.test(c.summary) ? " _(asks for confirmation first)_" : ""}`,
      `\`/sb ${esc(c.usage)}\``,
      c.help ? esc(c.help) : "",
      ...opts,
      `Example: \`/sb ${esc(c.example)}\``,
    ];
    return parts.filter(Boolean).join("\n");
  });
  return { visibility: "ephemeral", text: esc(title), blocks: [header(title), ...lines.map(section)] };
}

export const HELP_COMMANDS = [
  command({
    words: ["help"],
    positionals: [{ name: "topic", rest: "text" }],
    schema: z.object({ topic: z.string().optional() }),
    access: "read",
    usage: "help [topic or command]",
    ...about("List the commands, or explain one topic or command", "help campaigns"),
    operations: [],
    run: async (a, ctx) => {
      const registry = ctx.registry;
      const topic = a.topic
        ?.trim()
        .toLowerCase()
        .replace(/^\/sb\s+/, "");
      if (!topic) return ctx.actor.via === "shell" ? shellStart() : slackStart(ctx);
      if (topic === "all" || topic === "commands") return overview(registry);
      if (TOPICS[topic]) {
        return details(
          `Help: ${topic}`,
          registry.visible().filter((c) => c.topic === topic),
          ctx.actor.via,
        );
      }
      const singular = Object.keys(TOPICS).find((t) => t === `${topic}s`);
      if (singular)
        return details(
          `Help: ${singular}`,
          registry.visible().filter((c) => c.topic === singular),
          ctx.actor.via,
        );
      const byWords = registry.visible().filter((c) =>
        c.words
          .filter((w) => !w.startsWith("<"))
          .join(" ")
          .startsWith(topic),
      );
      if (byWords.length) return details(`Help: ${topic}`, byWords, ctx.actor.via);
      return {
        visibility: "ephemeral",
        text: `No help topic "${esc(topic)}"`,
        blocks: [
          section(
            `:warning: There is no help topic \`${esc(topic)}\`. Topics: ${Object.keys(TOPICS)
              .map((t) => `\`${t}\``)
              .join(", ")}.`,
          ),
        ],
      };
    },
  }),
  command({
    ...bare(["me"]),
    summary: "The organization, plan and API key Switchboard uses (the key masked)",
    topic: "account",
    operations: ["getMe"],
    run: async (_a, ctx) => {
      const me = await ctx.api.getMe();
      const org = (me.organization ?? pick(me, "organization", "org")) as Record<string, unknown> | undefined;
      const plan = me.plan ?? pick(me, "plan");
      const key = (me.apiKey ?? pick(me, "apiKey", "api_key", "key")) as Record<string, unknown> | undefined;
      const scopes = key && Array.isArray(key.scopes) ? (key.scopes as string[]).join(", ") : "";
      const pairs: Array<[string, string]> = [
        ["Organization", esc(show(typeof org === "object" ? (org?.name ?? org?.id) : org))],
        [
          "Plan",
          esc(show(typeof plan === "object" && plan ? ((plan as { name?: string }).name ?? "") : plan)),
        ],
        ["API key", esc(`${show(key?.name ?? "")} ${ctx.apiKeyMasked}`.trim())],
      ];
      if (scopes) pairs.push(["Scopes", esc(scopes)]);
      return {
        visibility: "ephemeral",
        text: pairs.map(([k, v]) => `${k}: ${v}`).join("\n"),
        blocks: [header("Account"), ...fieldsSection(pairs)],
      };
    },
  }),
];
