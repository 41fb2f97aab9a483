// What a change did, by name (issue 30 §2): "*Ana García*: first name and city
// changed", for the answer of a command and the post of a form, never
// "Contact #1 changed".
import { esc } from "../blocks/blocks.ts";

/** The words of a contact's or chat user's own members. */
const MEMBER_WORDS: Record<string, string> = {
  phone: "phone",
  first_name: "first name",
  last_name: "last name",
  email: "email",
  name: "name",
  address: "address",
  avatar: "picture",
};

/** A custom field's label as part of a sentence: "City" → "city", "VIP tier" kept. */
function inSentence(label: string): string {
  return /^[A-Z][a-z]/.test(label) ? label[0]!.toLowerCase() + label.slice(1) : label;
}

/** A member's words: its own, a custom field's label (`labels` by key), else its key in words. */
export function memberWords(key: string, labels: Record<string, string> = {}): string {
  if (labels[key]) return inSentence(labels[key]);
  return MEMBER_WORDS[key] ?? key.replace(/_/g, " ");
}

/** Unset and empty alike: a field never set and one emptied read the same. */
const blank = (v: unknown) => v === undefined || v === null || v === "";
const same = (a: unknown, b: unknown) =>
  (blank(a) && blank(b)) || JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const valuesOf = (r: Record<string, unknown> | undefined, where?: string): Record<string, unknown> => {
  const v = where ? r?.[where] : r;
  return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
};

interface MemberOpts {
  members: string[];
  standard?: string;
  custom: string;
  labels?: Record<string, string>;
  /** `after` holds every custom value (the record as the API keeps it): one missing there was cleared. */
  whole?: boolean;
}

/** A record before a write (none when it could not be read) and after it, and how to read its members. */
type Change = [before: Record<string, unknown> | undefined, after: Record<string, unknown>, opts: MemberOpts];

/** The record's own members (`b`, `a`) and custom values (`bc`, `ac`) before and after. */
function valuesOfBoth(before: Change[0], after: Change[1], opts: MemberOpts) {
  return {
    opts,
    b: valuesOf(before, opts.standard),
    a: valuesOf(after, opts.standard),
    bc: valuesOf(before, opts.custom),
    ac: valuesOf(after, opts.custom),
  };
}

/**
 * The members given a new value between `before` and `after`, in words:
 * `members` of the record itself (or of `standard`, a chat user's
 * standardFields), then every custom field (`custom`: custom_fields or
 * customFields) by its label. Those emptied are `clearedMembers`.
 */
export function changedMembers(...change: Change): string[] {
  const { opts, b, a, bc, ac } = valuesOfBoth(...change);
  const out = opts.members
    .filter((k) => k in a && !blank(a[k]) && !same(b[k], a[k]))
    .map((k) => memberWords(k));
  for (const k of Object.keys(ac))
    if (!blank(ac[k]) && !same(bc[k], ac[k])) out.push(memberWords(k, opts.labels));
  return out;
}

/** The members that had a value in `before` and are empty in `after`, in words. */
export function clearedMembers(...change: Change): string[] {
  const { opts, b, a, bc, ac } = valuesOfBoth(...change);
  const out = opts.members.filter((k) => k in a && blank(a[k]) && !blank(b[k])).map((k) => memberWords(k));
  for (const k of Object.keys(bc))
    if (!blank(bc[k]) && (k in ac ? blank(ac[k]) : opts.whole)) out.push(memberWords(k, opts.labels));
  return out;
}

/** "a, b and c". */
export function listWords(words: string[]): string {
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words.at(-1)}`;
}

/**
 * "*Ana García*: first name and city changed", "*Ana García*: city changed, email cleared" (`cleared`:
 * those emptied on purpose); nothing known to differ: "*Ana García* saved, nothing changed".
 */
export function changeLine(name: string, changed: string[], cleared: string[] = []): string {
  const who = `*${esc(name)}*`;
  const gone = new Set(cleared);
  const kept = [...new Set(changed)].filter((w) => !gone.has(w));
  const parts = [
    ...(kept.length ? [`${esc(listWords(kept))} changed`] : []),
    ...(gone.size ? [`${esc(listWords([...gone]))} cleared`] : []),
  ];
  return parts.length ? `${who}: ${parts.join(", ")}` : `${who} saved, nothing changed`;
}
