// The console front end: the same command lines as Slack (with or without
// `/sb`), answers as terminal text on stdout (src/blocks/text.ts: no Slack
// markup; bold and colour only on a terminal without NO_COLOR). On a terminal
// it is interactive with history (kept under DATA_DIR); on piped input it runs
// each line in order and ends. `exit` or `quit` ends both. Confirmations become
// y/N prompts; piped input has no one to ask, so only `--yes` confirms there.
// No line is lost on a terminal either: lines pasted at once or typed while an
// answer prints wait their turn (TypedLines), and one typed before a y/N
// question is not its answer: it runs once the question is answered.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { userInfo } from "node:os";
import { dirname } from "node:path";
import { createInterface, type Interface } from "node:readline";
import type { KnownBlock } from "@slack/types";
import { ACTION } from "../blocks/actions.ts";
import { blocksToText, mrkdwnToText, type TextOptions } from "../blocks/text.ts";
import type { Actor, CommandCore, Reply } from "../commands/types.ts";

export interface ShellOptions {
  core: CommandCore;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  /** A person at a terminal: prompt, history, y/N questions. */
  interactive: boolean;
  /** Answer every confirmation yes (piped input). */
  yes?: boolean;
  /** Where the interactive history is kept. */
  historyFile?: string;
  /** Bold and colours; default: when `output` is a terminal and NO_COLOR is unset. */
  color?: boolean;
  /** The workspace's time zone as set now: Slack's dates are shown in it, as Slack shows each reader's. */
  zone?: () => Promise<string | undefined>;
}

/** Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org). */
export function wantsColor(output: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean((output as { isTTY?: boolean }).isTTY) && !env.NO_COLOR;
}

const QUIT = new Set(["exit", "quit", "\\q", ":q"]);

/** Runs until the input ends (or `exit`); returns the process exit code. */
export async function runShell(opts: ShellOptions): Promise<number> {
  const actor: Actor = { userId: "shell", userName: safeUserName(), via: "shell", how: "typed" };
  const color = opts.color ?? wantsColor(opts.output);
  const print = (text: string) => opts.output.write(`${text}\n`);
  const show = async (reply: Reply) => {
    const tz = await opts.zone?.().catch(() => undefined);
    print(replyToText(reply, { color, ...(tz ? { tz } : {}) }));
  };
  return opts.interactive ? interactive(opts, actor, print, show) : piped(opts, actor, print, show);
}

function safeUserName(): string | undefined {
  try {
    return userInfo().username;
  } catch {
    return undefined;
  }
}

const isConfirmButtons = (b: KnownBlock | undefined) =>
  b?.type === "actions" &&
  b.elements.some((e) => "action_id" in e && e.action_id?.startsWith(ACTION.confirm));

/**
 * A reply as terminal text. The shell asks y/N instead of the confirm buttons,
 * so they are left out, with the note above them (who may click, until when).
 */
export function replyToText(reply: Reply, opts: TextOptions = {}): string {
  const blocks = reply.confirmation
    ? reply.blocks.filter(
        (b, i, all) => !isConfirmButtons(b) && !(b.type === "context" && isConfirmButtons(all[i + 1])),
      )
    : reply.blocks;
  return blocksToText(blocks, opts) || mrkdwnToText(reply.text, opts);
}

type Print = (text: string) => void;
type Show = (reply: Reply) => Promise<void>;

