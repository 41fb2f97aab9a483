// A line that names no command: the commands closest to what was typed
// (Levenshtein distance over the command's words), or none when nothing is
// really close.
import { distance } from "fastest-levenshtein";
import { esc } from "../../blocks/blocks.ts";
import { errorReply } from "../errors.ts";
import type { Registry } from "../registry.ts";
import type { Token } from "../tokenize.ts";
import type { Reply } from "../types.ts";

export function unknownCommand(registry: Registry, tokens: Token[]): Reply {
  const typed = tokens
    .filter((t) => t.kind === "word")
    .slice(0, 3)
    .map((t) => t.text.toLowerCase());
  const scored = registry.visible().map((spec) => {
    const words = spec.words.filter((w) => !w.startsWith("<"));
    const a = typed.slice(0, words.length).join(" ");
    return { spec, d: distance(a, words.join(" ")) / Math.max(1, words.join(" ").length) };
  });
  scored.sort((x, y) => x.d - y.d);
  // Only commands that are really close: "foo" suggests nothing rather than three unrelated ones.
  const close = scored.filter((s) => s.d <= 0.5).slice(0, 3);
  const suggestions = close.map((s) => `• \`/sb ${esc(s.spec.usage)}\``);
  const unknown = `There is no command \`/sb ${esc(typed.join(" "))}\`.`;
  return errorReply(
    suggestions.length ? `${unknown} Did you mean:\n${suggestions.join("\n")}` : unknown,
    "`/sb help` lists every command.",
  );
}
