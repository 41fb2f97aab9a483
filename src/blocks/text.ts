// Block Kit and Slack mrkdwn as terminal text: what the shell prints, and the
// one converter for it. Nothing of Slack's markup survives: no *stars*,
// _underscores_ or ~tildes~, no `<@U…>` mentions or `<!date^…>` tokens (the
// fallback is printed), no `:emoji:` codes (a few become symbols, the others
// are left out), no `>` quotes, no `&lt;` entities; links read "text (url)".
// With `color` (the shell sets it on a terminal when NO_COLOR is unset), bold,
// italics, code and a few symbols are drawn with ANSI escapes; without it the
// text is plain.
import type { KnownBlock } from "@slack/types";

export interface TextOptions {
  /** ANSI bold and colours (a terminal, NO_COLOR unset). Default: plain text. */
  color?: boolean;
  /**
   * The zone a Slack date is shown in, named beside it (the shell: the workspace's, as Slack shows each
   * reader theirs); "your time" after one is left out, the zone being said. Unset: the date's fallback.
   */
  tz?: string;
}

type Colour = "green" | "red" | "yellow" | "blue";

interface Paint {
  bold(s: string): string;
  italic(s: string): string;
  strike(s: string): string;
  code(s: string): string;
  dim(s: string): string;
  colour(s: string, c: Colour | undefined): string;
  /** TextOptions.tz. */
  zone?: string;
}

const same = (s: string) => s;
const PLAIN: Paint = {
  bold: same,
  italic: same,
  strike: same,
  code: (s) => `\`${s}\``,
  dim: same,
  colour: same,
};
const sgr = (on: number, off: number) => (s: string) => (s ? `\x1b[${on}m${s}\x1b[${off}m` : s);
const COLOUR_CODE: Record<Colour, number> = { red: 31, green: 32, yellow: 33, blue: 34 };
const ANSI: Paint = {
  bold: sgr(1, 22),
  italic: sgr(3, 23),
  strike: sgr(9, 29),
  code: sgr(36, 39),
  dim: sgr(2, 22),
  colour: (s, c) => (c ? sgr(COLOUR_CODE[c], 39)(s) : s),
};
const paintFor = (o: TextOptions | undefined): Paint => {
  const p = o?.color ? ANSI : PLAIN;
  return o?.tz ? { ...p, zone: o.tz } : p;
};

/**
 * Emoji codes as terminal symbols; a code not listed here is left out. The
 * status icons keep their meaning (✓ done, ✗ failed, ● running), the
 * decorative ones (:calendar:, :memo:, :bar_chart:) go.
 */
const EMOJI: Record<string, [string, Colour?]> = {
  white_check_mark: ["✓", "green"],
  heavy_check_mark: ["✓", "green"],
  ballot_box_with_check: ["✓", "green"],
  x: ["✗", "red"],
  heavy_multiplication_x: ["✗", "red"],
  negative_squared_cross_mark: ["✗", "red"],
  no_entry_sign: ["⊘", "red"],
  no_entry: ["⊘", "red"],
  warning: ["⚠", "yellow"],
  exclamation: ["!", "red"],
  heavy_exclamation_mark: ["!", "red"],
  grey_exclamation: ["!"],
  question: ["?"],
  grey_question: ["?"],
  large_green_circle: ["●", "green"],
  green_circle: ["●", "green"],
  red_circle: ["●", "red"],
  large_yellow_circle: ["●", "yellow"],
  yellow_circle: ["●", "yellow"],
  large_blue_circle: ["●", "blue"],
  blue_circle: ["●", "blue"],
  white_circle: ["○"],
  black_circle: ["●"],
  double_vertical_bar: ["‖"],
  black_square_for_stop: ["■"],
  arrow_forward: ["▶"],
  arrow_right: ["→"],
  arrow_left: ["←"],
  arrow_up: ["↑"],
  arrow_down: ["↓"],
  heavy_plus_sign: ["+"],
  heavy_minus_sign: ["-"],
  small_red_triangle: ["▲", "red"],
  small_red_triangle_down: ["▼", "red"],
  star: ["★"],
  bulb: ["→"],
};

