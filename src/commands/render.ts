// How records and pages look. Response bodies are not in the spec, so a
// record is shown by the names the spec gives first and every other scalar
// member after them, as it came; members that look like secrets are masked.
import type { KnownBlock } from "@slack/types";
import type { ApiRecord, Page } from "../api/types.ts";
import {
  actions,
  context,
  count,
  esc,
  fieldsSection,
  header,
  ISO_INSTANT,
  linesToSections,
  section,
  slackDate,
} from "../blocks/blocks.ts";
import { pick, type RefNames, show } from "../domain/records.ts";
import { maskSecret } from "../platform/log.ts";
import { ACTION, type Reply } from "./types.ts";

export { pick, type RefNames, show };

/** Members that hold credentials by their name (a contact field's `key` is a slug, not a secret). */
const SECRET_KEY = /(secret|token|password|api_?key$)/i;
/** Values that are credentials by their look: Slack and vendor token prefixes, or long mixed-case tokens. */
const looksLikeSecret = (v: string) =>
  /^(xox[abeprs]-|xapp-|sk_|rk_|pk_live_)/.test(v) ||
  (v.length >= 24 &&
    !/\s/.test(v) &&
    /[A-Z]/.test(v) &&
    /[a-z]/.test(v) &&
    /\d/.test(v) &&
    !/^https?:/.test(v));

/** Labels users know these members by (the flags and options use the same words). */
const LABELS: Record<string, string> = {
  integrationId: "Channel",
  channelId: "Channel",
  conversationTagId: "Tag",
  chatUserId: "Chat user",
  waIdentified: "On WhatsApp",
  bodyText: "Body",
  footerText: "Footer",
  headerText: "Header",
  needHuman: "Needs a human",
  hasUnreadMessages: "Unread messages",
  unreadCount: "Unread",
  memberCount: "Members",
  templateParameters: "Placeholder values",
  scheduledAt: "Starts at",
  // The app's one spelling (the tag's card, its options, the refusals): the API's member is `color`.
  color: "Colour",
};

const camelKey = (k: string) => k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** `createdAt` and `created_at` → `Created at` (sentence case, as Slack writes labels). */
export const humanize = (key: string) =>
  LABELS[camelKey(key)] ??
  key
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/_/g, " ")
    .toLowerCase()
    .replace(/\bid\b/g, "ID")
    .replace(/^./, (c) => c.toUpperCase());

/** A member naming another record (`templateId: 3`): shown as `Template` `#3`. */
const REF_KEY = /^(.+?)(Id|_id)$/;

/** One value as mrkdwn: dates in the reader's time zone, yes/no, small objects as lines. */
export function showValue(key: string, value: unknown): string {
  if (typeof value === "string" && (SECRET_KEY.test(key) || looksLikeSecret(value)))
    return esc(maskSecret(value));
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (value instanceof Date || (typeof value === "string" && ISO_INSTANT.test(value)))
    return slackDate(value);
  if (typeof value === "number" && REF_KEY.test(key) && Number.isInteger(value)) return `#${value}`;
  if (typeof value === "object" && value !== null && !Array.isArray(value)) {
    const lines = Object.entries(value)
      .filter(([, v]) => v !== null && v !== undefined && v !== "")
      .map(([k, v]) => `${esc(k)}: ${typeof v === "boolean" ? (v ? "yes" : "no") : esc(show(v, 200))}`);
    return lines.join("\n");
  }
  return esc(show(value));
}

/**
 * Label/value pairs of a record: `first` members in that order, then the
 * other scalars and small objects. The id is left out: every title names it.
 */
export function recordPairs(
  r: ApiRecord,
  first: string[] = [],
  omit: string[] = [],
  names: RefNames = {},
): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  const seen = new Set<string>(["id", ...omit.map(camelKey)]);
  // "Updated" says something only when it differs from "Created".
  const created = pick(r, "created_at");
  if (created !== undefined && String(created) === String(pick(r, "updated_at"))) seen.add("updatedAt");
  const add = (key: string, value: unknown) => {
    const camel = camelKey(key);
    if (seen.has(key) || seen.has(camel)) return;
    seen.add(key);
    seen.add(camel);
    if (value === undefined || value === null || value === "") return;
    const ref = typeof value === "number" && REF_KEY.test(key);
    const named = ref ? names[camel] : undefined;
    // Related records by name; the number only when the name is unknown.
    const text = named ? esc(named) : showValue(key, value);
    if (text) pairs.push([humanize(ref && !LABELS[camel] ? key.replace(REF_KEY, "$1") : key), text]);
  };
  for (const k of first) add(k, r[k] ?? r[camelKey(k)]);
  for (const [k, v] of Object.entries(r)) {
    if (typeof v === "object" && v !== null && !(v instanceof Date)) {
      // Small objects (custom fields, examples) are worth a field; big ones are not.
      if (!Array.isArray(v) && Object.keys(v).length > 0 && Object.keys(v).length <= 10) add(k, v);
      continue;
    }
    add(k, v);
  }
  return pairs;
}

