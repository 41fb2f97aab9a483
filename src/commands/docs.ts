// docs/commands.md, generated from the registry and OPERATIONS so it cannot
// drift: `node --import tsx src/commands/docs.ts` rewrites it, and
// test/commands/docs.test.ts fails when the file is out of date.
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OPERATIONS } from "../api/operations.ts";
import { TOPICS } from "./defs/help.ts";
import { ALL_COMMANDS } from "./defs/index.ts";
import type { AnySpec } from "./registry.ts";

const cell = (s: string) => s.replace(/\|/g, "\\|");

export function renderCommandsDoc(commands: AnySpec[] = ALL_COMMANDS): string {
  const lines: string[] = [
    "# Commands",
    "",
    "Generated from `src/commands/defs/` by `node --import tsx src/commands/docs.ts`; a test fails when this file is stale.",
    "Every command works as `/sb …` in Slack and, with or without `/sb`, in the shell (`npm start` without Slack tokens).",
    "Ids and numbers are written in decimal digits (`12`, `#12`; not `0x10` or `1e1`). A command line may be at most",
    "4,000 characters. What you type is shown back as text: a typed `@channel` or `@someone` never pings from a reply or the audit channel.",
    "An option typed with nothing after it (`name=`) is refused, naming how to give a value; a field is cleared only when asked plainly,",
    '`name=""` (where it may be empty: a group\'s name may not), and the answer says "name cleared".',
    "",
    "Who may run them: read commands, everyone; write commands, `SWITCHBOARD_WRITERS` (empty: everyone);",
    "campaign send and cancel, `SWITCHBOARD_BROADCASTERS` (empty: the writers). Deletes, group member removal,",
    "campaign send and cancel ask for confirmation, which only the user who asked can give, once, within 15 minutes.",
    "",
    "A confirmed command whose outcome is not known is never called failed and never run again from its button:",
    "when the messaging API gave no answer to a write that may have reached it, or when Switchboard stopped while",
    "carrying it out, the answer and every later click on Confirm say the outcome is unknown and to check (a campaign:",
    "its status, with a button that shows the campaign) before running the command again. At start, `src/host/compose.ts` marks",
    "the confirmations an earlier process left running as unknown, every workspace's (`Confirmations.settleInterruptedAll` in",
    "`src/store/confirmations.ts`); a process still running one, sharing the PostgreSQL database, records its real outcome over it.",
    "",
    "## Operation → command",
    "",
    "| Operation | Method and path | Command |",
    "|---|---|---|",
  ];
  for (const op of OPERATIONS) {
    // The command whose first-listed operation it is, else any that calls it.
    const owners = commands.filter((c) => c.operations[0] === op.fn);
    const users = owners.length ? owners : commands.filter((c) => c.operations.includes(op.fn));
    const shown = users.map((c) => `\`/sb ${cell(c.usage)}\``).join("<br>") || "—";
    lines.push(`| \`${op.fn}\` | ${op.method} \`${op.path}\` | ${shown} |`);
  }
  lines.push("", "## Reference", "");
  for (const topic of Object.keys(TOPICS)) {
    const cmds = commands.filter((c) => c.topic === topic && !c.hidden);
    if (!cmds.length) continue;
    lines.push(`### ${topic}`, "");
    for (const c of cmds) {
      lines.push(
        `- \`/sb ${c.usage}\` — ${c.summary}. Access: ${c.access}.${c.preview ? " Asks for confirmation." : ""}`,
      );
      if (c.help) lines.push(`  ${c.help}`);
      for (const [k, d] of Object.entries(c.options ?? {})) lines.push(`  - \`${k}=\` ${d}`);
      for (const [k, d] of Object.entries(c.flags ?? {})) lines.push(`  - \`${k}\` ${d}`);
      if (c.extraOptions) lines.push(`  - \`<key>=<value>\` ${c.extraOptions}`);
      lines.push(`  - Example: \`/sb ${c.example}\``);
    }
    lines.push("");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

export const COMMANDS_DOC = fileURLToPath(new URL("../../docs/commands.md", import.meta.url));

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(COMMANDS_DOC, renderCommandsDoc());
  process.stdout.write(`wrote ${COMMANDS_DOC}\n`);
}
