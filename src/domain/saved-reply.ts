// A saved reply's text as a customer reads it (issue 29 §1): placeholders
// filled from their record. `{first_name}`, `{last_name}`, `{name}` (first
// and last, else the chat user's name), `{phone}`, a custom field by its key
// (`{order_id}`); `{first_name|there}` says "there" when the record has no
// first name. A placeholder with no value and no fallback becomes nothing;
// anything else in braces is left as written. A leaf file (no imports).

/**
 * The longest a saved reply's text may be, wherever it is written (a command,
 * the saved reply form) or shown to edit (the card's form): Slack's text input
 * holds at most 3,000 characters.
 */
export const SAVED_REPLY_MAX = 3000;

/** A text over SAVED_REPLY_MAX, in words ("is 3,512 characters: at most 3,000, the most a Slack form holds"). */
export function savedReplyTooLong(text: string): string | undefined {
  if (text.length <= SAVED_REPLY_MAX) return undefined;
  const n = (v: number) => v.toLocaleString("en-US");
  return `is ${n(text.length)} characters: a saved reply may have at most ${n(SAVED_REPLY_MAX)}, the most a Slack form holds`;
}

/** What a customer's record gives a saved reply: the contact's, or the chat user's. */
export interface ReplyRecord {
  first_name?: string;
  last_name?: string;
  /** The chat user's name, when the contact has neither first nor last name. */
  name?: string;
  phone?: string;
  custom_fields?: Record<string, unknown>;
}

/** `{key}` or `{key|fallback}`; not inside double braces (`{{1}}`, a template's own). */
const PLACEHOLDER = /(?<!\{)\{\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\|([^{}]*))?\}(?!\})/g;

/** The placeholders a text uses, each once, in order (`first_name`, `order_id`…). */
export function replyPlaceholders(text: string): string[] {
  return [...new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1] as string))];
}

function recordValue(key: string, r: ReplyRecord): string | undefined {
  const s = (v: unknown) => (typeof v === "string" || typeof v === "number" ? String(v).trim() : "");
  switch (key) {
    case "first_name":
      return s(r.first_name) || undefined;
    case "last_name":
      return s(r.last_name) || undefined;
    case "name":
      return [s(r.first_name), s(r.last_name)].filter(Boolean).join(" ") || s(r.name) || undefined;
    case "phone":
      return s(r.phone) || undefined;
    default:
      return s(r.custom_fields?.[key]) || undefined;
  }
}

/** The text with its placeholders filled from the record (fallbacks where it has no value). */
export function fillReply(text: string, record: ReplyRecord): string {
  return text.replace(
    PLACEHOLDER,
    (_m, key: string, fallback: string | undefined) => recordValue(key, record) ?? fallback?.trim() ?? "",
  );
}
