// The forms' choices as Slack options: channels, approved templates searched
// as the user types, contacts and chat users. The API calls behind the form
// data are the core's (src/commands/lookups.ts).
import type { PlainTextOption } from "@slack/types";
import type { MessagingApi, Template } from "../../api/types.ts";
import { recipientLabel, templateBody, textOfRecord } from "../../commands/lookups.ts";
import { cut, option, VIEW_LIMITS } from "./kit.ts";

/** `Main line (default)`: a channel by the name people gave it, else `Channel 2`. */
export const channelOptions = (
  ids: number[],
  defaultChannelId?: number,
  names: Record<number, string> = {},
): PlainTextOption[] =>
  ids.map((id) =>
    option(
      cut(
        `${names[id] ?? `Channel ${id}`}${id === defaultChannelId ? " (default)" : ""}`,
        VIEW_LIMITS.optionText,
      ),
      String(id),
    ),
  );

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
    out.push(option(recipientLabel("contact", Number(c.id), c), `contact:${c.id}`));
  }
  for (const u of users.items) {
    if (u.id === undefined) continue;
    out.push(option(recipientLabel("user", Number(u.id), u), `user:${u.id}`));
  }
  return out.slice(0, VIEW_LIMITS.options);
}
