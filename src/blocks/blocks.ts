// Block Kit builders that stay inside Slack's limits (the shell's text
// rendering is in text.ts). Slack refuses a whole message when one limit is
// crossed, so every reply goes through finishBlocks() before it leaves.
import type { ActionsBlock, Button, KnownBlock, SectionBlock } from "@slack/types";

export const LIMITS = {
  blocksPerMessage: 50,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  contextElements: 10,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  actionsElements: 25,
  fallbackText: 3000,
} as const;

/** Escapes text for Slack mrkdwn: only &, < and > are special. */
export function esc(text: unknown): string {
  return String(text ?? "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

/** A count as people read it: 50,000. */
export const num = (n: number): string => n.toLocaleString("en-US");

/** `approved` → `Approved`: a word from the API as the start of a label. */
export const capitalize = (s: string): string => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** "1 template", "2 templates", "50,000 contacts": `plural` defaults to `one` + "s". */
export const count = (n: number, one: string, plural = `${one}s`): string =>
  `${num(n)} ${n === 1 ? one : plural}`;

/** Escapes `<…>` placeholders in a message (`<id>`), keeping Slack's own forms (mentions, links). */
export function escPlaceholders(text: string): string {
  return text.replace(/<(?![@#!]|https?:|mailto:)([^<>]*)>/g, "&lt;$1&gt;");
}

/** An instant with a time and a zone (`2026-11-02T07:04:40.409Z`); plain dates are not. */
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * A time Slack shows in each reader's own zone ("Nov 2, 2026 at 7:04 AM",
 * "Yesterday at …"); the fallback, which the shell prints, is UTC.
 */
export function slackDate(when: string | Date): string {
  const d = when instanceof Date ? when : new Date(when);
  if (Number.isNaN(d.getTime())) return esc(String(when));
  const fallback = `${d.toISOString().slice(0, 16).replace("T", " ")} UTC`;
  return `<!date^${Math.floor(d.getTime() / 1000)}^{date_short_pretty} at {time}|${fallback}>`;
}

export function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

export const section = (text: string): SectionBlock => ({
  type: "section",
  text: { type: "mrkdwn", text: truncate(text, LIMITS.sectionText) },
});

export const fieldsSection = (pairs: Array<[string, string]>): SectionBlock[] => {
  const out: SectionBlock[] = [];
  for (let i = 0; i < pairs.length; i += LIMITS.sectionFields) {
    out.push({
      type: "section",
      fields: pairs.slice(i, i + LIMITS.sectionFields).map(([label, value]) => ({
        type: "mrkdwn" as const,
        text: truncate(`*${esc(label)}*\n${value || " "}`, LIMITS.fieldText),
      })),
    });
  }
  return out;
};

export const header = (text: string): KnownBlock => ({
  type: "header",
  text: { type: "plain_text", text: truncate(text, LIMITS.headerText) },
});

export const context = (text: string): KnownBlock => ({
  type: "context",
  elements: [{ type: "mrkdwn", text: truncate(text, LIMITS.sectionText) }],
});

export const divider = (): KnownBlock => ({ type: "divider" });

export interface ButtonSpec {
  text: string;
  actionId: string;
  value: string;
  style?: "primary" | "danger";
}

export const actions = (buttons: ButtonSpec[]): ActionsBlock => ({
  type: "actions",
  elements: buttons.slice(0, LIMITS.actionsElements).map(
    (b): Button => ({
      type: "button",
      text: { type: "plain_text", text: truncate(b.text, LIMITS.buttonText) },
      action_id: b.actionId,
      value: truncate(b.value, LIMITS.buttonValue),
      ...(b.style ? { style: b.style } : {}),
    }),
  ),
});

/**
 * Lines grouped into as few sections as fit 3000 characters each, so a list
 * of 100 records costs a handful of blocks, not 100.
 */
export function linesToSections(lines: string[]): SectionBlock[] {
  const out: SectionBlock[] = [];
  let current = "";
  for (const line of lines) {
    const l = truncate(line, LIMITS.sectionText);
    if (current && current.length + 1 + l.length > LIMITS.sectionText) {
      out.push(section(current));
      current = "";
    }
    current = current ? `${current}\n${l}` : l;
  }
  if (current) out.push(section(current));
  return out;
}

/**
 * Makes a message Slack accepts: at most 50 blocks (the last says what was
 * left out), unique block_id and action_id (a suffix `:n` on repeats, so
 * listeners match action ids by prefix: see ACTION_ID_PATTERN).
 */
export function finishBlocks(blocks: KnownBlock[]): KnownBlock[] {
  let list = blocks;
  if (list.length > LIMITS.blocksPerMessage) {
    const dropped = list.length - (LIMITS.blocksPerMessage - 1);
    list = [
      ...list.slice(0, LIMITS.blocksPerMessage - 1),
      context(`… ${dropped} more block(s) left out to fit one Slack message.`),
    ];
  }
  const actionIds = new Map<string, number>();
  return list.map((block, i) => {
    const copy = { ...block, block_id: `sb_${i + 1}` } as KnownBlock;
    if (copy.type === "actions") {
      copy.elements = copy.elements.map((el) => {
        if (!("action_id" in el) || !el.action_id) return el;
        const seen = actionIds.get(el.action_id) ?? 0;
        actionIds.set(el.action_id, seen + 1);
        return seen === 0 ? el : { ...el, action_id: `${el.action_id}:${seen + 1}` };
      }) as typeof copy.elements;
    }
    return copy;
  });
}

// The shell's text: one converter, in text.ts.
export { blocksToText, mrkdwnToText } from "./text.ts";