/** `:warning:`, `:+1::skin-tone-2:`; not a time (09:30:00) nor part of a word (a:b:c). */
const EMOJI_CODE = /(?<!\w):((?=[a-z0-9_+'-]*[a-z+-])[a-z0-9_+'-]+):(?!\w)/g;
/** Where a code was left out, until the spaces around it are tidied. */
const GONE = "\uE001";

function emojiToText(s: string, p: Paint): string {
  return s
    .replace(EMOJI_CODE, (_m, name: string) => {
      const [symbol, colour] = EMOJI[name] ?? [""];
      return symbol ? p.colour(symbol, colour) : GONE;
    })
    .replace(/(^|\s)\uE001+ /gm, "$1")
    .replace(/ ?\uE001+/g, "");
}

const ENTITY: Record<string, string> = { lt: "<", gt: ">", amp: "&" };
const decode = (s: string) => s.replace(/&(lt|gt|amp);/g, (_m, e: string) => ENTITY[e] ?? _m);

/** `2026-11-02 07:04 UTC`: the shell's one way of writing a time without a fallback. */
export function utcMinute(d: Date): string {
  return `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * A Slack date in `zone`, as its format asks (a date, a time, seconds), the zone named as the
 * reports name it: "Sun 29 Nov 2026, 11:00 GMT+1", "11:00:05 GMT-3".
 */
export function zonedDate(at: Date, format: string, zone: string): string {
  const part = (o: Intl.DateTimeFormatOptions) =>
    new Intl.DateTimeFormat("en-GB", { timeZone: zone, ...o }).format(at).replace(/,/g, "");
  const date = /\{date/.test(format)
    ? part({ weekday: "short", day: "numeric", month: "short", year: "numeric" })
    : "";
  const secs = /\{time_secs\}/.test(format);
  const time =
    secs || /\{time\}/.test(format) || !date
      ? part({ hour: "2-digit", minute: "2-digit", ...(secs ? { second: "2-digit" } : {}), hourCycle: "h23" })
      : "";
  const offset =
    new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "shortOffset" })
      .formatToParts(at)
      .find((x) => x.type === "timeZoneName")?.value ?? "GMT";
  const name = offset === "GMT" ? "GMT+0" : offset;
  return `${[date, time].filter(Boolean).join(", ")} ${name}`;
}

/** One `<…>` token of mrkdwn as text: a date's fallback, a mention's name, a link's "text (url)". */
function angleToText(inner: string, p: Paint): string {
  const bar = inner.indexOf("|");
  const target = bar >= 0 ? inner.slice(0, bar) : inner;
  const label = bar >= 0 ? inner.slice(bar + 1) : "";
  if (target.startsWith("!date^")) {
    const [, stamp = "", format = ""] = target.split("^");
    const seconds = Number(stamp);
    if (p.zone && stamp && Number.isFinite(seconds))
      return zonedDate(new Date(seconds * 1000), format, p.zone);
    if (label) return label;
    return stamp && Number.isFinite(seconds) ? utcMinute(new Date(seconds * 1000)) : "";
  }
  const at = (name: string) => `@${name.replace(/^@/, "")}`;
  if (target.startsWith("@")) return at(label || target.slice(1));
  if (target.startsWith("#")) return `#${label.replace(/^#/, "") || target.slice(1)}`;
  if (target.startsWith("!subteam^")) return at(label || target.slice("!subteam^".length));
  if (target.startsWith("!")) return at(label || target.slice(1));
  const url = target;
  const shown = url.startsWith("mailto:") ? url.slice("mailto:".length) : url;
  if (!label || label === url || label === shown) return shown;
  return `${label} ${p.dim(`(${url})`)}`;
}

/**
 * Private-use characters (taken out of the text first) mark, while the markup
 * is read: the tokens set aside, the codes left out, the quoted lines.
 */
const MARK = "\uE000";
const ANGLE = /<([^<>\n]*)>/g;
/** Marks a quoted line while its text is read. */
const QUOTE = "\uE002";

/** Bold, italic and strike as Slack reads them: markers at word edges, on one line. */
function emphasis(s: string, p: Paint): string {
  const around = (marker: string, paint: (t: string) => string) => {
    const m = marker === "*" ? "\\*" : marker;
    const re = new RegExp(`(?<![\\w${m}])${m}(?=[^\\s${m}])([^${m}\\n]*?[^\\s${m}])${m}(?![\\w${m}])`, "g");
    return (t: string) => t.replace(re, (_x, inner: string) => paint(inner));
  };
  let out = s;
  out = around("*", p.bold)(out);
  out = around("_", p.italic)(out);
  out = around("~", p.strike)(out);
  return out;
}

/** Text outside code: tokens set aside, emoji, emphasis, then tokens back and entities decoded. */
function inlineToText(s: string, p: Paint): string {
  const tokens: string[] = [];
  // Slack shows a date in each reader's zone ("09:00 your time"); shown in a zone named beside it, it is not "yours".
  // A fallback in UTC says its zone too.
  const text = s.replace(/(<!date\^[^<>\n]*>) your time\b/g, (m, token: string) =>
    p.zone || / UTC>$/.test(token) ? token : m,
  );
  let out = text.replace(ANGLE, (_m, inner: string) => {
    tokens.push(angleToText(inner, p));
    return `${MARK}${tokens.length - 1}${MARK}`;
  });
  out = emphasis(emojiToText(out, p), p);
  out = out.replace(new RegExp(`${MARK}(\\d+)${MARK}`, "g"), (_m, i: string) => tokens[Number(i)] ?? "");
  return decode(out);
}

/** Code keeps its characters: only tokens (a link in a code span) and entities are read. */
const codeToText = (s: string, p: Paint) =>
  decode(s.replace(ANGLE, (_m, inner: string) => angleToText(inner, { ...p, dim: same })));

const CODE = /```([\s\S]*?)```|`([^`\n]+)`/g;

/** Slack mrkdwn as terminal text (see the top of this file). */
export function mrkdwnToText(text: string, opts?: TextOptions): string {
  const p = paintFor(opts);
  const source = text.replace(/[\uE000-\uE002]/g, "");
  // Quotes first, line by line, outside code blocks: `> text` / `&gt; text`.
  let fence = false;
  const quoted = source.split("\n").map((line) => {
    const fences = (line.match(/```/g) ?? []).length;
    const isQuote = !fence && /^(&gt;|>)/.test(line);
    if (fences % 2 === 1) fence = !fence;
    return isQuote ? { quote: true, line: line.replace(/^(&gt;|>) ?/, "") } : { quote: false, line };
  });
  const body = quoted.map((q) => (q.quote ? `${QUOTE}${q.line}` : q.line)).join("\n");
  let out = "";
  let last = 0;
  let afterBlock = false;
  const prose = (s: string) => {
    // A code block stands on its own lines, as Slack draws it: no spaces around it.
    out += inlineToText(afterBlock ? s.replace(/^[ \t]*\n?/, "") : s, p);
    afterBlock = false;
  };
  for (const m of body.matchAll(CODE)) {
    prose(body.slice(last, m.index));
    if (m[1] !== undefined) {
      const lines = m[1].replace(/^\n/, "").replace(/\n$/, "").split("\n");
      out = out.replace(/[ \t]+$/, "");
      if (out && !out.endsWith("\n")) out += "\n";
      out += lines.map((l) => `  ${codeToText(l, p)}`).join("\n");
      const rest = body.slice(m.index + m[0].length);
      if (rest.trim()) out += "\n";
      afterBlock = true;
    } else {
      out += p.code(codeToText(m[2] ?? "", p));
    }
    last = m.index + m[0].length;
  }
  prose(body.slice(last));
  return out.replaceAll(QUOTE, p.dim("│ "));
}

