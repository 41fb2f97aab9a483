// What the forms need from the messaging API, as plain API calls: channels
// (the API lists none, so the ones its templates name, plus the
// workspace's default channel), the campaign form's tags and groups, a chosen
// template's placeholders, the custom fields. The Slack front end turns these
// into options; nothing here knows a front end.
import { placeholdersOf } from "../api/schemas.ts";
import type { ApiRecord, ContactField, MessagingApi } from "../api/types.ts";
import type { CampaignFormData, ChannelsFormData } from "./form-kinds.ts";
import { pick } from "./render.ts";

/** Slack lets a select offer 100 options: more channels than that are not offered. */
const MAX_CHOICES = 100;

export const numberOf = (r: ApiRecord | undefined, ...keys: string[]): number | undefined => {
  const n = Number(pick(r, ...keys));
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

export const textOfRecord = (r: ApiRecord | undefined, ...keys: string[]): string => {
  const v = pick(r, ...keys);
  return v === undefined || v === null ? "" : String(v);
};

/**
 * A contact or chat user as the message form's menu shows them, once found or
 * chosen: `Ana Lopez · +14155550200 (contact #1)`, `Grace Kim · grace@… (chat
 * user #10)`. Without the record (it could not be read), the id alone.
 */
export function recipientLabel(kind: "contact" | "user", id: number, r: ApiRecord | undefined): string {
  const name =
    kind === "contact"
      ? [textOfRecord(r, "first_name", "firstName"), textOfRecord(r, "last_name", "lastName")]
          .filter(Boolean)
          .join(" ")
      : textOfRecord(r, "name");
  const reach =
    kind === "contact"
      ? textOfRecord(r, "phone")
      : textOfRecord(r, "phone") || textOfRecord(r, "email") || textOfRecord(r, "type");
  const noun = kind === "contact" ? "contact" : "chat user";
  const who = name || (kind === "contact" ? "Contact" : "Chat user");
  return `${who}${reach ? ` · ${reach}` : ""} (${noun} #${id})`;
}

export const templateChannel = (t: ApiRecord) =>
  numberOf(t, "integrationId", "integration_id", "channelId", "channel_id");
export const templateBody = (t: ApiRecord) => textOfRecord(t, "bodyText", "body_text", "body");

/**
 * A channel as people see it: the name the workspace gave it (`/sb channel
 * name`), else "Channel 2" (its number in the workspace's own account).
 */
export const channelName = (
  id: number,
  names: ReadonlyMap<number, string> | Record<number, string>,
): string =>
  (names instanceof Map ? names.get(id) : (names as Record<number, string>)[id]) ?? `Channel ${id}`;

/**
 * The channels the account's templates use, in order: the API cannot list
 * channels, but each template names its own (the first page of templates).
 */
export async function templateChannels(api: Pick<MessagingApi, "listTemplates">): Promise<number[]> {
  const page = await api.listTemplates({});
  const ids = new Set<number>();
  for (const t of page.items) {
    const c = templateChannel(t);
    if (c !== undefined && Number.isInteger(c) && c > 0) ids.add(c);
  }
  return [...ids].sort((a, b) => a - b);
}

/** "Name your channels…": the line that asks to name the channels shown by number; empty when all have names. */
export function nameChannelsLine(unnamed: readonly number[]): string {
  if (!unnamed.length) return "";
  const shown = unnamed.slice(0, 10).map((id) => `Channel ${id}`);
  const more = unnamed.length > shown.length ? ` and ${unnamed.length - shown.length} more` : "";
  return `Name your channels so people see names, not numbers: ${shown.join(", ")}${more}. For example \`/sb channel name ${unnamed[0]} Main line\`; \`/sb channels\` lists them.`;
}

/**
 * Channels to offer: the default one first (the workspace's, or the conversation's), then every channel people
 * named or a template names, in order.
 */
export async function channelChoices(
  api: MessagingApi,
  defaultChannelId?: number,
  names: Record<number, string> = {},
): Promise<number[]> {
  const known = new Set<number>([...Object.keys(names).map(Number), ...(await templateChannels(api))]);
  const ids = new Set<number>();
  if (defaultChannelId !== undefined) ids.add(defaultChannelId);
  for (const id of [...known].sort((a, b) => a - b)) ids.add(id);
  return [...ids].slice(0, MAX_CHOICES);
}

/** A form's channel data: the choices, the default, and their names. */
export async function channelFormData(
  api: MessagingApi,
  defaultChannelId?: number,
  names?: () => Promise<Record<number, string>>,
): Promise<ChannelsFormData & { channelNames: Record<number, string> }> {
  const channelNames = (await names?.()) ?? {};
  const channels = await channelChoices(api, defaultChannelId, channelNames);
  const def = defaultChannelId ?? (channels.length === 1 ? channels[0] : undefined);
  return { channels, defaultChannelId: def, channelNames };
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

/** The contact custom fields, in their order. */
export async function contactFields(api: MessagingApi): Promise<ContactField[]> {
  const page = await api.listContactFields();
  return page.items
    .filter((f) => typeof f.key === "string" && f.key)
    .sort((a, b) => Number(a.position ?? 0) - Number(b.position ?? 0));
}

export async function loadCampaignData(
  api: MessagingApi,
  defaultChannelId?: number,
  names?: () => Promise<Record<number, string>>,
): Promise<CampaignFormData> {
  const [channels, tags, groups] = await Promise.all([
    channelFormData(api, defaultChannelId, names),
    api.listTags(),
    api.listGroups(),
  ]);
  return { ...channels, tags: tags.items, groups: groups.items };
}
