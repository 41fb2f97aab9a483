// A mistyped command: the line as typed with the closest command's words put
// right, ready to run ("Did you mean `/sb campaign 2`?"); never the grammar
// of several commands. Levenshtein distance over the command's own words;
// nothing is suggested when nothing is really close.
import { distance } from "fastest-levenshtein";
import { esc } from "../../blocks/blocks.ts";
import { errorReply } from "../errors.ts";
import { type AnySpec, bindArguments, type Registry } from "../registry.ts";
import type { Token } from "../tokenize.ts";
import type { Reply } from "../types.ts";

const isSlot = (w: string) => w.startsWith("<");

/** How far a word may be from a command's, as a share of the command's letters. */
const CLOSE = 0.5;

/**
 * The typed line with the closest command's words corrected ("campain 2" →
 * "campaign 2", "campaign 2 sned" → "campaign 2 send"); undefined when no
 * command is close, or when the line needs no correction.
 */
export function correctedLine(
  registry: Registry,
  tokens: Token[],
): { line: string; spec: AnySpec } | undefined {
  let best: { spec: AnySpec; score: number; literals: number } | undefined;
  for (const spec of registry.visible()) {
    if (spec.words.length > tokens.length) continue;
    let edits = 0;
    let letters = 0;
    let literals = 0;
    let ok = true;
    for (let i = 0; i < spec.words.length; i++) {
      const w = spec.words[i]!;
      const t = tokens[i]!;
      if (t.kind !== "word" || t.quoted) {
        ok = false;
        break;
      }
      if (isSlot(w)) {
        // A slot takes what was typed; a number where a number is expected, a word elsewhere.
        if (/^<(?:id|campaign-id|conversation-id)>$/.test(w) && !/^#?\d+$/.test(t.text)) ok = false;
        continue;
      }
      const d = distance(t.text.toLowerCase(), w);
      if (d / w.length > CLOSE) {
        ok = false;
        break;
      }
      edits += d;
      letters += w.length;
      literals++;
    }
    if (!ok || !literals || edits === 0) continue;
    // Only a line that would run as that command (its words all taken): "campaign 2 sned" is not `campaigns`.
    if (!binds(registry, spec, tokens)) continue;
    const score = edits / letters;
    if (!best || score < best.score || (score === best.score && literals > best.literals))
      best = { spec, score, literals };
  }
  if (!best) return undefined;
  const words = best.spec.words.map((w, i) => (isSlot(w) ? tokens[i]!.raw : w));
  const rest = tokens.slice(best.spec.words.length).map((t) => t.raw);
  return { line: [...words, ...rest].join(" "), spec: best.spec };
}

/** Whether the rest of the typed line binds to `spec`'s arguments. */
function binds(registry: Registry, spec: AnySpec, tokens: Token[]): boolean {
  const fixed: Token[] = tokens.map((t, i) =>
    i < spec.words.length && !isSlot(spec.words[i]!)
      ? { ...t, text: spec.words[i]!, raw: spec.words[i]! }
      : t,
  );
  const match = registry.match(fixed);
  if (match?.spec !== spec) return false;
  try {
    bindArguments(spec, match);
    return true;
  } catch {
    return false;
  }
}

/** "Did you mean `/sb campaign 2`?": the line to run, not a button (a write runs only when typed). */
export function didYouMean(lead: string, corrected: { line: string }): Reply {
  return errorReply(`${lead} Did you mean \`/sb ${esc(corrected.line)}\`?`);
}

export function unknownCommand(registry: Registry, tokens: Token[]): Reply {
  const typed = tokens
    .filter((t) => t.kind === "word")
    .slice(0, 3)
    .map((t) => t.text.toLowerCase());
  const unknown = `There is no command \`/sb ${esc(typed.join(" "))}\`.`;
  const corrected = correctedLine(registry, tokens);
  if (corrected) return didYouMean(unknown, corrected);
  return errorReply(unknown, "`/sb help` lists every command.");
}
