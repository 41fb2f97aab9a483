// The shell in-process on two pipes, driven as a person or a pipe drives it.
import { PassThrough } from "node:stream";
import { runShell, type ShellOptions } from "../../src/shell/index.ts";

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