/** Block Kit's plain_text: only emoji codes are markup there. */
function plainToText(s: string, p: Paint): string {
  return emojiToText(s, p).trim();
}

type TextObject = { type: string; text: string } | undefined;
const textOf = (t: TextObject, p: Paint, o?: TextOptions) =>
  t ? (t.type === "mrkdwn" ? mrkdwnToText(t.text, o) : plainToText(t.text, p)) : "";

/** A field (`*Label*\nvalue`) as `Label: value`, a value of several lines indented below its label. */
function fieldToText(t: TextObject, p: Paint, o?: TextOptions): string {
  const text = textOf(t, p, o);
  const nl = text.indexOf("\n");
  if (nl < 0) return text;
  const label = text.slice(0, nl);
  const value = text.slice(nl + 1).trimEnd();
  if (!value.trim()) return label;
  if (!value.includes("\n")) return `${label}: ${value}`;
  return `${label}:\n${value
    .split("\n")
    .map((l) => `  ${l}`)
    .join("\n")}`;
}

// biome-ignore lint/suspicious/noExplicitAny: elements of every kind, read defensively.
type Loose = any;

/** A button the shell can show: one whose value is a command to type, or a link. */
function buttonToText(e: Loose, p: Paint, runAction: string): string {
  if (e?.type !== "button") return "";
  const label = plainToText(String(e.text?.text ?? ""), p);
  if (typeof e.url === "string") return `[${label}: ${e.url}]`;
  if (typeof e.action_id === "string" && e.action_id.startsWith(runAction) && e.value)
    return `[${label}: ${e.value}]`;
  // Other buttons open forms or act in Slack; the shell has no clicks.
  return "";
}

