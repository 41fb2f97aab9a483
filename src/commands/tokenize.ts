// Splits a command line as Slack delivers it (escaping on) into words and
// key=value options. Slack turns what the user typed into its own forms:
// `<@U1|ana>`, `<#C1|general>`, `<https://x|x>`, `<mailto:a@b|a@b>`,
// `<tel:+1…|+1 …>`, `<!subteam^S1|@team>`, smart quotes, and &amp; &lt; &gt;.
// The tokenizer undoes all of that so commands see what the user meant.

import { SwitchboardError } from "../platform/errors.ts";

export interface Token {
  /** `option` when the token is `key=value` with a plain key. */
  kind: "word" | "option";
  /** The decoded text of the whole token (for options: `key=value`). */
  text: string;
  /** Lower-cased option key. */
  key?: string;
  /** Decoded option value. */
  value?: string;
  /** True when any part of the token was quoted: quoted words are never sub-commands or flags. */
  quoted: boolean;
  /** The token as typed (Slack's escaped form kept), to rebuild command lines (paging buttons). */
  raw: string;
}

export class TokenizeError extends SwitchboardError {
  readonly code = "bad_syntax";
}

const DOUBLE_QUOTES = new Set(['"', "“", "”", "„"]);
const SINGLE_QUOTES = new Set(["'", "‘", "’"]);
const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"' };
const OPTION_KEY = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

/** Decodes one Slack escape `<…>` (without its angle brackets) to the text the user meant. */
export function decodeSlackEscape(inner: string): string {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : inner.slice(bar + 1);
  if (target.startsWith("@")) return `<${target}>`; // user mention, kept as a mention
  if (target.startsWith("#")) return target.slice(1); // channel id
  if (target.startsWith("!subteam^")) return `<${target}>`;
  if (target.startsWith("!")) return `<${target}>`;
  if (target.startsWith("mailto:")) return decodeEntities(target.slice("mailto:".length));
  if (target.startsWith("tel:")) return decodeEntities(label ?? target.slice("tel:".length));
  // A link: the URL is what counts (the label is only how Slack showed it).
  return decodeEntities(target);
}

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot);/g, (m) => ENTITIES[m] ?? m);
}

/**
 * The line as the user meant it, Slack's escapes undone (`<@U1|ana>` is
 * `<@U1>`, `&lt;` is `<`): to show it back, always through esc(), so a
 * typed `<!channel>` reads as text and pings nobody.
 */
export function plainLine(line: string): string {
  return line.replace(/<([^<>]*)>|&(?:amp|lt|gt|quot);/g, (m, inner: string | undefined) =>
    inner !== undefined ? decodeSlackEscape(inner) : (ENTITIES[m] ?? m),
  );
}

/** Tokenizes one command line. Throws TokenizeError on an unterminated quote or escape. */
export function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = line.length;
  const isSpace = (c: string) => /\s/.test(c);

  while (i < n) {
    while (i < n && isSpace(line[i]!)) i++;
    if (i >= n) break;
    const start = i;
    let text = "";
    let quoted = false;
    // Length of `text` that came from plain (unquoted, unescaped) characters at its start.
    let plainPrefix = 0;
    let allPlain = true;

    while (i < n && !isSpace(line[i]!)) {
      const c = line[i]!;
      const atQuoteStart = text.length === 0 || text.endsWith("=");
      if ((DOUBLE_QUOTES.has(c) || SINGLE_QUOTES.has(c)) && atQuoteStart) {
        const family = DOUBLE_QUOTES.has(c) ? DOUBLE_QUOTES : SINGLE_QUOTES;
        let j = i + 1;
        let inner = "";
        while (j < n && !family.has(line[j]!)) {
          if (line[j] === "<") {
            const close = line.indexOf(">", j);
            if (close === -1)
              throw new TokenizeError(`unterminated Slack link starting at "${line.slice(j, j + 20)}"`);
            inner += decodeSlackEscape(line.slice(j + 1, close));
            j = close + 1;
          } else {
            inner += line[j];
            j++;
          }
        }
        if (j >= n)
          throw new TokenizeError(`missing closing quote for the text starting at ${line.slice(i, i + 20)}`);
        text += decodeEntities(inner);
        quoted = true;
        allPlain = false;
        i = j + 1;
        continue;
      }
      if (c === "<") {
        const close = line.indexOf(">", i);
        if (close === -1)
          throw new TokenizeError(`unterminated Slack link starting at "${line.slice(i, i + 20)}"`);
        text += decodeSlackEscape(line.slice(i + 1, close));
        allPlain = false;
        i = close + 1;
        continue;
      }
      if (c === "&") {
        const m = /^&(amp|lt|gt|quot);/.exec(line.slice(i, i + 6));
        if (m) {
          text += ENTITIES[m[0]]!;
          if (allPlain) plainPrefix = text.length;
          i += m[0].length;
          continue;
        }
      }
      text += c;
      if (allPlain) plainPrefix = text.length;
      i++;
    }

    const raw = line.slice(start, i);
    const eq = text.indexOf("=");
    const key = eq > 0 ? text.slice(0, eq) : "";
    // An option's key must be typed plainly (not quoted, not a link), so `"a=b"` stays a word.
    if (eq > 0 && eq < plainPrefix && OPTION_KEY.test(key)) {
      tokens.push({ kind: "option", text, key: key.toLowerCase(), value: text.slice(eq + 1), quoted, raw });
    } else {
      tokens.push({ kind: "word", text, quoted, raw });
    }
  }
  return tokens;
}

/** Removes a leading `/sb` (or any `/command`) so lines work with or without it. */
export function stripCommandName(line: string): string {
  return line.trim().replace(/^\/[A-Za-z0-9_-]+(\s+|$)/, "");
}
