// The customer's record a saved reply or a template is filled from (issue 29
// §1): the contact with the chat user's phone when there is one (the chat
// user's contact, else one found by its phone), else the chat user itself
// (its first name: the first word of its name). Two or three API reads.
import { chatUserContactId } from "../api/inbox.ts";
import type { CallOptions, ChatUser, Contact, MessagingApi } from "../api/types.ts";
import { fillReply, type ReplyRecord, replyPlaceholders } from "../domain/saved-reply.ts";

export interface CustomerRecord {
  record: ReplyRecord;
  /** Where the values come from, in words ("Ana Lima's contact", "the chat user Ana"). */
  source: string;
}

const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);

function fromContact(c: Contact, u: ChatUser): ReplyRecord {
  const r = c as Record<string, unknown>;
  return {
    first_name: str(r.firstName) ?? str(r.first_name),
    last_name: str(r.lastName) ?? str(r.last_name),
    name: str(u.name),
    phone: str(r.phone) ?? str(u.phone),
    custom_fields: (r.customFields ?? r.custom_fields ?? {}) as Record<string, unknown>,
  };
}

function fromChatUser(u: ChatUser): ReplyRecord {
  const name = str(u.name);
  return { first_name: name?.split(/\s+/)[0], name, phone: str(u.phone), custom_fields: {} };
}

/**
 * The record of a chat user: its contact's when it has one (or one with its
 * phone), else its own. `opts`: the reads' lane (the inbox's away message: background).
 */
export async function customerRecord(
  api: MessagingApi,
  chatUserId: number,
  opts?: CallOptions,
): Promise<CustomerRecord> {
  const u = await api.getChatUser(chatUserId, opts);
  let contact: Contact | undefined;
  const contactId = chatUserContactId(u);
  if (contactId) contact = await api.getContact(contactId, opts).catch(() => undefined);
  if (!contact && u.phone) {
    const page = await api.listContacts({ search: String(u.phone), limit: 5 }, opts).catch(() => undefined);
    contact = page?.items.find((c) => digits(c.phone) === digits(u.phone));
  }
  const who = str(u.name) ?? str(u.phone) ?? `chat user #${chatUserId}`;
  return contact
    ? { record: fromContact(contact, u), source: `${who}'s contact` }
    : { record: fromChatUser(u), source: `the chat user ${who}` };
}

const digits = (v: unknown) => String(v ?? "").replace(/\D/g, "");

/**
 * A saved reply for this customer: the placeholders with a value or a
 * fallback filled, the others kept as written (`{order_id}`) and listed in
 * `missing`, to be filled by the writer before it is sent.
 */
export function fillForCustomer(text: string, record: ReplyRecord): { text: string; missing: string[] } {
  const missing: string[] = [];
  const PLACEHOLDER = /(?<!\{)\{\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\|([^{}]*))?\}(?!\})/g;
  const out = text.replace(PLACEHOLDER, (whole, key: string) => {
    const filled = fillReply(whole, record);
    if (filled) return filled;
    if (!missing.includes(key)) missing.push(key);
    return `{${key}}`;
  });
  return { text: out, missing };
}

/** The placeholders still in a text that had `missing` unfilled (what the writer left as written). */
export const stillMissing = (text: string, missing: string[]): string[] =>
  replyPlaceholders(text).filter((k) => missing.includes(k));

/** A template's `{{name}}` placeholders filled from the record the same way (`{{first_name}}`); the rest missing. */
export function templateValues(
  names: string[],
  record: ReplyRecord,
): { values: Record<string, string>; missing: string[] } {
  const values: Record<string, string> = {};
  const missing: string[] = [];
  for (const n of names) {
    const v = /^[A-Za-z]/.test(n) ? fillReply(`{${n}}`, record) : "";
    if (v) values[n] = v;
    else missing.push(n);
  }
  return { values, missing };
}
