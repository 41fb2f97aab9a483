// Reading the API's records as people see them: a member by any of its
// spellings, a value shown short, a record's name and the ids it points to. A
// leaf file: the commands, the campaigns and the Slack side share these words.
import { placeholdersOf } from "../api/schemas.ts";
import type { ApiRecord } from "../api/types.ts";

function scalar(v: unknown): string | undefined {
  if (v === null || v === undefined || v === "") return undefined;
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v instanceof Date) return v.toISOString();
  return undefined;
}

/** A short readable form of any value (objects as compact JSON, cut). */
export function show(v: unknown, max = 300): string {
  if (v === "") return "";
  const s = scalar(v);
  if (s !== undefined) return s.length > max ? `${s.slice(0, max - 1)}…` : s;
  if (v === null || v === undefined) return "";
  const j = JSON.stringify(v);
  return j.length > max ? `${j.slice(0, max - 1)}…` : j;
}

/** The value of the first member present among `keys` (snake or camel case both tried). */
export function pick(r: ApiRecord | undefined, ...keys: string[]): unknown {
  if (!r) return undefined;
  for (const k of keys) {
    if (r[k] !== undefined && r[k] !== null) return r[k];
    const camel = k.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    if (r[camel] !== undefined && r[camel] !== null) return r[camel];
  }
  return undefined;
}

/**
 * What a reference member's `#id` is followed by, by member (camelCase):
 * `{ templateId: "order_update (en)" }` shows `Template` `#3 order_update (en)`.
 * Plain text; escaped here.
 */
export type RefNames = Record<string, string | undefined>;

export const nameOf = (r: ApiRecord | undefined, fallback = "") =>
  show(pick(r, "name", "label", "key") ?? fallback);

/** A positive integer member of a record (`templateId: 3`), else undefined. */
export const refId = (r: ApiRecord | undefined, ...keys: string[]): number | undefined => {
  const n = Number(pick(r, ...keys));
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/**
 * Names of the records a record points to, read in parallel: member → read
 * of its name. A name is a nicety: a read that fails (or gives no name)
 * leaves the bare `#id`, never fails the answer.
 */
export async function relatedNames(
  reads: Record<string, (() => Promise<string | undefined>) | undefined>,
): Promise<RefNames> {
  const entries = Object.entries(reads).filter(
    (e): e is [string, () => Promise<string | undefined>] => e[1] !== undefined,
  );
  const settled = await Promise.allSettled(entries.map(([, read]) => read()));
  const names: RefNames = {};
  settled.forEach((s, i) => {
    if (s.status === "fulfilled" && s.value?.trim()) names[entries[i]![0]] = s.value.trim();
  });
  return names;
}

/** `order_update (en)`: how a template is named next to its id. */
export const templateLabel = (t: ApiRecord): string | undefined => {
  const name = show(pick(t, "name") ?? "");
  const lang = show(pick(t, "language") ?? "");
  return name ? `${name}${lang ? ` (${lang})` : ""}` : undefined;
};

/** A group's number of members, under whichever name the record gives it. */
export const memberCount = (g: Record<string, unknown>) =>
  pick(
    g,
    "memberCount",
    "member_count",
    "contactCount",
    "contact_count",
    "contacts_count",
    "membersCount",
    "count",
  );

/**
 * A channel as people know it, after a "Channel" label: its name (`/sb channel
 * name`), else its number ("Channel: 2", never "Channel: channel 2").
 */
export async function channelLabel(
  ctx: { channels: { name(id: number): Promise<string | undefined> } },
  id: number,
): Promise<string> {
  const name = await ctx.channels.name(id).catch(() => undefined);
  return name ?? String(id);
}

/** A template's text, from its record (`bodyText`, else `body`). */
export const bodyOf = (t: ApiRecord | undefined): string => show(pick(t, "bodyText", "body") ?? "", 100_000);

/** The template's placeholders, read from its record (its list when it has one, else its body). */
export function placeholdersOfTemplate(t: ApiRecord | undefined): string[] {
  const listed = pick(t, "placeholders");
  if (Array.isArray(listed) && listed.every((p) => typeof p === "string")) return listed as string[];
  return placeholdersOf(bodyOf(t));
}