export function recordReply(
  title: string,
  r: ApiRecord,
  first: string[] = [],
  extra: KnownBlock[] = [],
  omit: string[] = [],
  names: RefNames = {},
): Reply {
  // A record's name belongs in its header, once.
  const name = typeof r.name === "string" && r.name.trim() ? r.name.trim() : "";
  const shown = name && !title.includes(name) ? `${title} ${name}` : title;
  const pairs = recordPairs(r, first, name ? [...omit, "name"] : omit, names);
  return {
    visibility: "ephemeral",
    // The title is plain text (a header); the fallback text is mrkdwn, so it is escaped there.
    text: `${esc(shown)}\n${pairs.map(([k, v]) => `${k}: ${v}`).join("\n")}`,
    blocks: [header(shown), ...fieldsSection(pairs), ...extra],
  };
}

export interface PageView<T extends ApiRecord> {
  /** What one record is: `contact`, `saved reply` (said, never derived: "1 saved reply", not "1 saved replie"). */
  one: string;
  /** What the records are, plural: `contacts`. */
  plural: string;
  title: string;
  page: Page<T>;
  line: (item: T) => string;
  /** Command line that shows page n, or undefined when paging is not possible. */
  pageLine?: (n: number) => string;
  empty?: string;
  footer?: string;
}

/** "Page 2 of 7 · 130 contacts" (or "Page 2" without a total); past the end, says where the end is. */
export function pagePosition(page: Page<unknown>, one: string, plural: string): string {
  if (page.total === undefined) return `Page ${page.page}`;
  const pages = Math.max(1, Math.ceil(page.total / Math.max(1, page.limit)));
  if (page.page > pages)
    return `Page ${page.page} is past the end: ${count(page.total, one, plural)} on ${count(pages, "page")}`;
  return `Page ${page.page} of ${pages} · ${count(page.total, one, plural)}`;
}

export function pageReply<T extends ApiRecord>(v: PageView<T>): Reply {
  const { page } = v;
  const blocks: KnownBlock[] = [header(v.title)];
  const lines = page.items.map(v.line);
  if (lines.length === 0) blocks.push(section(v.empty ?? `No ${v.plural}.`));
  else blocks.push(...linesToSections(lines));
  const position = v.pageLine
    ? pagePosition(page, v.one, v.plural)
    : count(page.total ?? page.items.length, v.one, v.plural);
  blocks.push(context(v.footer ? `${position} · ${v.footer}` : position));

  if (v.pageLine) {
    const hasNext =
      page.total !== undefined
        ? page.page * page.limit < page.total
        : page.items.length >= page.limit && page.items.length > 0;
    const buttons = [];
    const pages = page.total === undefined ? undefined : Math.ceil(page.total / Math.max(1, page.limit));
    // Past the end, the way back is to the last page (the one before would be as empty), or the first when the end is unknown.
    if (pages !== undefined && page.page > pages) {
      if (pages > 0) buttons.push({ text: "‹ Last page", actionId: ACTION.run, value: v.pageLine(pages) });
    } else if (page.page > 1 && pages === undefined && page.items.length === 0)
      buttons.push({ text: "‹ First page", actionId: ACTION.run, value: v.pageLine(1) });
    else if (page.page > 1)
      buttons.push({ text: "‹ Previous", actionId: ACTION.run, value: v.pageLine(page.page - 1) });
    if (hasNext) buttons.push({ text: "Next ›", actionId: ACTION.run, value: v.pageLine(page.page + 1) });
    if (buttons.length) blocks.push(actions(buttons));
  }
  return {
    visibility: "ephemeral",
    text: `${esc(v.title)} (${position})\n${lines.join("\n")}`,
    blocks,
  };
}

/** `#12` in bold followed by the parts that are present, for one line of a list. */
export function listLine(id: unknown, ...parts: unknown[]): string {
  const shown = parts
    .map((p) =>
      p instanceof Date || (typeof p === "string" && ISO_INSTANT.test(p)) ? slackDate(p) : esc(show(p, 200)),
    )
    .filter(Boolean);
  return `*#${esc(show(id))}* ${shown.join(" · ")}`.trim();
}

/** `*Loyalty tier:* gold`, one per line: a record's custom fields (labels given by the caller). */
export function customFieldLines(values: unknown): string[] {
  if (!values || typeof values !== "object" || Array.isArray(values)) return [];
  return Object.entries(values as Record<string, unknown>)
    .filter(([, v]) => v !== null && v !== undefined && v !== "")
    .map(([k, v]) => `*${esc(k)}:* ${typeof v === "boolean" ? (v ? "yes" : "no") : esc(show(v, 200))}`);
}

/**
 * A record as a card: its name as the title, the main facts as fields, its
 * custom fields one per line, when it was made, and what people do next as
 * buttons (command lines run by whoever clicks).
 */
export function cardReply(card: {
  title: string;
  pairs: Array<[string, string]>;
  custom?: string[];
  footer?: string;
  buttons: Array<{ text: string; line: string; style?: "primary" | "danger" }>;
}): Reply {
  const blocks: KnownBlock[] = [header(card.title), ...fieldsSection(card.pairs)];
  if (card.custom?.length) blocks.push(section(card.custom.join("\n")));
  if (card.footer) blocks.push(context(card.footer));
  if (card.buttons.length)
    blocks.push(
      actions(
        card.buttons.map((b) => ({ text: b.text, actionId: ACTION.run, value: b.line, style: b.style })),
      ),
    );
  const lines = [...card.pairs.map(([k, v]) => `${k}: ${v}`), ...(card.custom ?? [])];
  return { visibility: "ephemeral", text: `${esc(card.title)}\n${lines.join("\n")}`, blocks };
}