async function piped(opts: ShellOptions, actor: Actor, print: Print, show: Show): Promise<number> {
  const rl = createInterface({ input: opts.input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  let first = true;
  for await (const raw of rl) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    if (QUIT.has(line.toLowerCase())) break;
    // A blank line between answers, none after the last.
    if (!first) print("");
    first = false;
    const reply = await opts.core.run(line, actor);
    await show(reply);
    if (reply.confirmation) {
      if (opts.yes) {
        print("Confirmed (--yes).");
        await show(await opts.core.confirm(reply.confirmation.id, actor));
      } else {
        await opts.core.dismiss(reply.confirmation.id, actor);
        print(
          "Not confirmed: the input is not a terminal, so nobody can answer y/N. To confirm, run with --yes (npm start --silent -- --yes).",
        );
      }
    }
  }
  return 0;
}

function loadHistory(file: string | undefined): string[] {
  if (!file) return [];
  try {
    // readline wants the newest first; the file keeps the oldest first.
    return readFileSync(file, "utf8").split("\n").filter(Boolean).reverse();
  } catch {
    return [];
  }
}

function saveHistory(file: string | undefined, history: string[]) {
  if (!file) return;
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${[...history].reverse().join("\n")}\n`, { mode: 0o600 });
  } catch {
    // History is a convenience: a read-only folder must not stop the shell.
  }
}

/**
 * The lines a person types, none lost: readline hands over every line as it
 * arrives (a paste is many at once; a line typed while an answer is still on
 * its way comes in between questions), and they wait here in order. A line
 * that arrives while the shell is asking is shown after its prompt already
 * (readline echoed it there); a line typed ahead was echoed where the answers
 * were being printed, so it is shown again after its prompt when its turn comes.
 */
class TypedLines {
  private readonly waiting: string[] = [];
  private asking: ((line: string | null) => void) | undefined;
  /** Whether the shell is asking y/N (else it waits for a command). */
  private question = false;
  private ended = false;
  private readonly rl: Interface;
  private readonly output: NodeJS.WritableStream;
  /** `onLine` is called as each line arrives, before it waits its turn (with whether it answers a question). */
  constructor(rl: Interface, output: NodeJS.WritableStream, onLine: (raw: string, answers: boolean) => void) {
    this.rl = rl;
    this.output = output;
    rl.on("line", (raw) => {
      const ask = this.asking;
      onLine(raw, ask !== undefined && this.question);
      if (ask) {
        this.asking = undefined;
        ask(raw);
      } else this.waiting.push(raw);
    });
    rl.once("close", () => {
      this.ended = true;
      const ask = this.asking;
      this.asking = undefined;
      ask?.(null);
    });
  }

  /** The next command line: one typed ahead (shown after the prompt), else the one typed at the prompt; null at the end. */
  next(prompt: string): Promise<string | null> {
    const ahead = this.waiting.shift();
    if (ahead !== undefined) {
      this.output.write(`${prompt}${ahead}\n`);
      return Promise.resolve(ahead);
    }
    return this.wait(prompt, false);
  }

  /** An answer: the next line typed after the question, never one typed before it; null at the end. */
  ask(question: string): Promise<string | null> {
    return this.wait(question, true);
  }

  private wait(prompt: string, question: boolean): Promise<string | null> {
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => {
      this.asking = resolve;
      this.question = question;
      this.rl.setPrompt(prompt);
      this.rl.prompt();
    });
  }
}

async function interactive(opts: ShellOptions, actor: Actor, print: Print, show: Show): Promise<number> {
  const rl = createInterface({
    input: opts.input,
    output: opts.output,
    terminal: true,
    history: loadHistory(opts.historyFile),
    historySize: 1000,
    removeHistoryDuplicates: true,
  });
  // The history property exists on terminal interfaces; it is not in the typings.
  const history = () => (rl as unknown as { history: string[] }).history ?? [];
  // readline puts each line in the history as it arrives; answers to y/N and
  // the word that leaves are not commands, so they come out at once.
  const lines = new TypedLines(rl, opts.output, (raw, answers) => {
    if ((answers || QUIT.has(raw.trim().toLowerCase())) && history()[0] === raw) history().shift();
  });

  print("Switchboard shell: type a command (`help` lists them), `exit` to leave.");
  while (true) {
    const raw = await lines.next("sb> ");
    if (raw === null) break;
    const line = raw.trim();
    if (!line) continue;
    if (QUIT.has(line.toLowerCase())) break;
    const reply = await opts.core.run(line, actor);
    await show(reply);
    if (reply.confirmation) {
      const answer = (await lines.ask("Confirm? [y/N] ")) ?? "";
      const yes = /^(y|yes)$/i.test(answer.trim());
      const result = yes
        ? await opts.core.confirm(reply.confirmation.id, actor)
        : await opts.core.dismiss(reply.confirmation.id, actor);
      await show(result);
    }
    saveHistory(opts.historyFile, history());
  }
  saveHistory(opts.historyFile, history());
  rl.close();
  return 0;
}
