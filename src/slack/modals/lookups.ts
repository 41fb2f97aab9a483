// What the forms read from the messaging API to offer choices: channels (the
// API lists none, so the ones its templates name, plus MESSAGING_CHANNEL_ID),
// approved templates, tags, groups, contacts and chat users as options.
import type { PlainTextOption } from "@slack/types";
import { placeholdersOf } from "../../api/schemas.ts";
import type { ApiRecord, ContactField, MessagingApi, Template } from "../../api/types.ts";
import { pick } from "../../commands/render.ts";
import { cut, option, VIEW_LIMITS } from "./kit.ts";

export const numberOf = (r: ApiRecord | undefined, ...keys: string[]): number | undefined => {
  const n = Number(pick(r, ...keys));
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export const textOfRecord = (r: ApiRecord | undefined, ...keys: string[]): string => {
  const v = pick(r, ...keys);
  return v === undefined || v === null ? "" : String(v);
};

export const templateChannel = (t: ApiRecord) =>
  numberOf(t, "integrationId", "integration_id", "channelId", "channel_id");
export const templateBody = (t: ApiRecord) => textOfRecord(t, "bodyText", "body_text", "body");

/** Channels to offer: MESSAGING_CHANNEL_ID first, then every channel a template names. */
export async function channelChoices(api: MessagingApi, defaultChannelId?: number): Promise<number[]> {
  const page = await api.listTemplates({});
  const ids = new Set<number>();
  if (defaultChannelId !== undefined) ids.add(defaultChannelId);
  for (const t of page.items) {
    const c = templateChannel(t);
    if (c !== undefined) ids.add(c);
  }
  return [...ids].slice(0, VIEW_LIMITS.options);
}

export const channelOptions = (ids: number[], defaultChannelId?: number): PlainTextOption[] =>
  ids.map((id) => option(`Channel ${id}${id === defaultChannelId ? " (default)" : ""}`, String(id)));

/** `order_update · en — Hi {{name}}, your order…`, within Slack's 75 characters. */
export function templateOptionText(t: Template): string {
  const name = textOfRecord(t, "name") || `#${t.id}`;
  const lang = textOfRecord(t, "language");
  const body = templateBody(t).replace(/\s+/g, " ").trim();
  const head = `${name}${lang ? ` · ${lang}` : ""}`;
  return cut(body ? `${head} — ${body}` : head, VIEW_LIMITS.optionText);
}

/** Approved templates matching what is typed (name or body), for an external select. */
export async function templateSuggestions(
  api: MessagingApi,
  query: string,
  channelId?: number,
): Promise<PlainTextOption[]> {
  const page = await api.listTemplates({ status: "approved", ...(channelId ? { channelId } : {}) });
  const q = query.trim().toLowerCase();
  return page.items
    .filter((t) => t.id !== undefined)
    .filter(
      (t) =>
        !q || textOfRecord(t, "name").toLowerCase().includes(q) || templateBody(t).toLowerCase().includes(q),
    )
    .slice(0, VIEW_LIMITS.options)
    .map((t) => option(templateOptionText(t), String(t.id)));
}

export interface ChosenTemplate {
  id: number;
  name: string;
  language: string;
  channel?: number;
  placeholders: string[];
  body: string;
}

export async function chosenTemplate(api: MessagingApi, id: number): Promise<ChosenTemplate> {
  const t = await api.getTemplate(id);
  const body = templateBody(t);
  return {
    id,
    name: textOfRecord(t, "name"),
    language: textOfRecord(t, "language"),
    channel: templateChannel(t),
    placeholders: placeholdersOf(body),
    body,
  };
}

const fullName = (r: ApiRecord) =>
  [textOfRecord(r, "first_name", "firstName"), textOfRecord(r, "last_name", "lastName")]
    .filter(Boolean)
    .join(" ");

/** Contacts (value `contact:<id>`) and, when asked, chat users (`user:<id>`) matching the query. */
export async function recipientSuggestions(
  api: MessagingApi,
  query: string,
  opts: { users?: boolean } = {},
): Promise<PlainTextOption[]> {
  const search = query.trim() || undefined;
  const [contacts, users] = await Promise.all([
    api.listContacts({ search, limit: opts.users ? 20 : 40 }),
    opts.users ? api.listChatUsers({ search, limit: 20 }) : Promise.resolve({ items: [] }),
  ]);
  const out: PlainTextOption[] = [];
  for (const c of contacts.items) {
    if (c.id === undefined) continue;
    const name = fullName(c);
    out.push(
      option(`${name || "Contact"} · ${textOfRecord(c, "phone")} (contact #${c.id})`, `contact:${c.id}`),
    );
  }
  for (const u of users.items) {
    if (u.id === undefined) continue;
    const name = textOfRecord(u, "name") || "Chat user";
    const reach = textOfRecord(u, "phone") || textOfRecord(u, "email") || textOfRecord(u, "type");
    out.push(option(`${name}${reach ? ` · ${reach}` : ""} (chat user #${u.id})`, `user:${u.id}`));
  }
  return out.slice(0, VIEW_LIMITS.options);
}

export async function contactFields(api: MessagingApi): Promise<ContactField[]> {
  const page = await api.listContactFields();
  return page.items
    .filter((f) => typeof f.key === "string" && f.key)
    .sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0));
}
