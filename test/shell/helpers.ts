// The shell in-process on two pipes, driven as a person or a pipe drives it.
import { PassThrough } from "node:stream";
import { runShell, type ShellOptions } from "../../src/shell/index.ts";
import { eventually } from "../helpers/eventually.ts";

export interface ShellIo {
  input: PassThrough;
  output: PassThrough;
  /** Everything the shell printed so far. */
  text(): string;
  /** runShell on these two pipes. */
  run(opts: Omit<ShellOptions, "input" | "output">): Promise<number>;
}

function pipes(onOutput?: (seen: string) => void): ShellIo {
  const input = new PassThrough();
  const output = new PassThrough();
  let seen = "";
  output.on("data", (d) => {
    seen += String(d);
    onOutput?.(seen);
  });
  return { input, output, text: () => seen, run: (opts) => runShell({ ...opts, input, output }) };
}

/** Types each line only once the shell has asked for it (a prompt or a y/N question), as a person would. */
export function scriptedIo(lines: string[]): ShellIo {
  let asked = 0;
  const io = pipes((seen) => {
    const prompts = (seen.match(/sb> |\[y\/N\] /g) ?? []).length;
    while (asked < prompts && asked < lines.length) io.input.write(`${lines[asked++]}\n`);
  });
  return io;
}

/** Every line written at once on a pipe, which is then closed (left open with `end: false`). */
export function pipedIo(lines: string[], opts: { end?: boolean } = {}): ShellIo {
  const io = pipes();
  io.input.write(lines.map((l) => `${l}\n`).join(""));
  if (opts.end !== false) io.input.end();
  return io;
}

/** What a terminal shows: readline's cursor moves and carriage returns left out. */
export const screen = (raw: string) =>
  raw
    .split("\x1b[")
    .map((part, i) => (i === 0 ? part : part.replace(/^[0-9;]*[A-Za-z]/, "")))
    .join("")
    .replace(/\r/g, "");

/**
 * A terminal driven by hand: `type` writes text as it comes (a paste is one
 * write, several lines), whether or not the shell has asked; `until` waits
 * for the screen to show something.
 */
export interface TerminalIo extends ShellIo {
  type(text: string): void;
  /** Waits until the screen (what the shell printed, cursor moves left out) matches; returns it. */
  until(pattern: RegExp, what?: string): Promise<string>;
}

export function terminalIo(): TerminalIo {
  const io = pipes();
  return {
    ...io,
    type: (text) => io.input.write(text),
    until: (pattern, what = String(pattern)) =>
      eventually(() => pattern.test(screen(io.text())) && screen(io.text()), what, {
        timeoutMs: 20_000,
        detail: () => screen(io.text()),
      }),
  };
}