/** rich_text elements as text (messages people write arrive as rich_text). */
function richToText(el: Loose, p: Paint): string {
  if (!el || typeof el !== "object") return "";
  switch (el.type) {
    case "text": {
      let s = String(el.text ?? "");
      if (el.style?.code) return p.code(s);
      if (el.style?.bold) s = p.bold(s);
      if (el.style?.italic) s = p.italic(s);
      if (el.style?.strike) s = p.strike(s);
      return s;
    }
    case "link":
      return el.text && el.text !== el.url ? `${el.text} ${p.dim(`(${el.url})`)}` : String(el.url ?? "");
    case "user":
      return `@${el.user_id}`;
    case "usergroup":
      return `@${el.usergroup_id}`;
    case "channel":
      return `#${el.channel_id}`;
    case "broadcast":
      return `@${el.range}`;
    case "emoji":
      return emojiToText(`:${el.name}:`, p);
    case "date":
      if (p.zone && Number.isFinite(el.timestamp))
        return zonedDate(new Date(el.timestamp * 1000), String(el.format ?? "{date} {time}"), p.zone);
      return el.fallback ?? (Number.isFinite(el.timestamp) ? utcMinute(new Date(el.timestamp * 1000)) : "");
    case "color":
      return String(el.value ?? "");
    case "rich_text_section":
      return (el.elements ?? []).map((c: Loose) => richToText(c, p)).join("");
    case "rich_text_preformatted":
      return (el.elements ?? [])
        .map((c: Loose) => richToText(c, PLAIN))
        .join("")
        .split("\n")
        .map((l: string) => `  ${l}`)
        .join("\n");
    case "rich_text_quote":
      return (el.elements ?? [])
        .map((c: Loose) => richToText(c, p))
        .join("")
        .split("\n")
        .map((l: string) => `${p.dim("│ ")}${l}`)
        .join("\n");
    case "rich_text_list":
      return (el.elements ?? [])
        .map(
          (c: Loose, i: number) =>
            `${"  ".repeat(el.indent ?? 0)}${el.style === "ordered" ? `${i + 1}.` : "•"} ${richToText(c, p)}`,
        )
        .join("\n");
    default:
      return "";
  }
}

/** Block Kit as terminal text: one block a paragraph; buttons that run a command show it. */
export function blocksToText(
  blocks: readonly KnownBlock[],
  opts?: TextOptions & { runAction?: string },
): string {
  const p = paintFor(opts);
  const runAction = opts?.runAction ?? "sb_run";
  const parts: string[] = [];
  for (const block of blocks) {
    const b = block as Loose;
    switch (b.type) {
      case "header":
        parts.push(p.bold(`== ${plainToText(b.text?.text ?? "", p)} ==`));
        break;
      case "section": {
        const lines: string[] = [];
        if (b.text) lines.push(textOf(b.text, p, opts));
        for (const f of b.fields ?? []) lines.push(fieldToText(f, p, opts));
        const accessory = buttonToText(b.accessory, p, runAction);
        if (accessory) lines.push(accessory);
        parts.push(lines.filter((l) => l !== "").join("\n"));
        break;
      }
      case "context":
        parts.push(
          p.dim(
            (b.elements ?? [])
              .map((e: Loose) => (typeof e?.text === "string" ? textOf(e, p, opts) : ""))
              .filter(Boolean)
              .join("  "),
          ),
        );
        break;
      case "divider":
        parts.push("----");
        break;
      case "actions":
        parts.push(
          (b.elements ?? [])
            .map((e: Loose) => buttonToText(e, p, runAction))
            .filter(Boolean)
            .join(" "),
        );
        break;
      case "image": {
        const title = b.title?.text ? plainToText(b.title.text, p) : "";
        const alt = typeof b.alt_text === "string" ? b.alt_text : "";
        parts.push(`[image: ${title || alt || "picture"}]`);
        break;
      }
      case "rich_text":
        parts.push((b.elements ?? []).map((e: Loose) => richToText(e, p)).join("\n"));
        break;
      default:
        break;
    }
  }
  return parts.filter((s) => s.trim() !== "").join("\n");
}
